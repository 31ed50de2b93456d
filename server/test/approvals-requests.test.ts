import assert from 'node:assert/strict';
import { test } from 'node:test';
import { approvalsSuite } from './approvals-fixture.js';
import { addParent, Client, describeWithServer } from './helpers.js';

describeWithServer('approval requests and grants', { household: 'Sign-up home' }, (suite) => {
  const ctx = approvalsSuite(suite);

  test('other request types: time extensions add minutes, app and domain requests become grants', async () => {
    const { agent, mappingId } = await ctx.pairedAgent();
    const ask = (body: unknown) => ctx.bearer(agent.secureToken, 'POST', '/api/approvals/request', body);
    const time = await ask({
      type: 'time_extension',
      linux_username: 'kid',
      details: { minutes: 20, reason: 'homework' },
    });
    assert.equal(time.status, 201);
    const noMinutes = await ask({ type: 'time_extension', linux_username: 'kid', details: {} });
    assert.equal((await ctx.home.client.post(`/api/approvals/${noMinutes.body.id}/approve`)).status, 400);
    assert.equal(
      (await ctx.home.client.post(`/api/approvals/${noMinutes.body.id}/approve`, { minutes: 15 })).status,
      200,
    );
    const approved = await ctx.home.client.post(`/api/approvals/${time.body.id}/approve`);
    assert.equal(approved.body.status, 'approved');
    const adjustments = await ctx.server.services.db.kysely
      .selectFrom('time_adjustment')
      .selectAll()
      .where('managed_user_id', '=', ctx.childId)
      .execute();
    assert.deepEqual(
      adjustments.map((a) => Number(a.seconds)).sort((x, y) => x - y),
      [900, 1200],
    );

    const app = await ask({
      type: 'app_access',
      linux_username: 'kid',
      details: { identifier: '/usr/bin/minecraft', application_name: 'Minecraft' },
    });
    await ctx.home.client.post(`/api/approvals/${app.body.id}/approve`, { grant: 'persistent' });
    const unblock = await ask({
      type: 'domain_unblock',
      linux_username: 'kid',
      details: { domain: 'Wiki.Example.org' },
    });
    const dup = await ask({
      type: 'domain_unblock',
      linux_username: 'kid',
      details: { domain: 'wiki.example.org' },
    });
    assert.deepEqual([dup.status, dup.body.id], [200, unblock.body.id]);
    const decided = await ctx.home.client.post(`/api/approvals/${unblock.body.id}/approve`);
    assert.equal(decided.body.domain, 'wiki.example.org');
    const grants = await ctx.server.services.db.kysely
      .selectFrom('approval_grant')
      .selectAll()
      .where('mapping_id', '=', mappingId)
      .execute();
    assert.deepEqual(grants.map((g) => [g.type, g.target ?? g.domain, g.kind]).sort(), [
      ['app_access', '/usr/bin/minecraft', 'persistent'],
      ['domain_unblock', 'wiki.example.org', 'once'],
    ]);
    for (const body of [
      { type: 'site_signup', linux_username: 'kid', details: {} },
      { type: 'domain_unblock', linux_username: 'kid', details: { domain: 'not a domain' } },
      { type: 'app_access', linux_username: 'kid', details: {} },
      { type: 'time_extension', linux_username: 'kid', details: { minutes: 0 } },
      { type: 'time_extension', linux_username: 'nobody', details: {} },
    ]) {
      assert.equal((await ask(body)).status, 400, JSON.stringify(body));
    }
    const types = (await ctx.home.client.get('/api/approvals')).body.items.map(
      (a: { type: string }) => a.type,
    );
    for (const t of ['time_extension', 'app_access', 'domain_unblock']) assert.ok(types.includes(t), t);
  });

  test('the minutes a parent approved for more time are kept and listed, also when fewer than asked', async () => {
    const { agent } = await ctx.pairedAgent();
    const ask = (body: unknown) => ctx.bearer(agent.secureToken, 'POST', '/api/approvals/request', body);
    const time = await ask({ type: 'time_extension', linux_username: 'kid', details: { minutes: 30 } });
    assert.equal(time.status, 201);
    const pending = (await ctx.home.client.get('/api/approvals?status=pending&type=time_extension')).body
      .items;
    assert.equal(pending.find((a: { id: string }) => a.id === time.body.id).approved_minutes, null);

    const approved = await ctx.home.client.post(`/api/approvals/${time.body.id}/approve`, { minutes: 15 });
    assert.equal(approved.status, 200);
    assert.equal(approved.body.approved_minutes, 15);
    assert.equal(approved.body.details.minutes, 30);
    const listed = (await ctx.home.client.get('/api/approvals?type=time_extension')).body.items.find(
      (a: { id: string }) => a.id === time.body.id,
    );
    assert.equal(listed.approved_minutes, 15);
    assert.equal(listed.details.minutes, 30);

    // Without minutes in the answer, what was asked is what is granted, and said so.
    const asked = await ask({ type: 'time_extension', linux_username: 'kid', details: { minutes: 20 } });
    const whole = await ctx.home.client.post(`/api/approvals/${asked.body.id}/approve`);
    assert.equal(whole.body.approved_minutes, 20);
    // A denial and other types carry none.
    const denied = await ask({ type: 'time_extension', linux_username: 'kid', details: { minutes: 20 } });
    assert.equal(
      (await ctx.home.client.post(`/api/approvals/${denied.body.id}/deny`)).body.approved_minutes,
      null,
    );
  });

  test('grants are listed, added and revoked per mapping; members need can_manage_policies', async () => {
    const { mappingId } = await ctx.pairedAgent();
    const made = await ctx.home.client.post(`/api/mappings/${mappingId}/approval-grants`, {
      domain: 'Docs.Example',
      kind: 'persistent',
    });
    assert.equal(made.status, 201);
    assert.equal(made.body.domain, 'docs.example');
    assert.equal(made.body.expires_at, null);
    assert.equal(
      (
        await ctx.home.client.post(`/api/mappings/${mappingId}/approval-grants`, {
          domain: 'bad domain',
          kind: 'once',
        })
      ).status,
      400,
    );
    assert.equal(
      (
        await ctx.home.client.post(`/api/mappings/${mappingId}/approval-grants`, {
          domain: 'x.example',
          kind: 'forever',
        })
      ).status,
      400,
    );
    const viewer = await addParent(ctx.server, ctx.home, 'member', [
      { managed_user_id: ctx.childId, can_view: true, can_manage_policies: false },
    ]);
    assert.equal((await viewer.get(`/api/mappings/${mappingId}/approval-grants`)).status, 200);
    assert.equal(
      (
        await viewer.post(`/api/mappings/${mappingId}/approval-grants`, {
          domain: 'x.example',
          kind: 'once',
        })
      ).status,
      403,
    );
    assert.equal(
      (
        await viewer.post(`/api/mappings/${mappingId}/approval-settings`, {
          enforce_signup_approvals: true,
        })
      ).status,
      403,
    );
    assert.equal(
      (await viewer.delete(`/api/mappings/${mappingId}/approval-grants/${made.body.id}`)).status,
      403,
    );
    const removed = await ctx.home.client.delete(
      `/api/mappings/${mappingId}/approval-grants/${made.body.id}`,
    );
    assert.deepEqual(removed.body, { id: made.body.id, deleted: true });
    assert.equal(
      (await ctx.home.client.delete(`/api/mappings/${mappingId}/approval-grants/${made.body.id}`)).status,
      404,
    );
    assert.equal((await ctx.home.client.get('/api/mappings/no-such-mapping/approval-settings')).status, 404);
    assert.equal(
      (await new Client(ctx.server.url).get(`/api/mappings/${mappingId}/approval-grants`)).status,
      401,
    );
  });
});
