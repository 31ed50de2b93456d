import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { PNG } from 'pngjs';
import { type Frame, SimAgent, type SimAgentOptions } from '../../bench/src/simulator.js';
import {
  addParent,
  announcePostgres,
  Client,
  createHousehold,
  enrollmentToken,
  type Household,
  SseReader,
  startTestServer,
  type TestServer,
  testDatabases,
} from './helpers.js';

announcePostgres();

const app = (name: string, version = '1.0', extra: Record<string, unknown> = {}) => ({
  application_name: name,
  identifier: `/usr/bin/${name.toLowerCase()}`,
  match_type: 'executable',
  version_name: version,
  ...extra,
});

function png(width: number, height: number, noise = false): Buffer {
  const image = new PNG({ width, height });
  for (let i = 0; i < image.data.length; i++)
    image.data[i] = noise ? Math.floor(Math.random() * 256) : (i * 37) % 256;
  return PNG.sync.write(image);
}
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

for (const db of testDatabases()) {
  describe(`installed applications (${db.name})`, () => {
    let server: TestServer;
    let home: Household;
    let childId: string;
    const agents: SimAgent[] = [];
    const paired = async (options: Partial<SimAgentOptions> = {}, account = 'kid') => {
      const a = new SimAgent({
        url: server.wsUrl,
        enrollmentToken: await enrollmentToken(home),
        linuxUsers: [{ username: account }, { username: 'other' }],
        ...options,
      });
      agents.push(a);
      await a.connect();
      const approved = a.waitFor('pairing_approved');
      await home.client.post(`/api/device/approve/${a.systemId}`);
      await approved;
      await home.client.post(`/managed-users/${childId}/mappings/add`, {
        system_id: a.systemId,
        linux_username: account,
      });
      return a;
    };
    /** Sends one chunk and returns the ack for its report. */
    const chunk = (a: SimAgent, report: Record<string, unknown>) => {
      const ack = a.waitFor(
        (f) => f.type === 'installed_apps_report_ack' && f.report_id === (report.report_id ?? null),
      );
      a.send({
        type: 'installed_apps_report',
        linux_username: 'kid',
        reported_at: new Date().toISOString(),
        is_final: false,
        ...report,
      });
      return ack;
    };
    const inventory = async (a: SimAgent) =>
      (await home.client.get(`/api/devices/${a.systemId}/installed-apps`)).body;

    before(async () => {
      server = await startTestServer(db);
      home = await createHousehold(server, 'Apps home');
      childId = (await home.client.post('/api/user/create', { name: 'Ada' })).body.id;
    });
    after(async () => {
      await Promise.all(agents.map((x) => x.stop()));
      await server.close();
    });

    test('chunks in any order: nothing applies until all are in with the final one, then one replace', async () => {
      const a = await paired();
      assert.deepEqual(await inventory(a), {
        system_id: a.systemId,
        reported_at: null,
        report_hash: null,
        count: 0,
        items: [],
      });
      const stream = await SseReader.open(`${server.url}/api/dashboard/events`, home.client.cookie ?? '');
      try {
        const id = randomUUID();
        const second = await chunk(a, {
          report_id: id,
          chunk_index: 1,
          chunk_total: 2,
          is_final: true,
          apps: [app('Gimp'), app('Inkscape')],
        });
        assert.deepEqual(second, {
          type: 'installed_apps_report_ack',
          report_id: id,
          success: true,
          pending: true,
          apps_upserted: 0,
          apps_removed: 0,
          apps_total: 0,
        });
        assert.equal((await inventory(a)).count, 0, 'nothing applied yet');
        const first = await chunk(a, {
          report_id: id,
          chunk_index: 0,
          chunk_total: 2,
          apps: [app('Firefox', '120'), app('Blender')],
        });
        assert.deepEqual(first, {
          type: 'installed_apps_report_ack',
          report_id: id,
          success: true,
          pending: false,
          apps_upserted: 4,
          apps_removed: 0,
          apps_total: 4,
        });
        const inv = await inventory(a);
        assert.equal(inv.count, 4);
        assert.match(inv.report_hash, /^[0-9a-f]{64}$/);
        assert.deepEqual(
          inv.items.map((i: { application_name: string }) => i.application_name),
          ['Blender', 'Firefox', 'Gimp', 'Inkscape'],
        );
        assert.deepEqual(Object.keys(inv.items[0]).sort(), [
          'application_name',
          'first_seen_at',
          'icon_hash',
          'icon_url',
          'identifier',
          'last_seen_at',
          'linux_username',
          'match_type',
          'version_name',
        ]);
        await stream.next((e) => e.event === 'installed_apps_updated' && e.data.system_id === a.systemId);

        // A new report: Firefox updated, Blender uninstalled, the rest unchanged.
        const next = randomUUID();
        const ack = await chunk(a, {
          report_id: next,
          chunk_index: 0,
          chunk_total: 1,
          is_final: true,
          apps: [app('Firefox', '121'), app('Gimp'), app('Inkscape')],
        });
        assert.deepEqual([ack.apps_upserted, ack.apps_removed, ack.apps_total], [1, 1, 3]);
        const after = await inventory(a);
        assert.deepEqual(
          after.items.map(
            (i: { application_name: string; version_name: string }) =>
              `${i.application_name} ${i.version_name}`,
          ),
          ['Firefox 121', 'Gimp 1.0', 'Inkscape 1.0'],
        );
        const firefox = after.items.find(
          (i: { application_name: string }) => i.application_name === 'Firefox',
        );
        assert.equal(
          firefox.first_seen_at,
          inv.items.find((i: { application_name: string }) => i.application_name === 'Firefox').first_seen_at,
        );
        const device = (await home.client.get(`/api/devices/${a.systemId}`)).body;
        assert.equal(device.status, 'approved');
      } finally {
        stream.close();
      }
    });

    test('an identical report writes nothing: same hash, last seen kept', async () => {
      const a = await paired();
      const apps = [app('Krita'), app('Audacity', '3.4')];
      await chunk(a, { report_id: randomUUID(), chunk_index: 0, chunk_total: 1, is_final: true, apps });
      const before = await inventory(a);
      await new Promise((r) => setTimeout(r, 20));
      const ack = await chunk(a, {
        report_id: randomUUID(),
        chunk_index: 0,
        chunk_total: 1,
        is_final: true,
        reported_at: '2030-01-01T00:00:00.000Z',
        apps: [...apps].reverse(),
      });
      assert.deepEqual([ack.success, ack.apps_upserted, ack.apps_removed, ack.apps_total], [true, 0, 0, 2]);
      const after = await inventory(a);
      assert.deepEqual(after, before);
    });

    test('a report whose chunks never all arrive is never applied', async () => {
      const a = await paired();
      await chunk(a, { report_id: randomUUID(), chunk_index: 0, chunk_total: 3, apps: [app('Half')] });
      await chunk(a, {
        report_id: randomUUID(),
        chunk_index: 0,
        chunk_total: 1,
        is_final: false,
        apps: [app('NoFinal')],
      });
      assert.equal((await inventory(a)).count, 0);
      assert.equal(
        server.services.inventory.assembler.sweep(Date.now() + 11 * 60_000),
        2,
        'abandoned reports are dropped after ten minutes',
      );
    });

    test('bad chunks are refused with an ack saying why; nothing partial applies; the socket stays up', async () => {
      const a = await paired();
      const expectRefused = async (report: Record<string, unknown>, why: RegExp) => {
        const ack = await chunk(a, report);
        assert.equal(ack.success, false, JSON.stringify(report).slice(0, 80));
        assert.match(String(ack.error), why);
      };
      await expectRefused(
        {
          report_id: randomUUID(),
          linux_username: 'stranger',
          chunk_index: 0,
          chunk_total: 1,
          is_final: true,
          apps: [app('X')],
        },
        /not in this device's hello/,
      );
      await expectRefused(
        { report_id: randomUUID(), chunk_index: 2, chunk_total: 2, is_final: true, apps: [] },
        /below chunk_total/,
      );
      await expectRefused(
        { report_id: randomUUID(), chunk_index: 0, chunk_total: 101, apps: [] },
        /chunk_total/,
      );
      await expectRefused(
        {
          report_id: randomUUID(),
          chunk_index: 0,
          chunk_total: 1,
          is_final: true,
          apps: Array.from({ length: 1001 }, (_, i) => app(`A${i}`)),
        },
        /apps/,
      );
      await expectRefused(
        {
          report_id: randomUUID(),
          chunk_index: 0,
          chunk_total: 1,
          is_final: true,
          apps: [app('Bad', '1', { icon_hash: 'not-a-hash' })],
        },
        /icon_hash/,
      );
      await expectRefused(
        {
          report_id: randomUUID(),
          chunk_index: 0,
          chunk_total: 1,
          is_final: true,
          apps: [{ ...app('Pkg'), match_type: 'package' }],
        },
        /executable/,
      );
      await expectRefused(
        {
          report_id: randomUUID(),
          chunk_index: 0,
          chunk_total: 1,
          is_final: true,
          apps: [{ ...app('Rel'), identifier: 'bin/rel' }],
        },
        /absolute/,
      );

      const id = randomUUID();
      assert.equal(
        (await chunk(a, { report_id: id, chunk_index: 0, chunk_total: 3, apps: [app('One')] })).pending,
        true,
      );
      await expectRefused(
        { report_id: id, chunk_index: 0, chunk_total: 3, apps: [app('One')] },
        /already received/,
      );
      await expectRefused(
        { report_id: id, chunk_index: 1, chunk_total: 2, is_final: true, apps: [app('Two')] },
        /dropped/,
      );
      // The dropped report cannot be completed afterwards.
      const late = await chunk(a, {
        report_id: id,
        chunk_index: 2,
        chunk_total: 3,
        is_final: true,
        apps: [app('Three')],
      });
      assert.equal(late.pending, true);
      assert.equal((await inventory(a)).count, 0);
      assert.equal(a.state, 'authenticated');
    });

    test('android reports use /android/package/ identifiers', async () => {
      const phone = await paired({ platform: 'android' });
      const ok = await chunk(phone, {
        report_id: randomUUID(),
        chunk_index: 0,
        chunk_total: 1,
        is_final: true,
        apps: [
          {
            application_name: 'Duolingo',
            identifier: '/android/package/com.duolingo',
            match_type: 'package',
            version_name: '5.1',
          },
        ],
      });
      assert.equal(ok.success, true);
      const bad = await chunk(phone, {
        report_id: randomUUID(),
        chunk_index: 0,
        chunk_total: 1,
        is_final: true,
        apps: [{ application_name: 'X', identifier: 'com.x', match_type: 'package', version_name: '1' }],
      });
      assert.match(String(bad.error), /android\/package/);
    });

    test('icons: verified, stored once, served with immutable caching and ETag', async () => {
      const a = await paired();
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

      const res = await fetch(`${server.url}/api/apps/icons/${hash}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'image/png');
      assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      const etag = res.headers.get('etag') ?? '';
      assert.ok(etag);
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), icon);
      assert.equal(
        (await fetch(`${server.url}/api/apps/icons/${hash}`, { headers: { 'if-none-match': etag } })).status,
        304,
      );
      for (const probe of [
        sha(Buffer.from('unknown')),
        'not-a-hash',
        `${hash.slice(0, 63)}Z`,
        '../../etc/passwd',
      ]) {
        const r = await fetch(`${server.url}/api/apps/icons/${encodeURIComponent(probe)}`);
        assert.equal(r.status, 404, probe);
        assert.equal(((await r.json()) as { error: { code: string } }).error.code, 'not_found');
      }
      await chunk(a, {
        report_id: randomUUID(),
        chunk_index: 0,
        chunk_total: 1,
        is_final: true,
        apps: [app('Painter', '2', { icon_hash: hash })],
      });
      const item = (await inventory(a)).items[0];
      assert.equal(item.icon_url, `/api/apps/icons/${hash}`);
    });

    test("the child's union lists each app once with every device that has it", async () => {
      const child = (await home.client.post('/api/user/create', { name: 'Union' })).body.id;
      const mk = async () => {
        const a = new SimAgent({
          url: server.wsUrl,
          enrollmentToken: await enrollmentToken(home),
          linuxUsers: [{ username: 'kid' }],
        });
        agents.push(a);
        await a.connect();
        const approved = a.waitFor('pairing_approved');
        await home.client.post(`/api/device/approve/${a.systemId}`);
        await approved;
        await home.client.post(`/managed-users/${child}/mappings/add`, {
          system_id: a.systemId,
          linux_username: 'kid',
        });
        return a;
      };
      const [x, y] = [await mk(), await mk()];
      await chunk(x, {
        report_id: randomUUID(),
        chunk_index: 0,
        chunk_total: 1,
        is_final: true,
        apps: [app('Shared', '1'), app('OnlyX')],
      });
      await chunk(y, {
        report_id: randomUUID(),
        chunk_index: 0,
        chunk_total: 1,
        is_final: true,
        apps: [app('Shared', '2')],
      });
      const union = (await home.client.get(`/api/managed-users/${child}/installed-apps`)).body;
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
      const a = await paired();
      const asked = a.waitFor((f) => f.type === 'command_request' && f.command === 'refresh_installed_apps');
      const res = await home.client.post(`/api/devices/${a.systemId}/installed-apps/refresh`);
      assert.equal(res.status, 202);
      assert.deepEqual(res.body, { queued: true, delivered: true });
      await asked;
      await a.stop();
      await new Promise((r) => setTimeout(r, 50));
      const offline = await home.client.post(`/api/devices/${a.systemId}/installed-apps/refresh`);
      assert.deepEqual([offline.status, offline.body], [202, { queued: true, delivered: false }]);
      assert.deepEqual(
        (await server.services.queue.list(a.systemId)).map((r) => r.command),
        ['refresh_installed_apps'],
      );
    });

    test('app policy: versioned rules pushed to each device, sync state per device, validation', async () => {
      const child = (await home.client.post('/api/user/create', { name: 'Policy' })).body.id;
      const online = new SimAgent({
        url: server.wsUrl,
        enrollmentToken: await enrollmentToken(home),
        linuxUsers: [{ username: 'kid' }],
      });
      const offline = new SimAgent({
        url: server.wsUrl,
        enrollmentToken: await enrollmentToken(home),
        linuxUsers: [{ username: 'kid' }],
      });
      agents.push(online, offline);
      for (const a of [online, offline]) {
        await a.connect();
        const approved = a.waitFor('pairing_approved');
        await home.client.post(`/api/device/approve/${a.systemId}`);
        await approved;
        await home.client.post(`/managed-users/${child}/mappings/add`, {
          system_id: a.systemId,
          linux_username: 'kid',
        });
      }
      await offline.stop();
      await new Promise((r) => setTimeout(r, 50));
      const empty = (await home.client.get(`/api/managed-users/${child}/app-policy`)).body;
      assert.equal(empty.version, 0);
      assert.deepEqual(empty.rules, []);
      const rules = [
        { identifier: '/usr/bin/steam', match_type: 'executable', action: 'block' },
        { identifier: '/usr/bin/minecraft', match_type: 'executable', action: 'limit', daily_minutes: 60 },
        { identifier: '/android/package/com.duolingo', match_type: 'package', action: 'allow' },
      ];
      const pushed = online.waitFor((f) => f.type === 'command_request' && f.command === 'sync_app_policy');
      const put = await home.client.request('PUT', `/api/managed-users/${child}/app-policy`, {
        json: { rules, version: 0 },
      });
      assert.equal(put.status, 200);
      assert.equal(put.body.version, 1);
      assert.deepEqual(put.body.rules, rules);
      const frame: Frame = await pushed;
      assert.deepEqual(frame.args, { managed_user_id: child, linux_username: 'kid', version: 1, rules });
      const status = Object.fromEntries(
        put.body.sync.map((s: { system_id: string; status: string }) => [s.system_id, s.status]),
      );
      assert.deepEqual(status, { [online.systemId]: 'synced', [offline.systemId]: 'pending' });

      const back = new SimAgent({
        url: server.wsUrl,
        systemId: offline.systemId,
        secureToken: offline.secureToken,
        linuxUsers: [{ username: 'kid' }],
      });
      agents.push(back);
      const delivered = back.waitFor((f) => f.type === 'command_request' && f.command === 'sync_app_policy');
      await back.connect();
      await delivered;
      let synced = '';
      for (let i = 0; i < 50 && synced !== 'synced'; i++) {
        const view = (await home.client.get(`/api/managed-users/${child}/app-policy`)).body;
        synced = view.sync.find((s: { system_id: string }) => s.system_id === offline.systemId).status;
        if (synced !== 'synced') await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(synced, 'synced');

      const stale = await home.client.request('PUT', `/api/managed-users/${child}/app-policy`, {
        json: { rules: [], version: 0 },
      });
      assert.equal(stale.status, 409);
      for (const bad of [
        [{ identifier: 'steam', match_type: 'executable', action: 'block' }],
        [{ identifier: '/usr/bin/x', match_type: 'package', action: 'block' }],
        [{ identifier: '/usr/bin/x', match_type: 'executable', action: 'limit' }],
        [{ identifier: '/usr/bin/x', match_type: 'executable', action: 'allow', daily_minutes: 5 }],
        [{ identifier: '/usr/bin/x', match_type: 'executable', action: 'ban' }],
        [
          { identifier: '/usr/bin/x', match_type: 'executable', action: 'allow' },
          { identifier: '/usr/bin/x', match_type: 'executable', action: 'block' },
        ],
      ]) {
        const res = await home.client.request('PUT', `/api/managed-users/${child}/app-policy`, {
          json: { rules: bad },
        });
        assert.equal(res.status, 400, JSON.stringify(bad));
      }
      const viewer = await addParent(server, home, 'member', [
        { managed_user_id: child, can_view: true, can_manage_policies: false },
      ]);
      assert.equal((await viewer.get(`/api/managed-users/${child}/app-policy`)).status, 200);
      assert.equal(
        (await viewer.request('PUT', `/api/managed-users/${child}/app-policy`, { json: { rules: [] } }))
          .status,
        403,
      );
      assert.equal((await new Client(server.url).get(`/api/managed-users/${child}/app-policy`)).status, 401);
    });
  });
}
