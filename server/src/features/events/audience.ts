import type { ParentRole } from '@hearth/protocol';
import { isAdmin, type SessionAuth } from '../../platform/access.js';
import type { AccessService } from '../access/service.js';
import type { AudienceOf } from './hub.js';

export interface AudienceDeps {
  access: AccessService;
  sessionExists(sessionId: string): Promise<boolean>;
  /** The parent's role as stored now; undefined once the parent is gone. */
  parentRole(householdId: string, parentId: string): Promise<ParentRole | undefined>;
}

/**
 * Reads who a stream's parent may hear from the database, not from the session the stream opened
 * with: a role or grants changed since then count, and a session that ended hears nothing.
 */
export function audienceReader(deps: AudienceDeps): AudienceOf {
  return async (opened: SessionAuth) => {
    const [alive, role] = await Promise.all([
      deps.sessionExists(opened.sessionId),
      deps.parentRole(opened.householdId, opened.parentId),
    ]);
    if (!alive || !role) return null;
    if (isAdmin(role)) return { children: null, devices: null };
    const actor = { ...opened, role };
    const [children, devices] = await Promise.all([
      deps.access.visibleChildIds(actor),
      deps.access.visibleDeviceIds(actor),
    ]);
    return { children: new Set(children), devices: new Set(devices) };
  };
}
