import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SimAgent } from '../../bench/src/simulator.js';
import {
  addParent,
  Client,
  createHousehold,
  describeWithServer,
  enrollmentToken,
  SseReader,
  startTestServer,
} from './helpers.js';

describeWithServer(
  'access requests, alerts and live events',
  { env: { HEARTH_AGENT_TOKEN: 'bootstrap-token-for-tests' }, household: 'Requests home' },
  (ctx) => {
    let agent: SimAgent;
    let childId: string;
    const readers: SseReader[] = [];
    const post = (body: unknown, token = agent.secureToken, headers: Record<string, string> = {}) =>
      fetch(`${ctx.server.url}/api/access-request`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...headers,
        },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, headers: r.headers, body: (await r.json()) as any }));
    const alertCount = async () => (await ctx.home.client.get('/api/alerts?limit=200')).body.items.length;

    before(async () => {
      childId = (await ctx.home.client.post('/api/user/create', { name: 'Ann' })).body.id;
      agent = new SimAgent({
        url: ctx.server.wsUrl,
        enrollmentToken: await enrollmentToken(ctx.home),
        linuxUsers: [{ username: 'ann' }, { username: 'guest' }],
      });
      await agent.connect();
      const approved = agent.waitFor('pairing_approved');
      await ctx.home.client.post(`/api/device/approve/${agent.systemId}`, { display_name: 'Ann laptop' });
      await approved;
      await ctx.home.client.post(`/managed-users/${childId}/mappings/add`, {
        system_id: agent.systemId,
        linux_username: 'ann',
      });
    });
    after(async () => {
      for (const r of readers) r.close();
      await agent.stop();
    });

    test('a child’s request is stored as an access_requested alert and reaches an open dashboard stream', async () => {
      const stream = await SseReader.open(
        `${ctx.server.url}/api/dashboard/events`,
        ctx.home.client.cookie ?? '',
      );
      readers.push(stream);
      assert.equal(stream.status, 200);
      const res = await post({
        linux_username: 'ann',
        reason: 'locked',
        message: '  Can I finish my level?  ',
        system_id: agent.systemId,
      });
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body).sort(), ['created_at', 'id', 'kind']);
      assert.equal(res.body.kind, 'access_requested');

      const event = await stream.next(
        (e) => e.event === 'access_requested' && e.data.id === res.body.id,
        1000,
      );
      assert.equal(event.data.managed_user_name, 'Ann');
      assert.deepEqual(event.data.payload, { reason: 'locked', message: 'Can I finish my level?' });
      await stream.next((e) => e.event === 'alert_created' && e.data.id === res.body.id);

      const listed = (await ctx.home.client.get('/api/access-request')).body.items[0];
      assert.deepEqual(listed, {
        id: res.body.id,
        kind: 'access_requested',
        system_id: agent.systemId,
        hostname: listed.hostname,
        display_name: 'Ann laptop',
        linux_username: 'ann',
        managed_user_id: childId,
        managed_user_name: 'Ann',
        payload: { reason: 'locked', message: 'Can I finish my level?' },
        created_at: res.body.created_at,
        acknowledged_at: null,
      });
      const alerts = (await ctx.home.client.get('/api/alerts?kind=access_requested')).body.items;
      assert.equal(alerts[0].id, res.body.id);
    });

    test('every misuse of the bearer route is refused and stores nothing', async () => {
      const before = await alertCount();
      const good = { linux_username: 'ann', reason: 'sleep', message: 'hi' };
      const cases: [string, Promise<{ status: number; body: any }>, number, string][] = [
        ['no token', post(good, ''), 401, 'invalid_token'],
        ['unknown token', post(good, 'f'.repeat(64)), 401, 'invalid_token'],
        ['bootstrap token', post(good, 'bootstrap-token-for-tests'), 401, 'bootstrap_token_rejected'],
        ['foreign system_id', post({ ...good, system_id: crypto.randomUUID() }), 403, 'system_id_mismatch'],
        ['wrong username', post({ ...good, linux_username: 'mallory' }), 400, 'invalid_request'],
        ['missing message', post({ linux_username: 'ann', reason: 'sleep' }), 400, 'invalid_request'],
        ['blank message', post({ ...good, message: '    ' }), 400, 'invalid_request'],
        ['oversize message', post({ ...good, message: 'x'.repeat(501) }), 400, 'invalid_request'],
        ['non-string message', post({ ...good, message: 42 }), 400, 'invalid_request'],
        ['unknown reason', post({ ...good, reason: 'bored' }), 400, 'invalid_request'],
        ['unknown field', post({ ...good, mood: 'sad' }), 400, 'invalid_request'],
        ['a domain that is not one', post({ ...good, domain: 'not a domain' }), 400, 'invalid_request'],
        ['an empty domain', post({ ...good, domain: '' }), 400, 'invalid_request'],
        [
          'an oversize domain',
          post({ ...good, domain: `${'a'.repeat(300)}.example` }),
          400,
          'invalid_request',
        ],
        ['not JSON', post('{"linux_username":'), 400, 'invalid_request'],
      ];
      for (const [label, pending, status, code] of cases) {
        const res = await pending;
        assert.equal(res.status, status, label);
        assert.equal(res.body.error.code, code, label);
      }
      // Exactly 500 characters after trimming is fine.
      assert.equal((await post({ ...good, message: ` ${'y'.repeat(500)} ` })).status, 201);
      assert.equal(await alertCount(), before + 1);
    });

    test('a request from the browser’s Hearth Space names its site, normalised, in the payload', async () => {
      const res = await post({
        linux_username: 'ann',
        reason: 'filtered',
        message: 'I need it for school',
        domain: 'WWW.Video.Example.',
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const listed = (await ctx.home.client.get('/api/access-request')).body.items.find(
        (a: { id: string }) => a.id === res.body.id,
      );
      assert.deepEqual(listed.payload, {
        reason: 'filtered',
        message: 'I need it for school',
        domain: 'www.video.example',
      });
    });

    test('a rejected or unenrolled device’s token is refused', async () => {
      const other = new SimAgent({ url: ctx.server.wsUrl, enrollmentToken: await enrollmentToken(ctx.home) });
      await other.connect();
      const approved = other.waitFor('pairing_approved');
      await ctx.home.client.post(`/api/device/approve/${other.systemId}`);
      await approved;
      assert.equal(
        (await post({ linux_username: 'kid', reason: 'sleep', message: 'x' }, other.secureToken)).status,
        201,
      );
      await ctx.home.client.post(`/api/device/${other.systemId}/unenroll`);
      const res = await post({ linux_username: 'kid', reason: 'sleep', message: 'x' }, other.secureToken);
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'invalid_token');
      await other.stop();
    });

    test('more than 30 requests a minute from one address answer 429 with Retry-After, refused ones counted too', async () => {
      const limited = await startTestServer(ctx.db);
      try {
        const before = Date.now();
        let lastOk = 0;
        const statuses: number[] = [];
        for (let i = 0; i < 31; i++) {
          const res = await fetch(`${limited.url}/api/access-request`, {
            method: 'POST',
            headers: { authorization: 'Bearer nope' },
          });
          statuses.push(res.status);
          if (res.status === 401) lastOk = i;
        }
        assert.equal(lastOk, 29);
        assert.deepEqual(statuses.slice(0, 30), Array(30).fill(401));
        const blocked = await fetch(`${limited.url}/api/access-request`, {
          method: 'POST',
          headers: { authorization: 'Bearer nope' },
        });
        assert.equal(blocked.status, 429);
        const body = (await blocked.json()) as { error: { code: string } };
        assert.equal(body.error.code, 'rate_limited');
        const retry = Number(blocked.headers.get('retry-after'));
        assert.ok(retry >= 1 && retry <= 60 && Date.now() - before < 60_000);
      } finally {
        await limited.close();
      }
    });

    test('agent alert_event frames become alerts; unread counts, acknowledging and filters work', async () => {
      agent.send({
        type: 'alert_event',
        event_type: 'clock_tamper',
        linux_username: 'ann',
        detail: { skew_seconds: 3600 },
      });
      agent.send({ type: 'alert_event', event_type: 'Not Valid', detail: {} });
      assert.equal((await agent.waitFor('error')).code, 'invalid_message');
      let tamper: any;
      for (let i = 0; i < 50 && !tamper; i++) {
        tamper = (await ctx.home.client.get('/api/alerts?kind=clock_tamper')).body.items[0];
        if (!tamper) await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(tamper.managed_user_id, childId);
      assert.deepEqual(tamper.payload, { skew_seconds: 3600 });

      const dash = (await ctx.home.client.get('/api/dashboard')).body;
      const unread = dash.counts.unread_alerts;
      assert.ok(unread >= 2);
      const acked = await ctx.home.client.post(`/api/alerts/${tamper.id}/acknowledge`);
      assert.equal(acked.status, 200);
      assert.ok(acked.body.acknowledged_at);
      assert.equal((await ctx.home.client.get('/api/dashboard')).body.counts.unread_alerts, unread - 1);
      assert.equal((await ctx.home.client.post('/api/alerts/not-an-alert/acknowledge')).status, 404);

      const byChild = (await ctx.home.client.get(`/api/alerts?managed_user_id=${childId}`)).body.items;
      assert.ok(byChild.every((a: { managed_user_id: string }) => a.managed_user_id === childId));
      const unackd = (await ctx.home.client.get('/api/alerts?unacknowledged=true')).body.items;
      assert.ok(unackd.every((a: { acknowledged_at: string | null }) => a.acknowledged_at === null));
      for (const q of ['limit=0', 'limit=500', 'kind=Bad-Kind', 'before=%%%', 'colour=red']) {
        assert.equal((await ctx.home.client.get(`/api/alerts?${q}`)).status, 400, q);
      }
    });

    test("the alert kinds to filter by: Hearth's own, then every other kind a parent can see", async () => {
      const memberOfNone = await addParent(ctx.server, ctx.home, 'member', []);
      // Before any such alert, Hearth's own kinds are offered all the same.
      assert.deepEqual((await memberOfNone.get('/api/alerts/kinds')).body, {
        kinds: ['access_requested', 'clock_tamper', 'alerts_dropped'],
      });
      agent.send({ type: 'alert_event', event_type: 'usb_inserted', linux_username: 'ann', detail: {} });
      agent.send({ type: 'alert_event', event_type: 'battery_low', detail: {} });
      let kinds: string[] = [];
      for (let i = 0; i < 100 && !(kinds.includes('usb_inserted') && kinds.includes('battery_low')); i++) {
        kinds = (await ctx.home.client.get('/api/alerts/kinds')).body.kinds;
        await new Promise((r) => setImmediate(r));
      }
      assert.deepEqual(kinds.slice(0, 3), ['access_requested', 'clock_tamper', 'alerts_dropped']);
      assert.deepEqual(
        kinds.filter((k) => k === 'usb_inserted' || k === 'battery_low'),
        ['battery_low', 'usb_inserted'],
      );
      assert.equal(new Set(kinds).size, kinds.length, 'each kind once');
      // A member sees only the kinds of alerts about children they may view.
      assert.deepEqual((await memberOfNone.get('/api/alerts/kinds')).body.kinds, [
        'access_requested',
        'clock_tamper',
        'alerts_dropped',
      ]);
      const viewer = await addParent(ctx.server, ctx.home, 'member', [
        { managed_user_id: childId, can_view: true, can_manage_policies: false },
      ]);
      const seen = (await viewer.get('/api/alerts/kinds')).body.kinds;
      assert.ok(seen.includes('usb_inserted') && !seen.includes('battery_low'), seen.join());
      assert.equal((await new Client(ctx.server.url).get('/api/alerts/kinds')).status, 401);
    });

    test('alerts page with a cursor, newest first, without repeats', async () => {
      for (let i = 0; i < 5; i++)
        await post({ linux_username: 'guest', reason: 'filtered', message: `page ${i}` });
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: any = await ctx.home.client.get(`/api/alerts?limit=2${cursor ? `&before=${cursor}` : ''}`);
        assert.ok(res.body.items.length <= 2);
        seen.push(...res.body.items.map((a: { id: string; created_at: string }) => a.created_at + a.id));
        cursor = res.body.next_cursor;
        pages++;
      } while (cursor && pages < 50);
      assert.equal(new Set(seen).size, seen.length);
      assert.deepEqual([...seen].sort().reverse(), seen);
      assert.equal(seen.length, await alertCount());
    });

    test('Last-Event-ID resumes a stream with the events it missed; heartbeats keep it open', async () => {
      const first = await SseReader.open(
        `${ctx.server.url}/api/dashboard/events`,
        ctx.home.client.cookie ?? '',
      );
      readers.push(first);
      const a = await post({ linux_username: 'ann', reason: 'sleep', message: 'one' });
      const seenA = await first.next((e) => e.event === 'access_requested' && e.data.id === a.body.id);
      first.close();
      const b = await post({ linux_username: 'ann', reason: 'sleep', message: 'two' });
      const c = await post({ linux_username: 'ann', reason: 'sleep', message: 'three' });
      const resumed = await SseReader.open(
        `${ctx.server.url}/api/dashboard/events`,
        ctx.home.client.cookie ?? '',
        seenA.id,
      );
      readers.push(resumed);
      await resumed.next((e) => e.event === 'access_requested' && e.data.id === c.body.id);
      const ids = resumed.events.filter((e) => e.event === 'access_requested').map((e) => e.data.id);
      assert.deepEqual(ids, [b.body.id, c.body.id]);
    });

    test('a member’s stream and lists carry only the children they may see; other households see nothing', async () => {
      const hidden = (await ctx.home.client.post('/api/user/create', { name: 'Hidden' })).body;
      await ctx.home.client.post(`/managed-users/${hidden.id}/mappings/add`, {
        system_id: agent.systemId,
        linux_username: 'guest',
      });
      const member = await addParent(ctx.server, ctx.home, 'member', [
        { managed_user_id: childId, can_view: true, can_manage_policies: false },
      ]);
      const stranger = await createHousehold(ctx.server, 'Strangers');
      const memberStream = await SseReader.open(
        `${ctx.server.url}/api/dashboard/events`,
        member.cookie ?? '',
      );
      const strangerStream = await SseReader.open(
        `${ctx.server.url}/api/dashboard/events`,
        stranger.client.cookie ?? '',
      );
      readers.push(memberStream, strangerStream);
      const toHidden = await post({ linux_username: 'guest', reason: 'sleep', message: 'secret' });
      const toAnn = await post({ linux_username: 'ann', reason: 'sleep', message: 'visible' });
      await memberStream.next((e) => e.event === 'access_requested' && e.data.id === toAnn.body.id);
      assert.ok(!memberStream.events.some((e) => e.data.id === toHidden.body.id));
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(strangerStream.events.length, 0);
      const memberList = (await member.get('/api/access-request')).body.items.map(
        (a: { id: string }) => a.id,
      );
      assert.ok(memberList.includes(toAnn.body.id) && !memberList.includes(toHidden.body.id));
      assert.deepEqual((await stranger.client.get('/api/alerts')).body.items, []);
      assert.equal((await stranger.client.post(`/api/alerts/${toAnn.body.id}/acknowledge`)).status, 404);
      assert.equal((await new Client(ctx.server.url).get('/api/dashboard/events')).status, 401);
    });

    test('a member’s stream carries device events only for devices of their children; streams end with their session', async () => {
      const member = await addParent(ctx.server, ctx.home, 'member', [
        { managed_user_id: childId, can_view: true, can_manage_policies: false },
      ]);
      const memberStream = await SseReader.open(
        `${ctx.server.url}/api/dashboard/events`,
        member.cookie ?? '',
      );
      readers.push(memberStream);
      const unmapped = new SimAgent({
        url: ctx.server.wsUrl,
        enrollmentToken: await enrollmentToken(ctx.home),
      });
      await unmapped.connect();
      ctx.server.services.events.publish(ctx.home.householdId, 'device_status', {
        system_id: agent.systemId,
        online: true,
      });
      await memberStream.next((e) => e.event === 'device_status' && e.data.system_id === agent.systemId);
      assert.ok(
        !memberStream.events.some((e) => e.data.system_id === unmapped.systemId),
        'no news of a device that is not their child’s',
      );
      await unmapped.stop();

      await member.delete('/api/session');
      (ctx.server.services.eventHub as unknown as { beat(): void }).beat();
      for (let i = 0; i < 50 && !memberStream.ended; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(memberStream.ended, true, 'the stream ends once its session is gone');
    });

    test('the dashboard sums up children, devices and counts', async () => {
      const pendingBefore = (await ctx.home.client.get('/api/dashboard')).body.counts.pending_devices;
      const pending = new SimAgent({
        url: ctx.server.wsUrl,
        enrollmentToken: await enrollmentToken(ctx.home),
      });
      await pending.connect();
      const dash = (await ctx.home.client.get('/api/dashboard')).body;
      assert.deepEqual(dash.household, { id: ctx.home.householdId, name: 'Requests home' });
      assert.equal(dash.counts.pending_devices, pendingBefore + 1);
      assert.equal(dash.counts.pending_approvals, 0);
      const ann = dash.users.find((u: { id: string }) => u.id === childId);
      assert.deepEqual(Object.keys(ann).sort(), [
        'id',
        'name',
        'online',
        'remaining_seconds',
        'used_seconds_today',
      ]);
      assert.equal(ann.online, true);
      assert.ok(
        dash.devices.some(
          (d: { system_id: string; online: boolean }) => d.system_id === agent.systemId && d.online,
        ),
      );
      assert.ok(dash.recent_alerts.length > 0 && dash.recent_alerts.length <= 10);
      await pending.stop();
    });

    test('prune deletes old alerts (owners and admins only)', async () => {
      const member = await addParent(ctx.server, ctx.home, 'member');
      assert.equal((await member.post('/api/alerts/prune', { older_than_days: 0 })).status, 403);
      assert.deepEqual((await ctx.home.client.post('/api/alerts/prune')).body, { deleted: 0 });
      assert.equal((await ctx.home.client.post('/api/alerts/prune', { older_than_days: -1 })).status, 400);
      const count = await alertCount();
      await new Promise((r) => setTimeout(r, 5));
      assert.deepEqual((await ctx.home.client.post('/api/alerts/prune', { older_than_days: 0 })).body, {
        deleted: count,
      });
      assert.equal(await alertCount(), 0);
    });
  },
);
