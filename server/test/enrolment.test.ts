import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ENROLMENT_HELLOS_PER_MINUTE, MAX_PENDING_DEVICES } from '@hearth/protocol';
import { type Frame, SimAgent, type SimAgentOptions } from '../../bench/src/simulator.js';
import {
  createDevice,
  createHousehold,
  describeWithServer,
  enrollmentToken,
  type Household,
  startTestServer,
} from './helpers.js';

describeWithServer('enrolment', { household: 'Enrolment home' }, (ctx) => {
  const agents: SimAgent[] = [];
  const agent = (options: Partial<SimAgentOptions>) => {
    const a = new SimAgent({ url: ctx.server.wsUrl, linuxUsers: [{ username: 'ann' }], ...options });
    agents.push(a);
    return a;
  };
  const paired = async (owner: Household) => {
    const a = agent({ enrollmentToken: await enrollmentToken(owner) });
    await a.connect();
    const approved = a.waitFor('pairing_approved');
    assert.equal((await owner.client.post(`/api/device/approve/${a.systemId}`)).status, 200);
    await approved;
    return a;
  };
  after(() => Promise.all(agents.map((a) => a.stop())));

  test('the enrolment token cannot take over an approved device: refused 4401, the device keeps its status, socket and token', async () => {
    const real = await paired(ctx.home);
    const thief = agent({ systemId: real.systemId, enrollmentToken: await enrollmentToken(ctx.home) });
    assert.deepEqual(await thief.connect(), {
      type: 'auth_result',
      success: false,
      error: 'device_already_paired',
    });
    const closed = await thief.waitForClose();
    assert.equal(closed.code, 4401);
    assert.match(closed.reason, /unenrol/);

    const device = (await ctx.home.client.get(`/api/devices/${real.systemId}`)).body;
    assert.equal(device.status, 'approved');
    assert.equal(device.online, true);
    assert.equal(real.state, 'authenticated', 'the real device keeps its socket');
    const pending = (await ctx.home.client.get('/api/devices/pending')).body.items;
    assert.equal(
      pending.some((d: { system_id: string }) => d.system_id === real.systemId),
      false,
    );
    // Its token still works, over the socket and as a bearer.
    const bearer = { authorization: `Bearer ${real.secureToken}` };
    assert.equal((await ctx.home.client.get('/api/agent/accounts', bearer)).status, 200);
    await real.stop();
    const back = agent({ systemId: real.systemId, secureToken: real.secureToken });
    assert.deepEqual(await back.connect(), { type: 'auth_result', success: true, system_id: real.systemId });
  });

  test('after a parent unenrols it, the same device may enrol again as pending; a rejected one stays out', async () => {
    const a = await paired(ctx.home);
    const token = await enrollmentToken(ctx.home);
    const closed = a.waitForClose();
    assert.equal((await ctx.home.client.post(`/api/device/${a.systemId}/unenroll`)).status, 200);
    assert.equal((await closed).code, 4403);
    const again = agent({ systemId: a.systemId, enrollmentToken: token });
    assert.deepEqual(await again.connect(), { type: 'pairing_status', status: 'pending' });

    const rejected = agent({ enrollmentToken: token });
    await rejected.connect();
    const gone = rejected.waitForClose();
    await ctx.home.client.post(`/api/device/reject/${rejected.systemId}`);
    assert.equal((await gone).code, 4403);
    const retry = agent({ systemId: rejected.systemId, enrollmentToken: token });
    assert.deepEqual(await retry.connect(), { type: 'pairing_status', status: 'rejected' });
  });

  test(`a household holds at most ${MAX_PENDING_DEVICES} waiting devices: the next new device is refused 4429 and not stored`, async () => {
    const owner = await createHousehold(ctx.server, 'Crowded');
    for (let i = 0; i < MAX_PENDING_DEVICES; i++)
      await createDevice(ctx.server, owner.householdId, { status: 'pending', secure_token_hash: null });
    const token = await enrollmentToken(owner);
    const extra = agent({ enrollmentToken: token });
    assert.deepEqual(await extra.connect(), {
      type: 'auth_result',
      success: false,
      error: 'too_many_pending',
    });
    const closed = await extra.waitForClose();
    assert.equal(closed.code, 4429);
    assert.match(closed.reason, /waiting/);
    assert.equal((await owner.client.get(`/api/devices/${extra.systemId}`)).status, 404);
    const pending = (await owner.client.get('/api/devices/pending')).body.items;
    assert.equal(pending.length, MAX_PENDING_DEVICES);

    // A device already waiting may still say hello again (it adds nothing to the list).
    const waiting = pending[0].system_id as string;
    const known = agent({ systemId: waiting, enrollmentToken: token });
    assert.deepEqual(await known.connect(), { type: 'pairing_status', status: 'pending' });
    await known.stop();

    // Once a parent decides one, a new device fits again.
    await owner.client.post(`/api/device/reject/${pending[1].system_id}`);
    const fits = agent({ enrollmentToken: token });
    assert.deepEqual(await fits.connect(), { type: 'pairing_status', status: 'pending' });
  });

  test('the waiting-device cap holds when many new devices say hello at once', async () => {
    const owner = await createHousehold(ctx.server, 'Rush');
    const room = 5;
    for (let i = 0; i < MAX_PENDING_DEVICES - room; i++)
      await createDevice(ctx.server, owner.householdId, { status: 'pending', secure_token_hash: null });
    const token = await enrollmentToken(owner);
    const rush = Array.from({ length: 45 }, () => agent({ enrollmentToken: token }));
    const answers = await Promise.all(rush.map((a) => a.connect()));
    assert.equal(answers.filter((f) => f.type === 'pairing_status').length, room);
    assert.equal(answers.filter((f) => f.error === 'too_many_pending').length, rush.length - room);
    assert.equal((await owner.client.get('/api/devices/pending')).body.items.length, MAX_PENDING_DEVICES);
  });

  test('two hellos for the same new device at once: one device, no internal error', async () => {
    const owner = await createHousehold(ctx.server, 'Twins');
    const token = await enrollmentToken(owner);
    const systemId = crypto.randomUUID();
    const twins = [0, 1, 2, 3].map(() => agent({ systemId, enrollmentToken: token }));
    // Each gets an answer (a socket left without one fails here rather than hanging).
    const answers = await Promise.all(
      twins.map((a) =>
        Promise.race([
          a.connect(),
          a.waitFor('error', 10_000).then((f) => ({ type: 'unanswered', error: f }) as Frame),
        ]),
      ),
    );
    // Pending, or (when another hello created the device meanwhile) asked to try again, close 1013.
    for (const [i, answer] of answers.entries()) {
      if (answer.type === 'pairing_status') continue;
      assert.deepEqual(answer, { type: 'auth_result', success: false, error: 'try_again' });
      assert.equal((await twins[i]?.waitForClose())?.code, 1013);
    }
    assert.ok(answers.some((a) => a.type === 'pairing_status'));
    assert.equal(
      twins.some((a) => a.frames.some((f) => f.type === 'error')),
      false,
      'no error frame',
    );
    const pending = (await owner.client.get('/api/devices/pending')).body.items;
    assert.deepEqual(
      pending.map((d: { system_id: string }) => d.system_id),
      [systemId],
    );
  });

  test(`enrolment hellos are limited to ${ENROLMENT_HELLOS_PER_MINUTE.household} a minute per household`, async () => {
    const owner = await createHousehold(ctx.server, 'Busy');
    const token = await enrollmentToken(owner);
    const systemId = crypto.randomUUID();
    let answer: Frame | null = null;
    let attempts = 0;
    // The same device saying hello again and again: each hello counts.
    for (; attempts <= ENROLMENT_HELLOS_PER_MINUTE.household; attempts++) {
      const a = new SimAgent({ url: ctx.server.wsUrl, systemId, enrollmentToken: token });
      answer = await a.connect();
      if (answer.type !== 'pairing_status') {
        assert.equal((await a.waitForClose()).code, 4429);
        break;
      }
      await a.stop();
    }
    assert.equal(attempts, ENROLMENT_HELLOS_PER_MINUTE.household);
    assert.deepEqual(answer, { type: 'auth_result', success: false, error: 'rate_limited' });
    // Another household is not held back.
    const other = agent({ enrollmentToken: await enrollmentToken(ctx.home) });
    assert.deepEqual(await other.connect(), { type: 'pairing_status', status: 'pending' });
  });
});

test(`enrolment hellos are limited to ${ENROLMENT_HELLOS_PER_MINUTE.address} a minute per client address, wrong tokens included`, async () => {
  const server = await startTestServer();
  try {
    await createHousehold(server, 'Guessed');
    let closed = { code: 0, reason: '' };
    let attempts = 0;
    for (; attempts <= ENROLMENT_HELLOS_PER_MINUTE.address; attempts++) {
      const a = new SimAgent({ url: server.wsUrl, enrollmentToken: `guess-${attempts}` });
      await a.connect();
      closed = await a.waitForClose();
      if (closed.code !== 4401) break;
    }
    assert.equal(attempts, ENROLMENT_HELLOS_PER_MINUTE.address);
    assert.equal(closed.code, 4429);
    assert.match(closed.reason, /too many/);
  } finally {
    await server.close();
  }
});
