import * as foundation from './0001-foundation.js';
/** Every migration, in order. A landed migration is never edited: add a new one. */
export const migrations = {
  '0001-foundation': foundation,
};
//# sourceMappingURL=index.js.map
