import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  MAX_ALERT_DETAIL_BYTES,
  MAX_ALERTS_PER_MINUTE,
  MAX_PENDING_REPORT_BYTES,
  MAX_REFUSED_FRAMES_PER_MINUTE,
} from '@hearth/protocol';
import WebSocket from 'ws';
import { SimAgent } from '../../bench/src/simulator.js';
import {
  createHousehold,
  describeWithServer,
  enrollmentToken,
  startTestServer,
  testDatabases,
} from './helpers.js';
import { app, inventorySuite } from './inventory-fixture.js';

const MiB = 1024 * 1024;

/** A chunk of 1,000 apps whose identifiers make it about `bytes` long on the wire (under 1 MiB). */
function bigApps(tag: string, bytes = 900_000) {
  const pad = 'x'.repeat(Math.floor(bytes / 1000) - 120);
  return Array.from({ length: 1000 }, (_, i) =>
    app(`${tag}${i}`, '1.0', { identifier: `/opt/${pad}/${tag}${i}` }),
  );
}

/** Sends frames as fast as the socket takes them, without waiting for anything. */
function blast(a: SimAgent, frame: unknown, count: number) {
  const text = JSON.stringify(frame);
  const ws = a.socket as WebSocket;
  for (let i = 0; i < count && ws.readyState === WebSocket.OPEN; i++) ws.send(text);
}

const rss = () => `${Math.round(process.memoryUsage().rss / MiB)} MiB`;

describeWithServer('agent channel budgets', { household: 'Budget home' }, (suite) => {
  const ctx = inventorySuite(suite);
  const alertsOf = async (systemId: string) =>
    (await ctx.home.client.get(`/api/alerts?system_id=${systemId}&limit=200`)).body.items as {
      kind: string;
      payload: Record<string, unknown>;
    }[];

  test('an alert_event cannot raise an access request (or any kind the server raises itself)', async () => {
    const a = await ctx.paired();
    for (const kind of ['access_requested', 'alerts_dropped']) {
      const refused = a.waitFor('error');
      a.send({
        type: 'alert_event',
        event_type: kind,
        linux_username: 'kid',
        detail: { message: 'let me in' },
      });
      const error = await refused;
      assert.equal(error.code, 'invalid_message');
      assert.match(String(error.message), /reserved/);
    }
    const requests = (await ctx.home.client.get('/api/access-request')).body.items;
    assert.equal(
      requests.some((r: { system_id: string }) => r.system_id === a.systemId),
      false,
    );
    assert.deepEqual(await alertsOf(a.systemId), []);
    assert.equal(a.state, 'authenticated');
  });

  test(`an alert detail over ${MAX_ALERT_DETAIL_BYTES} bytes is refused, not stored`, async () => {
    const a = await ctx.paired();
    const refused = a.waitFor('error');
    a.send({ type: 'alert_event', event_type: 'clock_tamper', detail: { blob: 'y'.repeat(900_000) } });
    const error = await refused;
    assert.equal(error.code, 'invalid_message');
    assert.match(String(error.message), /detail is \d+ bytes; at most 8192/);
    // Just under the cap is kept whole.
    const fits = 'z'.repeat(MAX_ALERT_DETAIL_BYTES - 20);
    a.send({ type: 'alert_event', event_type: 'clock_tamper', detail: { blob: fits } });
    a.send({ type: 'teleport' }); // answered after the alert is stored: frames are handled in order
    await a.waitFor((f) => f.type === 'error' && f.code === 'unknown_type');
    const stored = await alertsOf(a.systemId);
    assert.equal(stored.length, 1);
    assert.equal(stored[0]?.payload.blob, fits);
    // A detail nested 100,000 deep never reaches the alert: the frame is refused as it is parsed
    // (deeper than 64 levels), with the close of a bad message, and nothing more is stored.
    const closed = a.waitForClose();
    (a.socket as WebSocket).send(
      `{"type":"alert_event","event_type":"clock_tamper","detail":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_001)}`,
    );
    assert.equal((await closed).code, 4400);
    assert.equal((await alertsOf(a.systemId)).length, 1);
  });

  test(`a device raises at most ${MAX_ALERTS_PER_MINUTE} alerts a minute; the rest are dropped and one alerts_dropped says so`, async () => {
    const a = await ctx.paired();
    let dropped = 0;
    a.on('frame', (f) => {
      if (f.type === 'error' && f.code === 'rate_limited') dropped++;
    });
    const before = ctx.server.services.alerts.dropped;
    const sent = MAX_ALERTS_PER_MINUTE + 30;
    for (let i = 0; i < sent; i++)
      a.send({ type: 'alert_event', event_type: 'clock_tamper', detail: { n: i } });
    a.send({ type: 'teleport' });
    await a.waitFor((f) => f.type === 'error' && f.code === 'unknown_type');
    assert.equal(dropped, sent - MAX_ALERTS_PER_MINUTE);
    assert.equal(ctx.server.services.alerts.dropped - before, sent - MAX_ALERTS_PER_MINUTE);
    const stored = await alertsOf(a.systemId);
    assert.equal(stored.filter((s) => s.kind === 'clock_tamper').length, MAX_ALERTS_PER_MINUTE);
    const summary = stored.filter((s) => s.kind === 'alerts_dropped');
    assert.equal(summary.length, 1);
    assert.equal(summary[0]?.payload.limit, MAX_ALERTS_PER_MINUTE);
    assert.equal(a.state, 'authenticated', 'a device over its alert budget keeps its socket');
  });

  test('20,000 junk frames: /healthz answers while they are in flight and the socket is closed 4400', async () => {
    const a = await ctx.paired();
    const closed = a.waitForClose(30_000);
    blast(a, { type: 'junk', filler: 'j'.repeat(40) }, 20_000);
    const health = await fetch(`${ctx.server.url}/healthz`);
    assert.equal(health.status, 200);
    const close = await closed;
    assert.equal(close.code, 4400);
    assert.match(close.reason, /refused/);
    const errors = a.frames.filter((f) => f.type === 'error').length;
    assert.ok(errors <= MAX_REFUSED_FRAMES_PER_MINUTE + 1, `${errors} error frames were sent`);
    // The household's other agents are still served.
    const b = await ctx.paired();
    const command = b.waitFor('command_request');
    const res = await ctx.home.client.post(`/api/devices/${b.systemId}/clear-clock-tamper`);
    assert.deepEqual(res.body, { delivered: true, queued: false });
    await command;
  });

  test('10,000 valid alert_event frames: the socket is closed 4429 and at most the budget becomes alerts', async () => {
    const a = await ctx.paired();
    const closed = a.waitForClose(30_000);
    blast(a, { type: 'alert_event', event_type: 'clock_tamper', detail: { skew_seconds: 3600 } }, 10_000);
    assert.equal((await fetch(`${ctx.server.url}/healthz`)).status, 200);
    const close = await closed;
    assert.equal(close.code, 4429);
    assert.match(close.reason, /too many frames/);
    const stored = await alertsOf(a.systemId);
    assert.equal(stored.length, MAX_ALERTS_PER_MINUTE + 1);
  });

  test('a well-behaved burst (1,500 usage reports at once, under the frame budget) is all handled and the socket stays', async () => {
    const a = await ctx.paired();
    const today = new Date().toISOString().slice(0, 10);
    const ws = a.socket as WebSocket;
    for (let i = 1; i <= 1500; i++)
      ws.send(JSON.stringify({ type: 'usage_report', linux_username: 'kid', date: today, seconds_used: i }));
    a.send({ type: 'usage_report', linux_username: 'nobody', date: today, seconds_used: 1 });
    await a.waitFor((f) => f.type === 'error' && f.code === 'unknown_account', 60_000);
    assert.equal(a.state, 'authenticated');
    const usage = (await ctx.home.client.get(`/api/user/${ctx.childId}/usage`)).body;
    assert.equal(usage.used_seconds, 1500);
  });

  test(`unfinished reports hold at most ${MAX_PENDING_REPORT_BYTES / MiB} MiB a device: the chunk over it is refused and its report dropped`, async (t) => {
    const a = await ctx.paired();
    const { assembler } = ctx.server.services.inventory;
    const reports = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    t.diagnostic(`rss before: ${rss()}`);
    let refused: Record<string, unknown> | null = null;
    let sent = 0;
    for (let i = 0; i < 12 && !refused; i++) {
      const report_id = reports[i % 4];
      const ack = await ctx.chunk(a, {
        report_id,
        chunk_index: Math.floor(i / 4),
        chunk_total: 100,
        apps: bigApps(`r${i}x`),
      });
      sent++;
      if (!ack.success) refused = ack;
      assert.ok(assembler.heldBytes(a.systemId) <= MAX_PENDING_REPORT_BYTES);
    }
    t.diagnostic(`rss with ${assembler.heldBytes() / MiB} MiB held: ${rss()}`);
    assert.ok(refused, 'a chunk was refused');
    assert.ok(sent > 4, 'several chunks fit first');
    assert.match(String(refused.error), /MiB/);
    assert.match(String(refused.error), /dropped/);
    assert.equal(refused.pending, false);
    // The refused chunk's report is gone; the others still wait.
    assert.equal(assembler.inFlight(a.systemId), 3);
    assert.equal(a.state, 'authenticated');
    assembler.sweep(Date.now() + 11 * 60_000);
    assert.equal(assembler.heldBytes(a.systemId), 0);
  });
});

for (const db of testDatabases()) {
  describe(`abandoned reports (${db.name})`, () => {
    test('partial reports expire on the channel clock and the assembler holds zero bytes afterwards', async (t) => {
      const server = await startTestServer(db, {}, { timings: { reportAbandonMs: 1500 } });
      let a: SimAgent | null = null;
      try {
        const owner = await createHousehold(server, 'Abandon');
        a = new SimAgent({ url: server.wsUrl, enrollmentToken: await enrollmentToken(owner) });
        await a.connect();
        const approved = a.waitFor('pairing_approved');
        await owner.client.post(`/api/device/approve/${a.systemId}`);
        await approved;
        const { assembler } = server.services.inventory;
        t.diagnostic(`rss before: ${rss()}`);
        for (let r = 0; r < 4; r++) {
          const report_id = randomUUID();
          for (let c = 0; c < 2; c++) {
            const ack = a.waitFor((f) => f.type === 'installed_apps_report_ack' && f.report_id === report_id);
            a.send({
              type: 'installed_apps_report',
              report_id,
              linux_username: 'kid',
              chunk_index: c,
              chunk_total: 3,
              is_final: false,
              reported_at: new Date().toISOString(),
              apps: bigApps(`a${r}c${c}x`),
            });
            assert.equal((await ack).pending, true);
          }
        }
        const held = assembler.heldBytes();
        t.diagnostic(`held ${Math.round(held / 1000)} kB; rss ${rss()}`);
        assert.ok(held > 0);
        const deadline = Date.now() + 15_000;
        while (assembler.heldBytes() > 0 && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 50));
        assert.equal(assembler.heldBytes(), 0, 'every abandoned report was dropped');
        assert.equal(assembler.inFlight(a.systemId), 0);
        t.diagnostic(`after expiry: rss ${rss()} (recorded, not asserted)`);
      } finally {
        await a?.stop();
        await server.close();
      }
    });
  });
}
