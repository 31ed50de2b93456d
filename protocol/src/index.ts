export * from './agent.js';
export * from './constants.js';
export * from './errors.js';
export * from './live-events.js';
export * from './rest/alerts.js';
export * from './rest/approvals.js';
export * from './rest/auth.js';
export * from './rest/blocklists.js';
export {
  AgeTierSchema,
  Id,
  Items,
  LinuxUsername,
  Name,
  Nullable,
  ParentNote,
  Password,
  PlatformSchema,
  RoleSchema,
  Timestamp,
  Username,
} from './rest/common.js';
export * from './rest/consoles.js';
export * from './rest/dashboard.js';
export * from './rest/device-policy.js';
export * from './rest/devices.js';
export * from './rest/inventory.js';
export * from './rest/parents.js';
export * from './rest/time.js';
export * from './rest/users.js';
export * from './time/engine.js';
export * from './time/schedule.js';
export * from './time/types.js';
export { addDays, isValidTimeZone, localDate, weekdayOf, zonedInstant } from './time/zone.js';
