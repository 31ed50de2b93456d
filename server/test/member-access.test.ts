import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { addParent, type Client, createDevice, describeWithServer } from './helpers.js';

const accounts = (...names: string[]) => JSON.stringify(names.map((username) => ({ username })));

describeWithServer('what a member reaches (issue 13)', { household: 'Members home' }, (ctx) => {
  const child = async (name: string): Promise<string> =>
    (await ctx.home.client.post('/api/user/create', { name })).body.id;
  const map = async (childId: string, systemId: string, account: string) => {
    const res = await ctx.home.client.post(`/managed-users/${childId}/mappings/add`, {
      system_id: systemId,
      linux_username: account,
    });
    assert.equal(res.status, 201, res.text);
    return res.body.id as string;
  };
  const mappingsOf = async (childId: string) =>
    ((await ctx.home.client.get(`/api/user/${childId}`)).body.mappings as { system_id: string }[]).map(
      (m) => m.system_id,
    );

  test('mapping needs the rights of managing the device: a member cannot reach a pending, unmapped or other child’s device', async () => {
    const mine = await child('Mine');
    const viewed = await child('Viewed');
    const other = await child('Other');
    const pending = await createDevice(ctx.server, ctx.home.householdId, {
      status: 'pending',
      secure_token_hash: null,
      linux_users: accounts('p'),
    });
    const unmapped = await createDevice(ctx.server, ctx.home.householdId, { linux_users: accounts('u') });
    const othersDevice = await createDevice(ctx.server, ctx.home.householdId, { linux_users: accounts('o') });
    const viewedDevice = await createDevice(ctx.server, ctx.home.householdId, { linux_users: accounts('v') });
    const ownDevice = await createDevice(ctx.server, ctx.home.householdId, {
      linux_users: accounts('m', 'm2'),
    });
    await map(other, othersDevice.system_id, 'o');
    await map(viewed, viewedDevice.system_id, 'v');
    await map(mine, ownDevice.system_id, 'm');

    const manager = await addParent(ctx.server, ctx.home, 'member', [
      { managed_user_id: mine, can_view: true, can_manage_policies: true },
      { managed_user_id: viewed, can_view: true, can_manage_policies: false },
    ]);
    const viewer = await addParent(ctx.server, ctx.home, 'member', [
      { managed_user_id: mine, can_view: true, can_manage_policies: false },
    ]);
    const mapAs = (parent: Client, systemId: string, account: string) =>
      parent.post(`/managed-users/${mine}/mappings/add`, { system_id: systemId, linux_username: account });

    // With can_manage_policies on the child: devices they cannot see answer like missing ones; a
    // device they see only through a child they view is 403; their own child's device maps.
    for (const [label, systemId, account] of [
      ['a pending device', pending.system_id, 'p'],
      ['an approved device no child uses yet', unmapped.system_id, 'u'],
      ['a device only another child uses (another account)', othersDevice.system_id, 'intruder'],
    ] as const) {
      const res = await mapAs(manager, systemId, account);
      assert.equal(res.status, 404, `${label}: ${res.text}`);
      assert.deepEqual(res.body.error, { code: 'not_found', message: 'The device was not found.' }, label);
      const missing = await mapAs(manager, randomUUID(), account);
      assert.equal(res.text, missing.text, `${label} answers exactly as a missing device`);
    }
    const readOnly = await mapAs(manager, viewedDevice.system_id, 'intruder');
    assert.equal(readOnly.status, 403, readOnly.text);
    assert.equal(readOnly.body.error.code, 'forbidden');
    const own = await mapAs(manager, ownDevice.system_id, 'm2');
    assert.equal(own.status, 201, own.text);

    // Without can_manage_policies: nothing maps, whatever the device.
    for (const systemId of [
      pending.system_id,
      unmapped.system_id,
      othersDevice.system_id,
      ownDevice.system_id,
    ]) {
      const res = await mapAs(viewer, systemId, 'x');
      assert.equal(res.status, 403, res.text);
      assert.equal(res.body.error.code, 'forbidden');
    }

    // Nothing was mapped, so no rights followed: the pending device cannot be approved, nor the
    // others' clocks cleared; on their own child's device they keep what they had.
    assert.deepEqual((await mappingsOf(mine)).sort(), [ownDevice.system_id, ownDevice.system_id]);
    for (const parent of [manager, viewer]) {
      assert.equal((await parent.post(`/api/device/approve/${pending.system_id}`)).status, 404);
      assert.equal((await parent.post(`/api/device/reject/${pending.system_id}`)).status, 404);
      for (const systemId of [unmapped.system_id, othersDevice.system_id]) {
        const res = await parent.post(`/api/devices/${systemId}/clear-clock-tamper`);
        assert.equal(res.status, 404, res.text);
      }
    }
    assert.equal(
      (await manager.post(`/api/devices/${viewedDevice.system_id}/clear-clock-tamper`)).status,
      403,
    );
    assert.equal((await manager.post(`/api/devices/${ownDevice.system_id}/clear-clock-tamper`)).status, 200);
    assert.equal((await viewer.post(`/api/devices/${ownDevice.system_id}/clear-clock-tamper`)).status, 403);
    const devices = (await ctx.home.client.get('/api/devices')).body.items as {
      system_id: string;
      status: string;
    }[];
    assert.equal(devices.find((d) => d.system_id === pending.system_id)?.status, 'pending');

    // Owners and admins map any device of the household, a brand-new one first of all.
    const admin = await addParent(ctx.server, ctx.home, 'admin');
    const first = await admin.post(`/managed-users/${mine}/mappings/add`, {
      system_id: unmapped.system_id,
      linux_username: 'u',
    });
    assert.equal(first.status, 201, first.text);
    // Now that their child uses it, the manager may map another account there.
    assert.equal((await mapAs(manager, unmapped.system_id, 'u2')).status, 201);
  });

  test("another child's mapping or approval request answers exactly like a missing one", async () => {
    const mine = await child('Kim');
    const other = await child('Lee');
    const device = await createDevice(ctx.server, ctx.home.householdId, { linux_users: accounts('k', 'l') });
    const otherMapping = await map(other, device.system_id, 'l');
    await map(mine, device.system_id, 'k');
    const bearer = { authorization: `Bearer ${device.secure_token}` };
    const asked = await ctx.home.client.request('POST', '/api/approvals/request', {
      json: { type: 'app_access', linux_username: 'l', details: { identifier: '/usr/bin/game' } },
      headers: bearer,
    });
    assert.equal(asked.status, 201, asked.text);
    const otherRequest = asked.body.id as string;

    const member = await addParent(ctx.server, ctx.home, 'member', [
      { managed_user_id: mine, can_view: true, can_manage_policies: true },
    ]);
    const missing = randomUUID();
    const pairs: [string, string, string, unknown?][] = [
      [
        'GET',
        `/api/mappings/${otherMapping}/approval-settings`,
        `/api/mappings/${missing}/approval-settings`,
      ],
      [
        'POST',
        `/api/mappings/${otherMapping}/approval-settings`,
        `/api/mappings/${missing}/approval-settings`,
        { enforce_signup_approvals: true },
      ],
      ['GET', `/api/mappings/${otherMapping}/approval-grants`, `/api/mappings/${missing}/approval-grants`],
      [
        'POST',
        `/api/mappings/${otherMapping}/approval-grants`,
        `/api/mappings/${missing}/approval-grants`,
        { domain: 'example.com', kind: 'once' },
      ],
      [
        'DELETE',
        `/api/mappings/${otherMapping}/approval-grants/${missing}`,
        `/api/mappings/${missing}/approval-grants/${missing}`,
      ],
      ['POST', `/api/approvals/${otherRequest}/approve`, `/api/approvals/${missing}/approve`, {}],
      ['POST', `/api/approvals/${otherRequest}/deny`, `/api/approvals/${missing}/deny`, {}],
    ];
    for (const [method, hidden, absent, json] of pairs) {
      const a = await member.request(method, hidden, json === undefined ? {} : { json });
      const b = await member.request(method, absent, json === undefined ? {} : { json });
      assert.equal(a.status, 404, `${method} ${hidden}: ${a.text}`);
      assert.equal(a.text, b.text, `${method} ${hidden} answers byte for byte as a missing one`);
    }
  });

  test("a shared device: a member reads only their child's accounts' apps", async () => {
    const mine = await child('Ann');
    const sibling = await child('Bob');
    const device = await createDevice(ctx.server, ctx.home.householdId, {
      linux_users: accounts('ann', 'bob', 'dad'),
    });
    await map(mine, device.system_id, 'ann');
    await map(sibling, device.system_id, 'bob');
    const app = (name: string) => ({
      application_name: name,
      identifier: `/usr/bin/${name}`,
      match_type: 'executable' as const,
      version_name: '1.0',
    });
    const where = { systemId: device.system_id, householdId: ctx.home.householdId };
    const inventory = ctx.server.services.inventory;
    await inventory.applyReport(where, 'ann', [app('paint')], '2026-01-01T10:00:00.000Z');
    await inventory.applyReport(where, 'bob', [app('secret-diary')], '2026-01-01T11:00:00.000Z');
    await inventory.applyReport(where, 'dad', [app('banking')], '2026-01-01T12:00:00.000Z');

    const member = await addParent(ctx.server, ctx.home, 'member', [
      { managed_user_id: mine, can_view: true, can_manage_policies: false },
    ]);
    const url = `/api/devices/${device.system_id}/installed-apps`;
    const all = await member.get(url);
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(
      all.body.items.map((i: { linux_username: string; identifier: string }) => [
        i.linux_username,
        i.identifier,
      ]),
      [['ann', '/usr/bin/paint']],
    );
    assert.equal(all.body.count, 1);
    assert.equal(
      all.body.reported_at,
      '2026-01-01T10:00:00.000Z',
      "the report time of Ann's account, not Bob's",
    );
    const ann = await member.get(`${url}?linux_username=ann`);
    assert.equal(ann.body.count, 1);

    // A sibling's account, or an unmapped one, answers exactly as an account that never reported.
    const never = await member.get(`${url}?linux_username=nobody`);
    assert.deepEqual(never.body, {
      system_id: device.system_id,
      reported_at: null,
      report_hash: null,
      count: 0,
      items: [],
    });
    for (const account of ['bob', 'dad']) {
      const res = await member.get(`${url}?linux_username=${account}`);
      assert.equal(res.status, 200);
      assert.equal(res.text, never.text, account);
    }

    // The owner sees every account.
    const owner = await ctx.home.client.get(url);
    assert.equal(owner.body.count, 3);
    assert.equal(owner.body.reported_at, '2026-01-01T12:00:00.000Z');
    assert.equal((await ctx.home.client.get(`${url}?linux_username=bob`)).body.count, 1);
  });
});
