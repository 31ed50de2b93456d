import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { type CounterStore, MemoryCounterStore, RedisCounterStore } from './rate-limit.js';

const redisUrl = process.env.HEARTH_TEST_REDIS_URL;
if (!redisUrl)
  console.log(
    '# skipping Redis counter tests: HEARTH_TEST_REDIS_URL is not set (.ci/run sets it when Redis answers)',
  );

const stores: {
  name: string;
  make: () => { store: CounterStore; cleanup: () => Promise<void> };
  skip?: string;
}[] = [
  { name: 'memory', make: () => ({ store: new MemoryCounterStore(), cleanup: async () => {} }) },
  {
    name: 'redis',
    skip: redisUrl ? undefined : 'HEARTH_TEST_REDIS_URL is not set',
    make: () => {
      const redis = new Redis(redisUrl ?? '', { maxRetriesPerRequest: 1 });
      const prefix = `hearth-test:${randomUUID()}:`;
      return {
        store: new RedisCounterStore(redis, prefix),
        cleanup: async () => {
          const keys = await redis.keys(`${prefix}*`);
          if (keys.length) await redis.del(...keys);
          await redis.quit();
        },
      };
    },
  },
];

for (const { name, make, skip } of stores) {
  describe(`${name} counter store`, { skip }, () => {
    const { store, cleanup } = skip
      ? { store: null as unknown as CounterStore, cleanup: async () => {} }
      : make();
    after(async () => {
      await store?.close();
      await cleanup();
    });

    test('counts hits in a window and reports when it ends', async () => {
      assert.equal(await store.peek('a'), null);
      const first = await store.hit('a', 60_000);
      assert.equal(first.count, 1);
      assert.ok(first.resetAt > Date.now() + 55_000 && first.resetAt <= Date.now() + 60_000);
      await store.hit('a', 60_000);
      const third = await store.hit('a', 60_000);
      assert.equal(third.count, 3);
      assert.equal((await store.peek('a'))?.count, 3);
      assert.equal(await store.peek('b'), null);
    });

    test('release takes back one hit of the open window, never below zero, never reviving a window', async () => {
      await store.hit('r', 60_000);
      await store.hit('r', 60_000);
      await store.release('r');
      assert.equal((await store.peek('r'))?.count, 1);
      await store.release('r');
      await store.release('r');
      assert.equal((await store.peek('r'))?.count ?? 0, 0);
      assert.equal((await store.hit('r', 60_000)).count, 1);
      await store.release('never-hit');
      assert.equal(await store.peek('never-hit'), null);
      assert.equal((await store.hit('never-hit', 60_000)).count, 1);
      // A window that passed stays passed: the next hit starts from one.
      await store.hit('gone', 100);
      for (let i = 0; i < 100 && (await store.peek('gone')); i++) await new Promise((r) => setTimeout(r, 20));
      await store.release('gone');
      assert.equal((await store.hit('gone', 60_000)).count, 1);
      // Many hits at once: each sees its own count.
      const counts = await Promise.all(Array.from({ length: 50 }, () => store.hit('many', 60_000)));
      assert.deepEqual(
        counts.map((c) => c.count).sort((x, y) => x - y),
        Array.from({ length: 50 }, (_, i) => i + 1),
      );
    });

    test('a window that has passed starts again from one', async () => {
      await store.hit('short', 150);
      await store.hit('short', 150);
      await new Promise((r) => setTimeout(r, 250));
      assert.equal(await store.peek('short'), null);
      assert.equal((await store.hit('short', 150)).count, 1);
    });
  });
}
