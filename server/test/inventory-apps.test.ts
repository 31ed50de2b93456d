import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { SimAgent } from '../../bench/src/simulator.js';
import { describeWithServer, enrollmentToken } from './helpers.js';
import { app, inventorySuite, png, sha } from './inventory-fixture.js';

describeWithServer('installed applications', { household: 'Apps home' }, (suite) => {
  const ctx = inventorySuite(suite);

  test('icons: verified, stored once, served with immutable caching and ETag', async () => {
    const a = await ctx.paired();
    const send = (message: Record<string, unknown>) => {
      const ack = a.waitFor(
        (f) => f.type === 'app_icon_report_ack' && f.content_hash === (message.content_hash ?? null),
      );
      a.send({ type: 'app_icon_report', mime_type: 'image/png', ...message });
      return ack;
    };
    const icon = png(16, 16);
    const hash = sha(icon);
    assert.deepEqual(await send({ content_hash: hash, data_base64: icon.toString('base64') }), {
      type: 'app_icon_report_ack',
      content_hash: hash,
      success: true,
      duplicate: false,
    });
    assert.deepEqual(await send({ content_hash: hash, data_base64: icon.toString('base64') }), {
      type: 'app_icon_report_ack',
      content_hash: hash,
      success: true,
      duplicate: true,
    });
    const wrongHash = await send({
      content_hash: sha(Buffer.from('other')),
      data_base64: icon.toString('base64'),
    });
    assert.match(String(wrongHash.error), /SHA-256/);
    const text = Buffer.from('definitely not a png image, just some text that is long enough');
    assert.match(
      String((await send({ content_hash: sha(text), data_base64: text.toString('base64') })).error),
      /not a PNG/,
    );
    const big = png(100, 100, true);
    assert.ok(big.length > 32 * 1024);
    assert.equal(
      (await send({ content_hash: sha(big), data_base64: big.toString('base64') })).success,
      false,
    );
    const huge = Buffer.alloc(60 * 1024, 1).toString('base64');
    assert.equal((await send({ content_hash: sha(Buffer.from(huge)), data_base64: huge })).success, false);
    assert.equal((await send({ content_hash: 'xyz', data_base64: 'AAAA' })).success, false);

    const res = await fetch(`${ctx.server.url}/api/apps/icons/${hash}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/png');
    assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const etag = res.headers.get('etag') ?? '';
    assert.ok(etag);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), icon);
    assert.equal(
      (await fetch(`${ctx.server.url}/api/apps/icons/${hash}`, { headers: { 'if-none-match': etag } }))
        .status,
      304,
    );
    for (const probe of [
      sha(Buffer.from('unknown')),
      'not-a-hash',
      `${hash.slice(0, 63)}Z`,
      '../../etc/passwd',
    ]) {
      const r = await fetch(`${ctx.server.url}/api/apps/icons/${encodeURIComponent(probe)}`);
      assert.equal(r.status, 404, probe);
      assert.equal(((await r.json()) as { error: { code: string } }).error.code, 'not_found');
    }
    await ctx.chunk(a, {
      report_id: randomUUID(),
      chunk_index: 0,
      chunk_total: 1,
      is_final: true,
      apps: [app('Painter', '2', { icon_hash: hash })],
    });
    const item = (await ctx.inventory(a)).items[0];
    assert.equal(item.icon_url, `/api/apps/icons/${hash}`);
  });

  test("the child's union lists each app once with every device that has it", async () => {
    const child = (await ctx.home.client.post('/api/user/create', { name: 'Union' })).body.id;
    const mk = async () => {
      const a = new SimAgent({
        url: ctx.server.wsUrl,
        enrollmentToken: await enrollmentToken(ctx.home),
        linuxUsers: [{ username: 'kid' }],
      });
      ctx.agents.push(a);
      await a.connect();
      const approved = a.waitFor('pairing_approved');
      await ctx.home.client.post(`/api/device/approve/${a.systemId}`);
      await approved;
      await ctx.home.client.post(`/managed-users/${child}/mappings/add`, {
        system_id: a.systemId,
        linux_username: 'kid',
      });
      return a;
    };
    const [x, y] = [await mk(), await mk()];
    await ctx.chunk(x, {
      report_id: randomUUID(),
      chunk_index: 0,
      chunk_total: 1,
      is_final: true,
      apps: [app('Shared', '1'), app('OnlyX')],
    });
    await ctx.chunk(y, {
      report_id: randomUUID(),
      chunk_index: 0,
      chunk_total: 1,
      is_final: true,
      apps: [app('Shared', '2')],
    });
    const union = (await ctx.home.client.get(`/api/managed-users/${child}/installed-apps`)).body;
    assert.equal(union.managed_user_id, child);
    assert.deepEqual(
      union.items.map((i: { application_name: string }) => i.application_name),
      ['OnlyX', 'Shared'],
    );
    const shared = union.items.find((i: { application_name: string }) => i.application_name === 'Shared');
    assert.deepEqual(
      shared.devices
        .map((d: { system_id: string; version_name: string }) => [d.system_id, d.version_name])
        .sort(),
      [
        [x.systemId, '1'],
        [y.systemId, '2'],
      ].sort(),
    );
  });

  test('refresh asks an online agent at once and waits in the queue for an offline one', async () => {
    const a = await ctx.paired();
    const asked = a.waitFor((f) => f.type === 'command_request' && f.command === 'refresh_installed_apps');
    const res = await ctx.home.client.post(`/api/devices/${a.systemId}/installed-apps/refresh`);
    assert.equal(res.status, 202);
    assert.deepEqual(res.body, { queued: true, delivered: true });
    await asked;
    await a.stop();
    await new Promise((r) => setTimeout(r, 50));
    const offline = await ctx.home.client.post(`/api/devices/${a.systemId}/installed-apps/refresh`);
    assert.deepEqual([offline.status, offline.body], [202, { queued: true, delivered: false }]);
    assert.deepEqual(
      (await ctx.server.services.queue.list(a.systemId)).map((r) => r.command),
      ['refresh_installed_apps'],
    );
  });
});
