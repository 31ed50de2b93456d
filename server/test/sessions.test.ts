import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { defaultTasks, WorkerLoop } from '../src/worker/loop.js';
import { createHousehold, describeWithServer, type TestServer } from './helpers.js';

/** Moves every session's last activity into the past, as if the parent had been away. */
async function ageSessions(server: TestServer, days: number) {
  const then = new Date(Date.now() - days * 86_400_000).toISOString();
  await server.services.db.kysely.updateTable('session').set({ last_seen_at: then }).execute();
  // Days pass in the database only: what the server read into memory would long have expired.
  server.services.cache.clear();
}

describeWithServer('session lifetime', {}, (ctx) => {
  test('a session idle for more than 7 days is gone; one used within 7 days lives on', async () => {
    const recent = await createHousehold(ctx.server, 'Recent');
    await ageSessions(ctx.server, 6);
    assert.equal((await recent.client.get('/api/users')).status, 200);
    await ageSessions(ctx.server, 8);
    const res = await recent.client.get('/api/users');
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'unauthenticated');
  });

  test('the worker prunes idle sessions from the database', async () => {
    const home = await createHousehold(ctx.server, 'Pruned');
    await ageSessions(ctx.server, 9);
    const loop = new WorkerLoop(
      defaultTasks(ctx.server.services),
      ctx.server.services.worker,
      pino({ level: 'silent' }),
    );
    await loop.tick();
    await loop.stop();
    const task = (await ctx.server.services.worker.status()).tasks.find(
      (t) => t.name === 'prune-idle-sessions',
    );
    assert.match(task?.last_result ?? '', /deleted [1-9]\d* idle sessions/);

    const left = await ctx.server.services.db.kysely.selectFrom('session').selectAll().execute();
    assert.equal(left.length, 0);
    assert.equal((await home.client.get('/api/users')).status, 401);
  });
});
