import type { Db } from '../../platform/db/database.js';
import { Prepared } from '../../platform/db/prepared.js';
import type { DeviceRow } from '../devices/repository.js';

/** The columns of a device its view shows (DeviceService.view), and its version (`updated_at`). */
export type ShownDeviceRow = Pick<
  DeviceRow,
  | 'system_id'
  | 'hostname'
  | 'display_name'
  | 'platform'
  | 'status'
  | 'agent_version'
  | 'linux_users'
  | 'connected_instance'
  | 'last_seen_at'
  | 'created_at'
  | 'updated_at'
>;

/**
 * What changes about a device without its `updated_at` changing: presence (which instance holds it,
 * when it was last heard). Every other write to a device sets `updated_at`.
 */
export type DevicePresenceRow = Pick<
  DeviceRow,
  'system_id' | 'status' | 'connected_instance' | 'last_seen_at' | 'updated_at'
>;

/**
 * The dashboard's own hot reads: every device of a household, as an owner or admin sees them on each
 * visit, in the order of DeviceRepository.list (newest first). Prepared, only the columns shown; and
 * the narrow presence read that tells whether a kept copy of them is still right.
 */
export class DashboardRepository {
  private readonly householdDevices: Prepared<'household', ShownDeviceRow>;
  private readonly householdPresence: Prepared<'household', DevicePresenceRow>;

  constructor(database: Db) {
    this.householdDevices = new Prepared(database, (k, p) =>
      k
        .selectFrom('agent_device')
        .select([
          'system_id',
          'hostname',
          'display_name',
          'platform',
          'status',
          'agent_version',
          'linux_users',
          'connected_instance',
          'last_seen_at',
          'created_at',
          'updated_at',
        ])
        .where('household_id', '=', p('household'))
        .orderBy('created_at', 'desc')
        .orderBy('system_id', 'desc'),
    );
    this.householdPresence = new Prepared(database, (k, p) =>
      k
        .selectFrom('agent_device')
        .select(['system_id', 'status', 'connected_instance', 'last_seen_at', 'updated_at'])
        .where('household_id', '=', p('household'))
        .orderBy('created_at', 'desc')
        .orderBy('system_id', 'desc'),
    );
  }

  devicesOf(householdId: string): Promise<ShownDeviceRow[]> {
    return this.householdDevices.all({ household: householdId });
  }

  /** The same devices, in the same order, with only what changes without `updated_at`. */
  presenceOf(householdId: string): Promise<DevicePresenceRow[]> {
    return this.householdPresence.all({ household: householdId });
  }
}
