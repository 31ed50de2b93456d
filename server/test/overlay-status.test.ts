import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_OVERLAY_ENTRIES } from '@hearth/protocol';
import type { SimAgent } from '../../bench/src/simulator.js';
import { withChildAgents } from './child-agents.js';
import { createHousehold, describeWithServer, SseReader } from './helpers.js';

describeWithServer('overlay status', { household: 'Overlay home' }, (ctx) => {
  const suite = withChildAgents(ctx, { child: 'Ann', spareAccount: 'guest' });

  /** Every frame sent before it was handled once this one is refused (one socket's frames go in order). */
  const settled = async (a: SimAgent) => {
    const answer = a.waitFor((f) => f.type === 'error' && String(f.message).includes('settle-barrier'));
    a.send({
      type: 'overlay_status',
      overlays: [{ linux_username: 'settle-barrier', reason: 'locked', since: new Date().toISOString() }],
    });
    await answer;
  };
  const device = async (systemId: string) => (await ctx.home.client.get(`/api/devices/${systemId}`)).body;

  test('a status is stored and shown in the device view and the list, and a change is announced live', async () => {
    const { agent } = await suite.pairedAgent({ agentVersion: '0.57.0' });
    const before = await device(agent.systemId);
    assert.deepEqual(before.overlays, []);
    assert.equal(before.overlays_reported_at, null);
    assert.equal(before.agent_version, '0.57.0');
    assert.ok('last_inventory_at' in before && 'last_usage_at' in before);

    const events = await SseReader.open(
      `${ctx.server.url}/api/dashboard/events`,
      ctx.home.client.cookie ?? '',
    );
    try {
      agent.send({
        type: 'overlay_status',
        overlays: [
          { linux_username: 'kid', reason: 'locked', since: '2026-03-01T10:00:00+01:00', context: 'paused' },
          { linux_username: 'guest', reason: 'clock_tamper', since: '2026-03-01T08:30:00Z' },
        ],
      });
      await events.next((e) => e.event === 'device_status' && e.data.system_id === agent.systemId);
    } finally {
      events.close();
    }
    const shown = await device(agent.systemId);
    assert.deepEqual(shown.overlays, [
      { linux_username: 'guest', reason: 'clock_tamper', since: '2026-03-01T08:30:00.000Z' },
      { linux_username: 'kid', reason: 'locked', since: '2026-03-01T09:00:00.000Z', context: 'paused' },
    ]);
    assert.equal(typeof shown.overlays_reported_at, 'string');
    const listed = (await ctx.home.client.get('/api/devices')).body.items.find(
      (d: { system_id: string }) => d.system_id === agent.systemId,
    );
    assert.deepEqual(listed.overlays, shown.overlays);

    // The whole set replaces the last one: an empty list means nothing is showing.
    agent.send({ type: 'overlay_status', overlays: [] });
    await settled(agent);
    assert.deepEqual((await device(agent.systemId)).overlays, []);
  });

  test('the last usage and inventory report times come with the device', async () => {
    const { agent } = await suite.pairedAgent();
    const today = new Date().toISOString().slice(0, 10);
    agent.send({ type: 'usage_report', linux_username: 'kid', date: today, seconds_used: 60 });
    await settled(agent);
    const shown = await device(agent.systemId);
    assert.equal(typeof shown.last_usage_at, 'string');
    assert.equal(shown.last_inventory_at, null);
  });

  test('another household cannot see the device or its overlays', async () => {
    const { agent } = await suite.pairedAgent();
    agent.send({
      type: 'overlay_status',
      overlays: [{ linux_username: 'kid', reason: 'sleep', since: new Date().toISOString() }],
    });
    await settled(agent);
    const other = await createHousehold(ctx.server, 'Elsewhere');
    const res = await other.client.get(`/api/devices/${agent.systemId}`);
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'not_found');
    const listed = (await other.client.get('/api/devices')).body.items;
    assert.ok(!listed.some((d: { system_id: string }) => d.system_id === agent.systemId));
  });

  test('malformed statuses are refused with error frames, the socket kept and the stored state unchanged', async () => {
    const { agent } = await suite.pairedAgent();
    const since = new Date().toISOString();
    agent.send({ type: 'overlay_status', overlays: [{ linux_username: 'kid', reason: 'filtered', since }] });
    await settled(agent);
    const refused = async (frame: unknown, code: string) => {
      const answer = agent.waitFor('error');
      agent.send(frame);
      const error = await answer;
      assert.equal(error.code, code, JSON.stringify(error));
    };
    const entry = (over: Record<string, unknown> = {}) => ({
      linux_username: 'kid',
      reason: 'locked',
      since,
      ...over,
    });
    await refused({ type: 'overlay_status', overlays: [entry({ reason: 'bored' })] }, 'invalid_message');
    await refused(
      { type: 'overlay_status', overlays: [entry({ linux_username: 'stranger' })] },
      'unknown_account',
    );
    await refused(
      { type: 'overlay_status', overlays: Array.from({ length: MAX_OVERLAY_ENTRIES + 1 }, () => entry()) },
      'invalid_message',
    );
    await refused({ type: 'overlay_status', overlays: [entry(), entry()] }, 'invalid_message');
    await refused({ type: 'overlay_status', overlays: [entry({ since: 'yesterday' })] }, 'invalid_message');
    await refused({ type: 'overlay_status' }, 'invalid_message');
    assert.equal(agent.state, 'authenticated');
    assert.deepEqual(
      (await device(agent.systemId)).overlays.map((o: { reason: string }) => o.reason),
      ['filtered'],
    );
  });

  test('unenrolling the device clears its overlay state', async () => {
    const { agent } = await suite.pairedAgent();
    agent.send({
      type: 'overlay_status',
      overlays: [{ linux_username: 'kid', reason: 'locked', since: new Date().toISOString() }],
    });
    await settled(agent);
    assert.equal((await device(agent.systemId)).overlays.length, 1);
    const closed = agent.waitForClose();
    assert.equal((await ctx.home.client.post(`/api/device/${agent.systemId}/unenroll`)).status, 200);
    await closed;
    const shown = await device(agent.systemId);
    assert.equal(shown.status, 'unenrolled');
    assert.deepEqual(shown.overlays, []);
    assert.equal(shown.overlays_reported_at, null);
  });
});
