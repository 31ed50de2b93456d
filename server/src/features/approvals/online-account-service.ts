import type { LogLoginBody, OnlineAccountQuery, OnlineAccountView } from '@hearth/protocol';
import type { BearerDevice, SessionAuth } from '../../platform/access.js';
import { nowIso } from '../../platform/clock.js';
import { newId } from '../../platform/crypto.js';
import { domainAndParents } from '../../platform/domain.js';
import { invalidRequest } from '../../platform/errors.js';
import type { ReadCache } from '../../platform/read-cache.js';
import type { AccessService } from '../access/service.js';
import type { ApprovalRepository } from './repository.js';
import { domainOrFail, forgetMapping, requireAccount } from './rules.js';

/** The online account audit: the logins the extension saw, searchable by the parents. */
export class OnlineAccountService {
  constructor(
    private readonly repo: ApprovalRepository,
    private readonly access: AccessService,
    private readonly cache: ReadCache,
  ) {}

  async logLogin(device: BearerDevice, body: LogLoginBody): Promise<OnlineAccountView> {
    const domain = domainOrFail(body.domain);
    requireAccount(device, body.linux_username);
    const username = body.username.trim();
    if (!username)
      throw invalidRequest('username is empty.', [{ path: 'body/username', message: 'is empty' }]);
    const mapping = await this.repo.mappingForAccount(device.systemId, body.linux_username);
    const ownerKey = mapping?.managed_user_id ?? `device:${device.systemId}:${body.linux_username}`;
    const at = nowIso();
    await this.repo.upsertOnlineAccount({
      id: newId(),
      household_id: device.householdId,
      owner_key: ownerKey,
      managed_user_id: mapping?.managed_user_id ?? null,
      system_id: device.systemId,
      linux_username: body.linux_username,
      domain,
      username,
      first_detected_at: at,
      last_active_at: at,
    });
    // The first login after a one-time approval uses the approval up.
    if (mapping) {
      await this.repo.consumeOnceGrants(mapping.id, domainAndParents(domain), at);
      await forgetMapping(this.cache, mapping.id);
    }
    const row = await this.repo.getOnlineAccount(device.householdId, ownerKey, domain, username);
    if (!row) throw new Error('online account vanished after upsert');
    return { ...row, managed_user_name: row.managed_user_name ?? null };
  }

  async list(actor: SessionAuth, query: OnlineAccountQuery): Promise<OnlineAccountView[]> {
    if (query.managed_user_id) await this.access.requireChild(actor, query.managed_user_id, 'view');
    const rows = await this.repo.listOnlineAccounts({
      householdId: actor.householdId,
      q: query.q,
      sort: query.sort ?? 'last_active_at',
      order: query.order ?? (query.sort === 'domain' || query.sort === 'username' ? 'asc' : 'desc'),
      managedUserId: query.managed_user_id,
      onlyChildren: await this.access.visibleChildIds(actor),
    });
    return rows.map((r) => ({ ...r, managed_user_name: r.managed_user_name ?? null }));
  }
}
