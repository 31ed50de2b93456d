import type { Migration } from 'kysely';
import * as foundation from './0001-foundation.js';
import * as deviceChannel from './0002-device-channel.js';
import * as alertsWorker from './0003-alerts-worker.js';
import * as approvals from './0004-approvals.js';
import * as installedApps from './0005-installed-apps.js';
import * as decisions from './0006-decisions.js';
import * as access from './0007-access.js';
import * as time from './0008-time.js';
import * as blocklists from './0009-blocklists.js';
import * as overlayState from './0010-overlay-state.js';
import * as consoles from './0011-consoles.js';
import * as devicePolicies from './0012-device-policies.js';

/** Every migration, in order. A landed migration is never edited: add a new one. */
export const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-device-channel': deviceChannel,
  '0003-alerts-worker': alertsWorker,
  '0004-approvals': approvals,
  '0005-installed-apps': installedApps,
  '0006-decisions': decisions,
  '0007-access': access,
  '0008-time': time,
  '0009-blocklists': blocklists,
  '0010-overlay-state': overlayState,
  '0011-consoles': consoles,
  '0012-device-policies': devicePolicies,
};
