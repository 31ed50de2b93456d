import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  addParent,
  Client,
  createDevice,
  createHousehold,
  describeWithServer,
  type Household,
  type Reply,
} from './helpers.js';

/** A 400 in plain words: a sentence naming the field, never ajv's wording, details keeping the path. */
function assertPlain400(res: Reply, field: string, path: string) {
  assert.equal(res.status, 400, res.text);
  assert.equal(res.body.error.code, 'invalid_request');
  const message: string = res.body.error.message;
  assert.ok(message.includes(field), `names the field: ${message}`);
  assert.match(message, /^[A-Z].*\.$/, `a sentence: ${message}`);
  assert.doesNotMatch(message, /must match|must NOT|must be equal to constant|format "|\bbody\//, message);
  assert.ok(
    res.body.error.details.some((d: { path: string }) => d.path === path),
    `details keep ${path}: ${JSON.stringify(res.body.error.details)}`,
  );
}

describeWithServer('names, links and removal', { household: 'Names home' }, (ctx) => {
  let other: Household;
  const owner = () => ctx.home.client;
  const child = async (name: string) => (await owner().post('/api/user/create', { name })).body.id as string;
  const map = async (childId: string, systemId: string, account: string) => {
    const res = await owner().post(`/managed-users/${childId}/mappings/add`, {
      system_id: systemId,
      linux_username: account,
    });
    assert.equal(res.status, 201, res.text);
    return res.body.id as string;
  };
  const mappingsOf = async (childId: string) =>
    (await owner().get(`/api/user/${childId}`)).body.mappings as { id: string; display_name: string }[];

  test('setup: another household', async () => {
    other = await createHousehold(ctx.server, 'Other home');
  });

  test('a validation error is a plain sentence naming the field; details keep the path', async () => {
    const kid = await child('Val');
    const url = `/managed-users/${kid}/mappings/add`;
    const badId = await owner().post(url, { system_id: 'not-a-uuid', linux_username: 'val' });
    assertPlain400(badId, 'system_id', 'body/system_id');
    assert.match(badId.body.error.message, /The field system_id must be a UUID/);
    assertPlain400(
      await owner().post(url, { system_id: 'not-a-uuid' }),
      'linux_username',
      'body/linux_username',
    );
    const spaced = await owner().post(url, {
      system_id: '7b0c8f5e-4a44-4c4f-9f65-0d8f3c1e2a10',
      linux_username: 'has space',
    });
    assertPlain400(spaced, 'linux_username', 'body/linux_username');
    assert.match(spaced.body.error.message, /must not contain spaces/);
    const device = await createDevice(ctx.server, ctx.home.householdId);
    const union = await owner().post(`/api/devices/${device.system_id}/overlay`, {
      action: 'blink',
      linux_username: 'ann',
    });
    assertPlain400(union, 'action', 'body/action');
    assert.match(union.body.error.message, /must be one of: show, dismiss/);
    const unknownField = await owner().post(url, {
      system_id: device.system_id,
      linux_username: 'x',
      extra: 1,
    });
    assertPlain400(unknownField, 'extra', 'body/extra');
    const query = await owner().get(`/api/user/${kid}/stats?days=500`);
    assertPlain400(query, 'days', 'querystring/days');
    assert.match(query.body.error.message, /The query parameter days must be one of: 7, 14, 30\./);
  });

  test('DELETE /api/mappings/<id> unlinks an account; the right is the same as linking it', async () => {
    const kid = await child('Mia');
    const device = await createDevice(ctx.server, ctx.home.householdId, {
      linux_users: JSON.stringify([{ username: 'mia' }, { username: 'mia2' }, { username: 'mia3' }]),
    });
    const mappingId = await map(kid, device.system_id, 'mia');
    const grant = await owner().post(`/api/mappings/${mappingId}/approval-grants`, {
      domain: 'mia.example',
      kind: 'persistent',
    });
    assert.equal(grant.status, 201, grant.text);

    // Another household, no session, no CSRF token: nothing happens.
    assert.equal((await other.client.delete(`/api/mappings/${mappingId}`)).status, 404);
    assert.equal((await new Client(ctx.server.url).delete(`/api/mappings/${mappingId}`)).status, 401);
    const noCsrf = await owner().request('DELETE', `/api/mappings/${mappingId}`, { csrf: false });
    assert.equal(noCsrf.status, 403);
    assert.equal(noCsrf.body.error.code, 'csrf_failed');
    const tooLong = await owner().delete(`/api/mappings/${'x'.repeat(65)}`);
    assertPlain400(tooLong, 'id', 'params/id');

    // Members: unseen child 404, view-only 403, managing 200.
    const stranger = await addParent(ctx.server, ctx.home, 'member');
    assert.equal((await stranger.delete(`/api/mappings/${mappingId}`)).status, 404);
    const viewer = await addParent(ctx.server, ctx.home, 'member', [
      { managed_user_id: kid, can_view: true, can_manage_policies: false },
    ]);
    const refused = await viewer.delete(`/api/mappings/${mappingId}`);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'forbidden');
    assert.equal((await mappingsOf(kid)).length, 1);

    const manager = await addParent(ctx.server, ctx.home, 'member', [
      { managed_user_id: kid, can_view: true, can_manage_policies: true },
    ]);
    const second = await map(kid, device.system_id, 'mia2');
    const byManager = await manager.delete(`/api/mappings/${second}`);
    assert.equal(byManager.status, 200, byManager.text);

    const res = await owner().delete(`/api/mappings/${mappingId}`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { id: mappingId, deleted: true });
    assert.deepEqual(await mappingsOf(kid), []);
    assert.equal((await owner().get(`/api/mappings/${mappingId}/approval-grants`)).status, 404);
    const grants = await ctx.server.services.db.kysely
      .selectFrom('approval_grant')
      .select('id')
      .where('mapping_id', '=', mappingId)
      .execute();
    assert.deepEqual(grants, []);
    assert.equal((await owner().delete(`/api/mappings/${mappingId}`)).status, 404);
    // The account can be linked again, to anyone.
    await map(await child('Ned'), device.system_id, 'mia');
  });

  test('PATCH /api/devices/<id> renames a device; the name shows in children, alerts and Hearth Space', async () => {
    const kid = await child('Ola');
    const device = await createDevice(ctx.server, ctx.home.householdId, {
      hostname: 'desktop-7f3k2',
      linux_users: JSON.stringify([{ username: 'ola' }]),
      last_seen_at: null,
    });
    await map(kid, device.system_id, 'ola');
    await ctx.server.services.alerts.agentEvent(
      { systemId: device.system_id, householdId: ctx.home.householdId, linuxUsers: new Set(['ola']) },
      { type: 'alert_event', event_type: 'clock_tamper', linux_username: 'ola', detail: {} },
    );
    const url = `/api/devices/${device.system_id}`;

    assert.equal((await other.client.patch(url, { display_name: 'Theirs' })).status, 404);
    assert.equal((await new Client(ctx.server.url).patch(url, { display_name: 'X' })).status, 401);
    const noCsrf = await owner().request('PATCH', url, { json: { display_name: 'X' }, csrf: false });
    assert.equal(noCsrf.body.error.code, 'csrf_failed');
    const viewer = await addParent(ctx.server, ctx.home, 'member', [
      { managed_user_id: kid, can_view: true, can_manage_policies: false },
    ]);
    assert.equal((await viewer.patch(url, { display_name: 'Viewer' })).status, 403);
    const stranger = await addParent(ctx.server, ctx.home, 'member');
    assert.equal((await stranger.patch(url, { display_name: 'Stranger' })).status, 404);
    assertPlain400(await owner().patch(url, { display_name: '   ' }), 'display_name', 'body/display_name');
    assertPlain400(
      await owner().patch(url, { display_name: 'x'.repeat(101) }),
      'display_name',
      'body/display_name',
    );
    assertPlain400(await owner().patch(url, {}), 'display_name', 'body/display_name');

    const manager = await addParent(ctx.server, ctx.home, 'member', [
      { managed_user_id: kid, can_view: true, can_manage_policies: true },
    ]);
    const renamed = await manager.patch(url, { display_name: '  Ola’s laptop  ' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.display_name, 'Ola’s laptop');
    assert.equal(renamed.body.hostname, 'desktop-7f3k2');

    assert.equal((await owner().get(url)).body.display_name, 'Ola’s laptop');
    assert.equal((await mappingsOf(kid))[0]?.display_name, 'Ola’s laptop');
    const listed = (await owner().get('/api/users')).body.items.find((u: { id: string }) => u.id === kid);
    assert.equal(listed.mappings[0].display_name, 'Ola’s laptop');
    const alert = (await owner().get('/api/alerts')).body.items.find(
      (a: { system_id: string }) => a.system_id === device.system_id,
    );
    assert.equal(alert.display_name, 'Ola’s laptop');
    assert.equal(alert.hostname, 'desktop-7f3k2');

    const shown = await owner().post(`/api/devices/${device.system_id}/overlay`, {
      action: 'show',
      reason: 'locked',
      linux_username: 'ola',
    });
    assert.equal(shown.status, 200, shown.text);
    assert.equal(shown.body.queued, true);
    const queued = await ctx.server.services.db.kysely
      .selectFrom('device_command')
      .select('args')
      .where('system_id', '=', device.system_id)
      .where('command', '=', 'show_overlay')
      .executeTakeFirstOrThrow();
    assert.equal(JSON.parse(queued.args).device_name, 'Ola’s laptop');
  });

  test('DELETE /api/devices/<id> removes a rejected or unenrolled device with what hangs on it', async () => {
    const kid = await child('Pia');
    const device = await createDevice(ctx.server, ctx.home.householdId, {
      linux_users: JSON.stringify([{ username: 'pia' }]),
      last_seen_at: null,
    });
    const mappingId = await map(kid, device.system_id, 'pia');
    const alert = await ctx.server.services.alerts.agentEvent(
      { systemId: device.system_id, householdId: ctx.home.householdId, linuxUsers: new Set(['pia']) },
      { type: 'alert_event', event_type: 'clock_tamper', linux_username: 'pia', detail: {} },
    );
    const url = `/api/devices/${device.system_id}`;

    const enrolled = await owner().delete(url);
    assert.equal(enrolled.status, 409);
    assert.match(enrolled.body.error.message, /unenrol it first/);
    const pending = await createDevice(ctx.server, ctx.home.householdId, {
      status: 'pending',
      secure_token_hash: null,
    });
    const waiting = await owner().delete(`/api/devices/${pending.system_id}`);
    assert.equal(waiting.status, 409);
    assert.match(waiting.body.error.message, /reject it first/);

    assert.equal((await owner().post(`/api/device/${device.system_id}/unenroll`)).status, 200);
    assert.equal((await other.client.delete(url)).status, 404);
    assert.equal((await new Client(ctx.server.url).delete(url)).status, 401);
    assert.equal((await owner().request('DELETE', url, { csrf: false })).body.error.code, 'csrf_failed');
    const manager = await addParent(ctx.server, ctx.home, 'member', [
      { managed_user_id: kid, can_view: true, can_manage_policies: true },
    ]);
    assert.equal((await manager.delete(url)).status, 403, 'owners and admins only');
    assertPlain400(await owner().delete(`/api/devices/${'x'.repeat(65)}`), 'system_id', 'params/system_id');

    const res = await owner().delete(url);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { system_id: device.system_id, deleted: true });
    assert.equal((await owner().get(url)).status, 404);
    assert.deepEqual(await mappingsOf(kid), []);
    const db = ctx.server.services.db.kysely;
    for (const table of ['device_mapping', 'device_command', 'usage_day'] as const) {
      const rows = await db
        .selectFrom(table)
        .select('system_id')
        .where('system_id', '=', device.system_id)
        .execute();
      assert.deepEqual(rows, [], table);
    }
    assert.equal(
      (await db.selectFrom('device_mapping').select('id').where('id', '=', mappingId).execute()).length,
      0,
    );
    // The alert stays as history, without the device.
    const kept = (await owner().get('/api/alerts')).body.items.find((a: { id: string }) => a.id === alert.id);
    assert.ok(kept, 'the alert is kept');
    assert.equal(kept.system_id, null);
    assert.equal((await owner().delete(url)).status, 404);

    const rejected = await createDevice(ctx.server, ctx.home.householdId, {
      status: 'rejected',
      secure_token_hash: null,
    });
    assert.equal((await owner().delete(`/api/devices/${rejected.system_id}`)).status, 200);
  });

  test('an unenrolled device leaves the app-rule sync list and the device counts', async () => {
    const kid = await child('Quin');
    const kept = await createDevice(ctx.server, ctx.home.householdId, {
      linux_users: JSON.stringify([{ username: 'quin' }]),
    });
    const gone = await createDevice(ctx.server, ctx.home.householdId, {
      linux_users: JSON.stringify([{ username: 'quin' }]),
    });
    await map(kid, kept.system_id, 'quin');
    await map(kid, gone.system_id, 'quin');
    const rules = [{ identifier: '/usr/bin/steam', match_type: 'executable', action: 'block' }];
    const put = await owner().request('PUT', `/api/managed-users/${kid}/app-policy`, { json: { rules } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.sync.length, 2);
    assert.equal((await owner().post(`/api/device/${gone.system_id}/unenroll`)).status, 200);
    const policy = (await owner().get(`/api/managed-users/${kid}/app-policy`)).body;
    assert.deepEqual(
      policy.sync.map((s: { system_id: string }) => s.system_id),
      [kept.system_id],
    );
    const statuses = (await mappingsOf(kid)).map(
      (m) => (m as unknown as { device_status: string }).device_status,
    );
    assert.deepEqual(statuses.sort(), ['approved', 'unenrolled']);
  });

  test('PATCH and DELETE /api/managed-users/<id>: rename and remove a child (owners and admins)', async () => {
    const kid = await child('Rosa');
    const device = await createDevice(ctx.server, ctx.home.householdId, {
      linux_users: JSON.stringify([{ username: 'rosa' }]),
    });
    const mappingId = await map(kid, device.system_id, 'rosa');
    const alert = await ctx.server.services.alerts.agentEvent(
      { systemId: device.system_id, householdId: ctx.home.householdId, linuxUsers: new Set(['rosa']) },
      { type: 'alert_event', event_type: 'clock_tamper', linux_username: 'rosa', detail: {} },
    );
    assert.equal(alert.managed_user_id, kid);
    const url = `/api/managed-users/${kid}`;
    const manager = await addParent(ctx.server, ctx.home, 'member', [
      { managed_user_id: kid, can_view: true, can_manage_policies: true },
    ]);

    // Rename.
    assert.equal((await other.client.patch(url, { name: 'Theirs' })).status, 404);
    assert.equal((await new Client(ctx.server.url).patch(url, { name: 'X' })).status, 401);
    assert.equal(
      (await owner().request('PATCH', url, { json: { name: 'X' }, csrf: false })).body.error.code,
      'csrf_failed',
    );
    assert.equal((await manager.patch(url, { name: 'Manager' })).status, 403);
    assertPlain400(await owner().patch(url, { name: '  ' }), 'name', 'body/name');
    assertPlain400(await owner().patch(url, { name: 'Rosa', age: 9 }), 'age', 'body/age');
    const renamed = await owner().patch(url, { name: '  Rosie ' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.name, 'Rosie');
    assert.equal(renamed.body.mappings.length, 1);
    const names = (await owner().get('/api/users')).body.items.map((u: { name: string }) => u.name);
    assert.ok(names.includes('Rosie') && !names.includes('Rosa'));

    // Remove.
    assert.equal((await other.client.delete(url)).status, 404);
    assert.equal((await new Client(ctx.server.url).delete(url)).status, 401);
    assert.equal((await owner().request('DELETE', url, { csrf: false })).body.error.code, 'csrf_failed');
    assert.equal((await manager.delete(url)).status, 403);
    assertPlain400(await owner().delete(`/api/managed-users/${'x'.repeat(65)}`), 'id', 'params/id');
    const res = await owner().delete(url);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { id: kid, deleted: true });
    assert.equal((await owner().get(`/api/user/${kid}`)).status, 404);
    assert.equal((await owner().delete(url)).status, 404);
    const db = ctx.server.services.db.kysely;
    assert.equal(
      (await db.selectFrom('device_mapping').select('id').where('id', '=', mappingId).execute()).length,
      0,
    );
    const perms = await db
      .selectFrom('parent_child_permission')
      .select('parent_id')
      .where('managed_user_id', '=', kid)
      .execute();
    assert.deepEqual(perms, []);
    // The alert is history: kept, no longer naming the child.
    const kept = (await owner().get('/api/alerts')).body.items.find((a: { id: string }) => a.id === alert.id);
    assert.ok(kept);
    assert.equal(kept.managed_user_id, null);
    // The device's account is free to link again.
    await map(await child('Sam'), device.system_id, 'rosa');
  });

  test('DELETE /api/household/parents/<id>: not yourself, an owner only by an owner; sessions end', async () => {
    const memberName = `gran${Date.now()}`;
    const created = await owner().post('/api/household/parents', {
      username: memberName,
      password: 'correct horse battery staple',
      role: 'member',
    });
    assert.equal(created.status, 201);
    const gran = new Client(ctx.server.url);
    assert.equal((await gran.signIn(memberName, 'correct horse battery staple')).status, 200);
    const url = `/api/household/parents/${created.body.id}`;

    assert.equal((await other.client.delete(url)).status, 404);
    assert.equal((await new Client(ctx.server.url).delete(url)).status, 401);
    assert.equal((await owner().request('DELETE', url, { csrf: false })).body.error.code, 'csrf_failed');
    const otherMember = await addParent(ctx.server, ctx.home, 'member');
    assert.equal((await otherMember.delete(url)).status, 403);
    assertPlain400(await owner().delete(`/api/household/parents/${'x'.repeat(65)}`), 'id', 'params/id');

    const self = await owner().delete(`/api/household/parents/${ctx.home.parentId}`);
    assert.equal(self.status, 409);
    assert.match(self.body.error.message, /cannot remove yourself/);
    const admin = await addParent(ctx.server, ctx.home, 'admin');
    const byAdmin = await admin.delete(`/api/household/parents/${ctx.home.parentId}`);
    assert.equal(byAdmin.status, 403);
    assert.match(byAdmin.body.error.message, /Only an owner/);

    const res = await owner().delete(url);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { id: created.body.id, deleted: true });
    assert.equal((await gran.get('/api/session')).status, 401, 'their session ended');
    const ids = (await owner().get('/api/household/parents')).body.items.map((p: { id: string }) => p.id);
    assert.ok(!ids.includes(created.body.id));
    assert.equal((await owner().delete(url)).status, 404);
    // The owner is still there and the last one: the household keeps someone to run it.
    assert.equal((await owner().get('/api/session')).status, 200);
  });

  test('PATCH /api/household/parents/<id> {username} renames a parent; the new name signs in, a taken one is 409', async () => {
    const oldName = `nana${Date.now()}`;
    const created = await owner().post('/api/household/parents', {
      username: oldName,
      password: 'correct horse battery staple',
      role: 'member',
    });
    assert.equal(created.status, 201);
    const nana = new Client(ctx.server.url);
    assert.equal((await nana.signIn(oldName, 'correct horse battery staple')).status, 200);
    const url = `/api/household/parents/${created.body.id}`;
    assertPlain400(await owner().patch(url, { username: ' spaced ' }), 'username', 'body/username');
    const taken = await owner().patch(url, { username: ctx.home.username.toUpperCase() });
    assert.equal(taken.status, 409);
    assert.equal(taken.body.error.message, 'That username is already taken.');
    assert.equal((await other.client.patch(url, { username: 'theirs' })).status, 404);

    const newName = `Nana-${Date.now()}`;
    const res = await owner().patch(url, { username: newName });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.username, newName);
    // Still signed in, under the new name; the new name signs in, the old one no longer does.
    const session = await nana.get('/api/session');
    assert.equal(session.status, 200);
    assert.equal(session.body.parent.username, newName);
    assert.equal(
      (await new Client(ctx.server.url).signIn(newName.toLowerCase(), 'correct horse battery staple')).status,
      200,
    );
    assert.equal(
      (await new Client(ctx.server.url).signIn(oldName, 'correct horse battery staple')).status,
      401,
    );
    // Unchanged but resent: fine.
    assert.equal((await owner().patch(url, { username: newName })).status, 200);
  });
});
