import type { Migration } from 'kysely';
/** Every migration, in order. A landed migration is never edited: add a new one. */
export declare const migrations: Record<string, Migration>;
