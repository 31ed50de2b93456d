import type { AgentApprovalRequestBody, ApprovalView, ApproveBody } from '@hearth/protocol';
import type { BearerDevice, SessionAuth } from '../../platform/access.js';
import { creationIso, nowIso } from '../../platform/clock.js';
import { newId } from '../../platform/crypto.js';
import type { ApprovalRequestTable } from '../../platform/db/schema.js';
import { conflict, invalidRequest, notFound } from '../../platform/errors.js';
import type { EventPublisher } from '../../platform/events.js';
import { type CacheSpace, cacheTags, type ReadCache } from '../../platform/read-cache.js';
import type { AccessService } from '../access/service.js';
import type { ApprovalRepository } from './repository.js';
import { domainOrFail, forgetMapping, onceGrantExpiry, parseObject, requireAccount } from './rules.js';

/** Adds `minutes` for today (household zone) to a child's allowance, from an approved request. */
export type ApprovedTime = (
  managedUserId: string,
  minutes: number,
  requestId: string,
  parentId: string,
) => Promise<void>;

type RequestRow = NonNullable<Awaited<ReturnType<ApprovalRepository['getRequest']>>>;

export function approvalView(row: RequestRow): ApprovalView {
  return {
    id: row.id,
    type: row.type,
    status: row.status,
    managed_user_id: row.managed_user_id,
    managed_user_name: row.managed_user_name ?? null,
    mapping_id: row.mapping_id,
    system_id: row.system_id,
    linux_username: row.linux_username,
    domain: row.domain,
    url: row.url,
    details: parseObject(row.details),
    requested_at: row.requested_at,
    decided_at: row.decided_at,
    decided_by: row.decided_by,
    grant: row.grant,
    approved_minutes: row.approved_minutes ?? null,
  };
}

/**
 * When a grant from an approval ends: a one-time grant after 24 hours (or once used); a persistent
 * domain_unblock grant after `minutes` when the parent gave them, else never.
 */
function grantExpiry(type: string, kind: 'once' | 'persistent', minutes: number | undefined): string | null {
  if (kind === 'once') return onceGrantExpiry();
  return type === 'domain_unblock' && minutes ? new Date(Date.now() + minutes * 60_000).toISOString() : null;
}

/** Approval requests other than sign-ups' own checks: agents ask, parents list and decide. */
export class ApprovalService {
  /** An owner's or admin's count of pending requests, by household (see countPending). */
  private readonly cachedPending: CacheSpace<number>;

  constructor(
    private readonly repo: ApprovalRepository,
    private readonly access: AccessService,
    private readonly events: EventPublisher,
    private readonly cache: ReadCache,
    /** Adds approved minutes for today in the household's zone and pushes the change (the time feature). */
    private readonly addTime: ApprovedTime,
    /** A domain_unblock grant was made for the child: its domain policy compiles again (blocklists). */
    private readonly domainGrantMade: (managedUserId: string) => Promise<void> = async () => {},
  ) {
    this.cachedPending = cache.space('approvals-pending');
  }

  /** Agents ask for more time, an app, or an unblocked domain. */
  async requestOther(device: BearerDevice, body: AgentApprovalRequestBody) {
    requireAccount(device, body.linux_username);
    const detailsText = JSON.stringify(body.details);
    if (detailsText.length > 8192) throw invalidRequest('details is too large (8 KB at most).');
    let domain: string | null = null;
    if (body.type === 'domain_unblock') {
      if (typeof body.details.domain !== 'string')
        throw invalidRequest('details.domain is required for domain_unblock.', [
          { path: 'body/details/domain', message: 'is required' },
        ]);
      domain = domainOrFail(body.details.domain, 'details/domain');
    }
    if (body.type === 'time_extension' && body.details.minutes !== undefined) {
      const m = body.details.minutes;
      if (!Number.isInteger(m) || (m as number) < 1 || (m as number) > 1440)
        throw invalidRequest('details.minutes must be a whole number from 1 to 1440.');
    }
    if (body.type === 'app_access' && typeof body.details.identifier !== 'string') {
      throw invalidRequest('details.identifier is required for app_access.', [
        { path: 'body/details/identifier', message: 'is required' },
      ]);
    }
    const mapping = await this.repo.mappingForAccount(device.systemId, body.linux_username);
    if (mapping && domain) {
      const pending = await this.repo.pendingRequest(mapping.id, body.type, domain);
      if (pending) return { created: false, view: { id: pending.id, status: 'pending' } };
    }
    const row: ApprovalRequestTable = {
      id: newId(),
      household_id: device.householdId,
      type: body.type,
      status: 'pending',
      mapping_id: mapping?.id ?? null,
      managed_user_id: mapping?.managed_user_id ?? null,
      system_id: device.systemId,
      linux_username: body.linux_username,
      domain,
      url: null,
      details: detailsText,
      requested_at: creationIso(),
      decided_at: null,
      decided_by: null,
      grant: null,
    };
    await this.repo.insertRequest(row);
    await forgetMapping(this.cache, row.mapping_id);
    await this.announce(device.householdId, row.id, 'approval_created');
    return { created: true, view: { id: row.id, status: 'pending' } };
  }

  /** Tells the household's dashboards that a request was created or decided. */
  async announce(householdId: string, id: string, kind: 'approval_created' | 'approval_decided') {
    await this.cache.invalidate(cacheTags.approvals(householdId));
    const row = await this.repo.getRequest(householdId, id);
    if (row) this.events.publish(householdId, kind, approvalView(row));
  }

  async list(
    actor: SessionAuth,
    query: { status?: string; type?: string; managed_user_id?: string },
  ): Promise<ApprovalView[]> {
    const rows = await this.repo.listRequests({
      householdId: actor.householdId,
      status: query.status,
      type: query.type,
      managedUserId: query.managed_user_id,
      onlyChildren: await this.access.visibleChildIds(actor),
    });
    return rows.map(approvalView);
  }

  /**
   * Requests waiting for this parent; an owner's or admin's count (every dashboard visit) is cached
   * until a request of the household is created or decided (`announce`), or its children change.
   */
  async countPending(actor: SessionAuth): Promise<number> {
    const only = await this.access.visibleChildIds(actor);
    const household = actor.householdId;
    if (only !== null) return this.repo.countPending(household, only);
    return this.cachedPending.load(household, async () => ({
      value: await this.repo.countPending(household, null),
      tags: [cacheTags.approvals(household), cacheTags.children(household)],
    }));
  }

  /** A request the parent may decide (see AccessService.requireApproval for the answers). */
  private async loadRequest(actor: SessionAuth, id: string): Promise<RequestRow> {
    await this.access.requireApproval(actor, id);
    const row = await this.repo.getRequest(actor.householdId, id);
    if (!row) throw notFound('The request');
    return row;
  }

  async approve(actor: SessionAuth, id: string, body: ApproveBody): Promise<ApprovalView> {
    const row = await this.loadRequest(actor, id);
    if (row.status !== 'pending') throw conflict(`This request was already ${row.status}.`);
    const at = nowIso();
    const kind = body.grant ?? 'once';
    const details = parseObject(row.details);
    if (row.type === 'time_extension') {
      const minutes =
        body.minutes ?? (Number.isInteger(details.minutes) ? (details.minutes as number) : undefined);
      if (!minutes)
        throw invalidRequest('Say how many minutes to add: minutes is required for a time extension.', [
          { path: 'body/minutes', message: 'is required' },
        ]);
      if (!row.managed_user_id)
        throw conflict('This account is not mapped to a child, so there is no allowance to extend.');
      if (
        !(await this.repo.decide(id, {
          status: 'approved',
          decided_at: at,
          decided_by: actor.parentId,
          grant: null,
          approved_minutes: minutes,
        }))
      )
        throw conflict('This request was decided meanwhile.');
      await this.addTime(row.managed_user_id, minutes, id, actor.parentId);
    } else {
      if (!row.mapping_id)
        throw conflict('This account is not mapped to a child, so nothing can be allowed for it.');
      if (
        !(await this.repo.decide(id, {
          status: 'approved',
          decided_at: at,
          decided_by: actor.parentId,
          grant: kind,
        }))
      )
        throw conflict('This request was decided meanwhile.');
      await this.repo.insertGrant({
        id: newId(),
        household_id: actor.householdId,
        mapping_id: row.mapping_id,
        type: row.type,
        domain: row.domain,
        target: row.type === 'app_access' ? String(details.identifier ?? '') : null,
        kind,
        source_request_id: id,
        created_at: creationIso(),
        expires_at: grantExpiry(row.type, kind, body.minutes),
        consumed_at: null,
      });
      if (row.type === 'domain_unblock' && row.managed_user_id)
        await this.domainGrantMade(row.managed_user_id);
    }
    await forgetMapping(this.cache, row.mapping_id);
    await this.announce(actor.householdId, id, 'approval_decided');
    return this.view(actor, id);
  }

  async deny(actor: SessionAuth, id: string): Promise<ApprovalView> {
    const row = await this.loadRequest(actor, id);
    if (row.status !== 'pending') throw conflict(`This request was already ${row.status}.`);
    if (
      !(await this.repo.decide(id, {
        status: 'denied',
        decided_at: nowIso(),
        decided_by: actor.parentId,
        grant: null,
      }))
    ) {
      throw conflict('This request was decided meanwhile.');
    }
    await forgetMapping(this.cache, row.mapping_id);
    await this.announce(actor.householdId, id, 'approval_decided');
    return this.view(actor, id);
  }

  private async view(actor: SessionAuth, id: string): Promise<ApprovalView> {
    const row = await this.repo.getRequest(actor.householdId, id);
    if (!row) throw notFound('The request');
    return approvalView(row);
  }
}
