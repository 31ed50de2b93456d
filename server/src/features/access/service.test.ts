import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ParentRole } from '@hearth/protocol';
import type { SessionAuth } from '../../platform/access.js';
import { type Db, migrateToLatest, openDatabase } from '../../platform/db/database.js';
import { HttpError } from '../../platform/errors.js';
import { DeviceRepository } from '../devices/repository.js';
import { HouseholdRepository } from '../household/repository.js';
import { UserRepository } from '../users/repository.js';
import { AccessRepository } from './repository.js';
import { AccessService } from './service.js';

const AT = '2025-01-01T00:00:00.000Z';

/** Fails unless `work` throws the HTTP error with this status and code. */
async function rejectsWith(work: Promise<unknown>, status: number, code: string) {
  await assert.rejects(
    work,
    (err) => err instanceof HttpError && err.statusCode === status && err.code === code,
  );
}

describe('object access', () => {
  let dir: string;
  let db: Db;
  let access: AccessService;
  const actors: Record<string, SessionAuth> = {};
  const actor = (id: string) => actors[id] as SessionAuth;

  /**
   * Household h1: children viewed (seen by the member), managed (managed by the member) and hidden;
   * device d-shared maps viewed and managed, d-viewed only viewed, d-hidden only hidden. Household h2
   * has child foreign and device d-foreign.
   */
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'hearth-access-'));
    db = openDatabase({ databaseUrl: null, dataDir: dir });
    await migrateToLatest(db);
    const households = new HouseholdRepository(db.kysely);
    const users = new UserRepository(db);
    const devices = new DeviceRepository(db.kysely);
    for (const h of ['h1', 'h2'])
      await households.createHousehold({ id: h, name: h, enrollment_token: `token-${h}`, created_at: AT });
    const parent = async (id: string, household: string, role: ParentRole) => {
      await households.insertParent({
        id,
        household_id: household,
        username: id,
        username_key: id,
        password_hash: 'x',
        role,
        created_at: AT,
        updated_at: AT,
      });
      actors[id] = {
        sessionId: `s-${id}`,
        parentId: id,
        username: id,
        householdId: household,
        householdName: household,
        householdTimezone: 'UTC',
        role,
        csrfToken: 'c',
      };
    };
    await parent('owner', 'h1', 'owner');
    await parent('member', 'h1', 'member');
    await parent('stranger', 'h2', 'owner');
    const child = (id: string, household: string) =>
      users.insert({
        id,
        household_id: household,
        name: id,
        overlay_age_tier: null,
        overlay_parent_note: null,
        paused_until: null,
        created_at: AT,
        updated_at: AT,
      });
    for (const id of ['viewed', 'managed', 'hidden']) await child(id, 'h1');
    await child('foreign', 'h2');
    await households.replacePermissions('member', [
      { managed_user_id: 'viewed', can_view: true, can_manage_policies: false },
      { managed_user_id: 'managed', can_view: true, can_manage_policies: true },
    ]);
    const device = (id: string, household: string) =>
      devices.insert({
        system_id: id,
        household_id: household,
        hostname: id,
        display_name: null,
        platform: 'linux',
        status: 'approved',
        agent_version: '1.0.0',
        linux_users: '[]',
        secure_token_hash: null,
        last_seen_at: null,
        created_at: AT,
        updated_at: AT,
      });
    for (const id of ['d-shared', 'd-viewed', 'd-hidden']) await device(id, 'h1');
    await device('d-foreign', 'h2');
    const map = (id: string, household: string, childId: string, systemId: string, account: string) =>
      users.insertMapping({
        id,
        household_id: household,
        managed_user_id: childId,
        system_id: systemId,
        linux_username: account,
        created_at: AT,
      });
    await map('m-viewed', 'h1', 'viewed', 'd-shared', 'vic');
    await map('m-managed', 'h1', 'managed', 'd-shared', 'max');
    await map('m-viewed-2', 'h1', 'viewed', 'd-viewed', 'vic');
    await map('m-hidden', 'h1', 'hidden', 'd-hidden', 'hal');
    await map('m-foreign', 'h2', 'foreign', 'd-foreign', 'fay');
    access = new AccessService(new AccessRepository(db.kysely));
  });

  after(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const all = ['viewed', 'managed', 'hidden', 'foreign', 'missing'];

  test('answers for many children at once: owners see their household, members what they were granted', async () => {
    assert.deepEqual([...(await access.checkChildren(actor('owner'), all, 'manage'))].sort(), [
      'hidden',
      'managed',
      'viewed',
    ]);
    assert.deepEqual([...(await access.checkChildren(actor('member'), all, 'view'))].sort(), [
      'managed',
      'viewed',
    ]);
    assert.deepEqual([...(await access.checkChildren(actor('member'), all, 'manage'))], ['managed']);
    assert.equal((await access.checkChildren(actor('member'), [], 'view')).size, 0);
    assert.deepEqual((await access.visibleChildIds(actor('member')))?.sort(), ['managed', 'viewed']);
    assert.equal(await access.visibleChildIds(actor('owner')), null);
  });

  test('a foreign or hidden child answers like a missing one; a viewed one refuses changes with 403', async () => {
    const member = actor('member');
    await rejectsWith(access.requireChild(member, 'hidden', 'view'), 404, 'not_found');
    await rejectsWith(access.requireChild(member, 'foreign', 'view'), 404, 'not_found');
    await rejectsWith(access.requireChild(actor('stranger'), 'viewed', 'view'), 404, 'not_found');
    await rejectsWith(access.requireChild(member, 'viewed', 'manage'), 403, 'forbidden');
    await access.requireChild(member, 'viewed', 'view');
    await access.requireChild(member, 'managed', 'manage');
  });

  test('devices follow the children mapped to them; only owners and admins administer one', async () => {
    const member = actor('member');
    const ids = ['d-shared', 'd-viewed', 'd-hidden', 'd-foreign'];
    assert.deepEqual([...(await access.checkDevices(member, ids, 'view'))].sort(), ['d-shared', 'd-viewed']);
    assert.deepEqual([...(await access.checkDevices(member, ids, 'sensitive'))], ['d-shared']);
    assert.equal((await access.checkDevices(member, ids, 'admin')).size, 0);
    assert.equal((await access.checkDevices(actor('owner'), ids, 'admin')).size, 3);
    await rejectsWith(access.requireDeviceAccess(member, 'd-hidden', 'view'), 404, 'not_found');
    await rejectsWith(access.requireDeviceAccess(member, 'd-foreign', 'view'), 404, 'not_found');
    await rejectsWith(access.requireDeviceAccess(member, 'd-viewed', 'sensitive'), 403, 'forbidden');
    await rejectsWith(access.requireDeviceAccess(member, 'd-shared', 'admin'), 403, 'forbidden');
    await access.requireDeviceAccess(member, 'd-shared', 'sensitive');
    assert.deepEqual((await access.visibleDeviceIds(member))?.sort(), ['d-shared', 'd-viewed']);
  });

  test('a device row already read is checked like its id, and never passes for another household', async () => {
    const member = actor('member');
    const owner = actor('owner');
    const row = (system_id: string, household_id = 'h1') => ({ system_id, household_id });
    await access.requireLoadedDevice(owner, row('d-hidden'), 'admin');
    await rejectsWith(access.requireLoadedDevice(owner, row('d-foreign', 'h2'), 'view'), 404, 'not_found');
    await rejectsWith(access.requireLoadedDevice(member, row('d-hidden'), 'view'), 404, 'not_found');
    await rejectsWith(access.requireLoadedDevice(member, row('d-viewed'), 'sensitive'), 403, 'forbidden');
    await rejectsWith(access.requireLoadedDevice(member, row('d-shared'), 'admin'), 403, 'forbidden');
    await access.requireLoadedDevice(member, row('d-shared'), 'sensitive');
  });

  test('on a shared device a member controls only the accounts of children they manage', async () => {
    const accounts = ['vic', 'max', 'nobody'];
    assert.deepEqual([...(await access.checkAccounts(actor('member'), 'd-shared', accounts))], ['max']);
    assert.equal((await access.checkAccounts(actor('owner'), 'd-shared', accounts)).size, 3);
  });

  test('mappings answer for their child, and a missing or foreign mapping is not found', async () => {
    const member = actor('member');
    const ids = ['m-viewed', 'm-managed', 'm-hidden', 'm-foreign'];
    assert.deepEqual([...(await access.checkMappings(member, ids, 'view'))].sort(), [
      'm-managed',
      'm-viewed',
    ]);
    assert.deepEqual([...(await access.checkMappings(member, ids, 'manage'))], ['m-managed']);
    await rejectsWith(access.requireMapping(member, 'm-foreign', 'view'), 404, 'not_found');
    await rejectsWith(access.requireMapping(member, 'm-hidden', 'view'), 404, 'not_found');
    await rejectsWith(access.requireMapping(member, 'm-viewed', 'manage'), 403, 'forbidden');
    await access.requireMapping(actor('owner'), 'm-hidden', 'manage');
  });
});
