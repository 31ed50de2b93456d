import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import pino from 'pino';
import { type Task, WorkerLoop } from '../src/worker/loop.js';
import { addParent, Client, describeWithServer } from './helpers.js';

const silent = pino({ level: 'silent' });

describeWithServer('worker', { household: 'Worker home' }, (ctx) => {
  const loops: WorkerLoop[] = [];
  after(async () => {
    await Promise.all(loops.map((l) => l.stop()));
  });

  const counting = (name: string, log: string[], fail = false): Task => ({
    name,
    everyMs: 60_000,
    run: async () => {
      log.push(name);
      if (fail) throw new Error(`${name} broke`);
      return `${name} ok`;
    },
  });

  test('one worker at a time: the lease elects one loop, and another takes over when it stops', async () => {
    const ran: string[] = [];
    const first = new WorkerLoop([counting('alpha', ran)], ctx.server.services.worker, silent);
    const second = new WorkerLoop([counting('alpha', ran)], ctx.server.services.worker, silent);
    loops.push(first, second);
    await first.tick(Date.now());
    await second.tick(Date.now());
    assert.equal(first.isLeader, true);
    assert.equal(second.isLeader, false);
    assert.deepEqual(ran, ['alpha']);

    await first.stop();
    await second.tick(Date.now());
    assert.equal(second.isLeader, true);
    assert.deepEqual(ran, ['alpha', 'alpha']);
    await second.stop();
  });

  test('task-status shows the heartbeat and each task: last run, duration, result, error, counts', async () => {
    const ran: string[] = [];
    const loop = new WorkerLoop(
      [counting('beta', ran), counting('gamma', ran, true)],
      ctx.server.services.worker,
      silent,
    );
    loops.push(loop);
    await loop.tick(Date.now());
    const res = await ctx.home.client.get('/api/task-status');
    assert.equal(res.status, 200);
    assert.equal(res.body.worker.alive, true);
    assert.equal(res.body.worker.holder, loop.holder);
    const beta = res.body.tasks.find((t: { name: string }) => t.name === 'beta');
    assert.equal(beta.last_result, 'beta ok');
    assert.equal(beta.last_error, null);
    assert.equal(beta.runs, 1);
    assert.equal(typeof beta.last_duration_ms, 'number');
    assert.ok(beta.last_run_at);
    const gamma = res.body.tasks.find((t: { name: string }) => t.name === 'gamma');
    assert.equal(gamma.last_error, 'gamma broke');
    assert.equal(gamma.failures, 1);
    await loop.stop();
  });

  test('POST /restart-tasks makes the worker run every task again at once; GET is refused', async () => {
    const ran: string[] = [];
    const loop = new WorkerLoop([counting('delta', ran)], ctx.server.services.worker, silent);
    loops.push(loop);
    const t0 = Date.now();
    await loop.tick(t0);
    await loop.tick(t0 + 1000); // not due again for a minute
    assert.deepEqual(ran, ['delta']);
    const res = await ctx.home.client.post('/restart-tasks');
    assert.equal(res.status, 200);
    assert.equal(res.body.restart_requested, true);
    await loop.tick(t0 + 6000); // lease renewal sees the request
    assert.deepEqual(ran, ['delta', 'delta']);
    const get = await ctx.home.client.get('/restart-tasks');
    assert.equal(get.status, 405);
    assert.equal(get.body.error.code, 'method_not_allowed');
    const noCsrf = await ctx.home.client.request('POST', '/restart-tasks', { csrf: false });
    assert.equal(noCsrf.status, 403);
    const member = await addParent(ctx.server, ctx.home, 'member');
    assert.equal((await member.post('/restart-tasks')).status, 403);
    assert.equal((await new Client(ctx.server.url).post('/restart-tasks')).status, 401);
    await loop.stop();
  });

  test('the default tasks prune alerts past retention and expired commands', async () => {
    const { defaultTasks } = await import('../src/worker/loop.js');
    const loop = new WorkerLoop(defaultTasks(ctx.server.services), ctx.server.services.worker, silent);
    loops.push(loop);
    await loop.tick(Date.now());
    const status = (await ctx.home.client.get('/api/task-status')).body;
    const names = status.tasks.map((t: { name: string }) => t.name);
    for (const name of ['prune-idle-sessions', 'prune-alerts', 'expire-command-queue'])
      assert.ok(names.includes(name), name);
    assert.match(
      status.tasks.find((t: { name: string }) => t.name === 'prune-alerts').last_result,
      /older than 90 days/,
    );
    await loop.stop();
  });
});
