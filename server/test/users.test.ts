import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addParent, createDevice, describeWithServer, type Household, recordUsage } from './helpers.js';

describeWithServer('children and mappings', { household: 'Children home' }, (ctx) => {
  const names = async (h: Household) =>
    (await h.client.get('/api/users')).body.items.map((u: { name: string }) => u.name);

  test('a child created with JSON answers 201 with the full shape and lists newest first', async () => {
    const ann = await ctx.home.client.post('/api/user/create', {
      name: '  Ann  ',
      overlay_age_tier: 'under8',
      overlay_parent_note: 'Love you',
    });
    assert.equal(ann.status, 201);
    assert.deepEqual(Object.keys(ann.body).sort(), [
      'id',
      'mappings',
      'name',
      'overlay_age_tier',
      'overlay_parent_note',
    ]);
    assert.equal(ann.body.name, 'Ann');
    assert.equal(ann.body.overlay_age_tier, 'under8');
    assert.equal(ann.body.overlay_parent_note, 'Love you');
    assert.deepEqual(ann.body.mappings, []);
    const bob = await ctx.home.client.post('/api/user/create', { name: 'Bob' });
    assert.equal(bob.body.overlay_age_tier, null);
    assert.equal(bob.body.overlay_parent_note, null);
    assert.deepEqual((await names(ctx.home)).slice(0, 2), ['Bob', 'Ann']);
    const one = await ctx.home.client.get(`/api/user/${ann.body.id}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.name, 'Ann');
  });

  test('the form variant redirects 303 to the child page, or answers 201 JSON to a JSON client', async () => {
    const form = await ctx.home.client.request('POST', '/managed-users/add', { form: { name: 'Cara' } });
    assert.equal(form.status, 303);
    const location = form.headers.get('location') ?? '';
    assert.match(location, /^\/children\/[0-9a-f-]{36}$/);
    const id = location.split('/').pop();
    assert.equal((await ctx.home.client.get(`/api/user/${id}`)).body.name, 'Cara');

    const json = await ctx.home.client.request('POST', '/managed-users/add', {
      form: { name: 'Dan' },
      headers: { accept: 'application/json' },
    });
    assert.equal(json.status, 201);
    assert.equal(json.body.name, 'Dan');
    const jsonBody = await ctx.home.client.post('/managed-users/add', { name: 'Eve' });
    assert.equal(jsonBody.status, 201);
  });

  test('bad child bodies answer 400 and write nothing', async () => {
    const before = await names(ctx.home);
    const cases: [string, unknown][] = [
      ['empty name', { name: '' }],
      ['blank name', { name: '   ' }],
      ['missing name', {}],
      ['unknown field', { name: 'X', age: 7 }],
      ['wrong type', { name: 42 }],
      ['unknown tier', { name: 'X', overlay_age_tier: 'toddler' }],
      ['note too long', { name: 'X', overlay_parent_note: 'a'.repeat(501) }],
      ['array body', [{ name: 'X' }]],
    ];
    for (const [label, body] of cases) {
      const res = await ctx.home.client.post('/api/user/create', body);
      assert.equal(res.status, 400, label);
      assert.equal(res.body.error.code, 'invalid_request', label);
      assert.equal(typeof res.body.error.message, 'string');
    }
    const malformed = await ctx.home.client.request('POST', '/api/user/create', {
      raw: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.error.code, 'invalid_request');
    const formArray = await ctx.home.client.request('POST', '/managed-users/add', {
      raw: 'name=a&name=b',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(formArray.status, 400);
    const oversize = await ctx.home.client.request('POST', '/api/user/create', {
      json: { name: 'X', overlay_parent_note: 'n'.repeat(1024 * 1024 + 10) },
    });
    assert.equal(oversize.status, 413);
    assert.equal(oversize.body.error.code, 'payload_too_large');
    const xml = await ctx.home.client.request('POST', '/api/user/create', {
      raw: '<name>X</name>',
      headers: { 'content-type': 'application/xml' },
    });
    assert.equal(xml.status, 400);
    assert.deepEqual(await names(ctx.home), before);
  });

  test('the overlay card: set, partially update, clear with null, and validate exactly', async () => {
    const child = (await ctx.home.client.post('/api/user/create', { name: 'Finn' })).body;
    const url = `/managed-users/${child.id}/overlay`;
    let res = await ctx.home.client.patch(url, {
      overlay_age_tier: 'teen',
      overlay_parent_note: 'Back at 7, love Mum',
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      id: child.id,
      overlay_age_tier: 'teen',
      overlay_parent_note: 'Back at 7, love Mum',
    });
    res = await ctx.home.client.patch(url, { overlay_age_tier: 'eight12' });
    assert.deepEqual(res.body, {
      id: child.id,
      overlay_age_tier: 'eight12',
      overlay_parent_note: 'Back at 7, love Mum',
    });
    res = await ctx.home.client.patch(url, {});
    assert.equal(res.body.overlay_age_tier, 'eight12');
    res = await ctx.home.client.patch(url, { overlay_parent_note: 'n'.repeat(500) });
    assert.equal(res.status, 200);
    res = await ctx.home.client.patch(url, { overlay_age_tier: null, overlay_parent_note: null });
    assert.deepEqual(res.body, { id: child.id, overlay_age_tier: null, overlay_parent_note: null });

    for (const body of [
      { overlay_age_tier: 'baby' },
      { overlay_age_tier: 8 },
      { overlay_parent_note: 'n'.repeat(501) },
      { overlay_parent_note: 12 },
      { overlay_age_tier: 'teen', colour: 'blue' },
      'teen',
    ]) {
      const bad = await ctx.home.client.patch(url, body);
      assert.equal(bad.status, 400, JSON.stringify(body));
      assert.equal(bad.body.error.code, 'invalid_request');
    }
    const stored = (await ctx.home.client.get(`/api/user/${child.id}`)).body;
    assert.equal(stored.overlay_age_tier, null);
    assert.equal(stored.overlay_parent_note, null);
    assert.equal(
      (await ctx.home.client.patch('/managed-users/no-such-child/overlay', { overlay_age_tier: 'teen' }))
        .status,
      404,
    );
  });

  test('mappings: add by JSON or form, list with device details, refuse duplicates and unknown devices', async () => {
    const child = (await ctx.home.client.post('/api/user/create', { name: 'Gus' })).body;
    const device = await createDevice(ctx.server, ctx.home.householdId, {
      hostname: 'den-pc',
      platform: 'linux',
    });
    const url = `/managed-users/${child.id}/mappings/add`;
    const res = await ctx.home.client.post(url, { system_id: device.system_id, linux_username: 'gus' });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body).sort(), ['id', 'linux_username', 'managed_user_id', 'system_id']);
    assert.equal(res.body.managed_user_id, child.id);

    const list = (await ctx.home.client.get('/api/users')).body.items.find(
      (u: { id: string }) => u.id === child.id,
    );
    assert.deepEqual(list.mappings, [
      {
        id: res.body.id,
        system_id: device.system_id,
        hostname: 'den-pc',
        display_name: 'den-pc',
        device_status: 'approved',
        platform: 'linux',
        linux_username: 'gus',
      },
    ]);

    const dup = await ctx.home.client.post(url, { system_id: device.system_id, linux_username: 'gus' });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.error.code, 'conflict');
    const other = (await ctx.home.client.post('/api/user/create', { name: 'Hal' })).body;
    const stolen = await ctx.home.client.post(`/managed-users/${other.id}/mappings/add`, {
      system_id: device.system_id,
      linux_username: 'gus',
    });
    assert.equal(stolen.status, 409);

    const form = await ctx.home.client.request('POST', url, {
      form: { system_id: device.system_id, linux_username: 'gus2' },
    });
    assert.equal(form.status, 303);
    assert.equal(form.headers.get('location'), `/children/${child.id}`);

    const unknown = await ctx.home.client.post(url, {
      system_id: '7b0c8f5e-4a44-4c4f-9f65-0d8f3c1e2a10',
      linux_username: 'gus',
    });
    assert.equal(
      (await ctx.home.client.post(url, { system_id: 'not-a-uuid', linux_username: 'gus' })).status,
      400,
    );
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'not_found');
    for (const body of [
      { system_id: device.system_id },
      { system_id: device.system_id, linux_username: 'has space' },
      { system_id: device.system_id, linux_username: 'x', extra: 1 },
    ]) {
      assert.equal((await ctx.home.client.post(url, body)).status, 400, JSON.stringify(body));
    }
    const noChild = await ctx.home.client.post('/managed-users/nope/mappings/add', {
      system_id: device.system_id,
      linux_username: 'zed',
    });
    assert.equal(noChild.status, 404);
    assert.equal((await ctx.home.client.get(`/api/user/${child.id}`)).body.mappings.length, 2);
  });

  test('validate flags unapproved devices and accounts the device never reported', async () => {
    const child = (await ctx.home.client.post('/api/user/create', { name: 'Ivy' })).body;
    const good = await createDevice(ctx.server, ctx.home.householdId, {
      linux_users: JSON.stringify([{ username: 'ivy' }]),
    });
    const pending = await createDevice(ctx.server, ctx.home.householdId, {
      status: 'pending',
      linux_users: JSON.stringify([{ username: 'ivy' }]),
    });
    const url = `/managed-users/${child.id}/mappings/add`;
    const m1 = (await ctx.home.client.post(url, { system_id: good.system_id, linux_username: 'ivy' })).body;
    let res = await ctx.home.client.get(`/users/validate/${child.id}`);
    assert.deepEqual(res.body, {
      user_id: child.id,
      valid: true,
      mappings: [{ id: m1.id, system_id: good.system_id, linux_username: 'ivy', valid: true, problems: [] }],
    });
    const m2 = (
      await ctx.home.client.post(url, { system_id: pending.system_id, linux_username: 'ivy-school' })
    ).body;
    res = await ctx.home.client.get(`/users/validate/${child.id}`);
    assert.equal(res.body.valid, false);
    const second = res.body.mappings.find((m: { id: string }) => m.id === m2.id);
    assert.deepEqual(second.problems, ['device_not_approved', 'account_not_reported']);
    assert.equal((await ctx.home.client.get('/users/validate/unknown-child')).status, 404);
  });

  test("usage and stats add up the child's accounts across devices", async () => {
    const child = (await ctx.home.client.post('/api/user/create', { name: 'Jo' })).body;
    const a = await createDevice(ctx.server, ctx.home.householdId, {
      linux_users: JSON.stringify([{ username: 'jo' }]),
    });
    const b = await createDevice(ctx.server, ctx.home.householdId, {
      platform: 'android',
      linux_users: JSON.stringify([{ username: 'jo-phone' }]),
    });
    await ctx.home.client.post(`/managed-users/${child.id}/mappings/add`, {
      system_id: a.system_id,
      linux_username: 'jo',
    });
    await ctx.home.client.post(`/managed-users/${child.id}/mappings/add`, {
      system_id: b.system_id,
      linux_username: 'jo-phone',
    });
    // Days are the household's; this one keeps UTC so they match the stats' days.
    assert.equal((await ctx.home.client.patch('/api/household', { timezone: 'UTC' })).status, 200);
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    await recordUsage(ctx.server, a.system_id, 'jo', today, 1200);
    await recordUsage(ctx.server, b.system_id, 'jo-phone', today, 600);
    await recordUsage(ctx.server, a.system_id, 'jo', yesterday, 3600);
    // Another account on the same device is not Jo's.
    await recordUsage(ctx.server, a.system_id, 'someone-else', today, 9999);

    const usage = await ctx.home.client.get(`/api/user/${child.id}/usage`);
    assert.equal(usage.status, 200);
    assert.equal(usage.body.date, today);
    assert.equal(usage.body.used_seconds, 1800);
    assert.equal(usage.body.limit_seconds, null);
    assert.equal(usage.body.remaining_seconds, null);
    assert.equal(usage.body.state, 'ok');
    assert.deepEqual(
      usage.body.devices.map((d: { used_seconds: number; platform: string }) => [d.platform, d.used_seconds]),
      [
        ['linux', 1200],
        ['android', 600],
      ],
    );

    // The household's zone is UTC here; the statistics' own tests are in usage-stats.test.ts.
    const stats = await ctx.home.client.get(`/api/user/${child.id}/stats`);
    assert.equal(stats.body.days.length, 7);
    assert.deepEqual(stats.body.days.slice(-2), [
      { date: yesterday, used_seconds: 3600, limit_seconds: null },
      { date: today, used_seconds: 1800, limit_seconds: null },
    ]);
    assert.equal((await ctx.home.client.get(`/api/user/${child.id}/stats?days=14`)).body.days.length, 14);
    assert.equal((await ctx.home.client.get(`/api/user/${child.id}/stats?days=2`)).status, 400);
    assert.equal((await ctx.home.client.get(`/api/user/${child.id}/stats?days=0`)).status, 400);
    assert.equal((await ctx.home.client.get(`/api/user/${child.id}/stats?days=abc`)).status, 400);
  });

  test('members see and change only the children they were granted', async () => {
    const seen = (await ctx.home.client.post('/api/user/create', { name: 'Seen' })).body;
    const managed = (await ctx.home.client.post('/api/user/create', { name: 'Managed' })).body;
    const hidden = (await ctx.home.client.post('/api/user/create', { name: 'Hidden' })).body;
    const device = await createDevice(ctx.server, ctx.home.householdId);
    // Mapping needs rights on the device too: the owner makes its first mapping (member-access.test.ts).
    await ctx.home.client.post(`/managed-users/${managed.id}/mappings/add`, {
      system_id: device.system_id,
      linux_username: 'first',
    });
    const member = await addParent(ctx.server, ctx.home, 'member', [
      { managed_user_id: seen.id, can_view: true, can_manage_policies: false },
      { managed_user_id: managed.id, can_view: true, can_manage_policies: true },
    ]);
    const list = (await member.get('/api/users')).body.items.map((u: { name: string }) => u.name);
    assert.deepEqual(list.sort(), ['Managed', 'Seen']);

    assert.equal((await member.get(`/api/user/${seen.id}`)).status, 200);
    assert.equal((await member.get(`/api/user/${seen.id}/usage`)).status, 200);
    const readOnly = await member.patch(`/managed-users/${seen.id}/overlay`, { overlay_age_tier: 'teen' });
    assert.equal(readOnly.status, 403);
    assert.equal(readOnly.body.error.code, 'forbidden');
    assert.equal(
      (
        await member.post(`/managed-users/${seen.id}/mappings/add`, {
          system_id: device.system_id,
          linux_username: 's',
        })
      ).status,
      403,
    );
    assert.equal(
      (await member.patch(`/managed-users/${managed.id}/overlay`, { overlay_age_tier: 'teen' })).status,
      200,
    );
    assert.equal(
      (
        await member.post(`/managed-users/${managed.id}/mappings/add`, {
          system_id: device.system_id,
          linux_username: 'm',
        })
      ).status,
      201,
    );

    for (const path of [
      `/api/user/${hidden.id}`,
      `/api/user/${hidden.id}/usage`,
      `/api/user/${hidden.id}/stats`,
      `/users/validate/${hidden.id}`,
    ]) {
      const res = await member.get(path);
      assert.equal(res.status, 404, path);
      assert.equal(res.body.error.code, 'not_found');
    }
    assert.equal(
      (await member.patch(`/managed-users/${hidden.id}/overlay`, { overlay_age_tier: 'teen' })).status,
      404,
    );

    const create = await member.post('/api/user/create', { name: 'Sneaky' });
    assert.equal(create.status, 403);
    assert.equal(create.body.error.code, 'forbidden');
    assert.ok(!(await names(ctx.home)).includes('Sneaky'));
  });
});
