import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { type Bus, MemoryBus, RedisBus } from './bus.js';
import { ReadCache } from './read-cache.js';

const redisUrl = process.env.HEARTH_TEST_REDIS_URL;
if (!redisUrl)
  console.log(
    '# skipping the Redis read-cache test: HEARTH_TEST_REDIS_URL is not set (.ci/run sets it when Redis answers)',
  );

const loaded =
  (value: string, ...tags: string[]) =>
  async () => ({ value, tags });

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(condition(), what);
}

describe('read cache', () => {
  test('keeps a loaded value until a write invalidates one of its tags', async () => {
    const cache = new ReadCache(new MemoryBus());
    const space = cache.space<string>('children');
    let reads = 0;
    const load = async () => {
      reads++;
      return { value: `list ${reads}`, tags: ['children:h1', 'device:d1'] };
    };
    assert.equal(await space.load('h1', load), 'list 1');
    assert.equal(await space.load('h1', load), 'list 1');
    assert.equal(reads, 1);
    await cache.invalidate('device:d2');
    assert.equal(await space.load('h1', load), 'list 1', 'an unrelated tag leaves it');
    await cache.invalidate('device:d1');
    assert.equal(space.get('h1'), undefined);
    assert.equal(await space.load('h1', load), 'list 2');
  });

  test('never keeps a value read while an invalidation came in', async () => {
    const cache = new ReadCache(new MemoryBus());
    const space = cache.space<string>('session');
    let release: () => void = () => {};
    const slow = space.load('s1', async () => {
      await new Promise<void>((r) => {
        release = r;
      });
      return { value: 'read before the write', tags: ['session:s1'] };
    });
    await cache.invalidate('session:s1');
    release();
    assert.equal(await slow, 'read before the write', 'the caller still gets its read');
    assert.equal(space.get('s1'), undefined, 'but it is not kept');
  });

  test('spaces share tags but not keys', async () => {
    const cache = new ReadCache(new MemoryBus());
    const a = cache.space<string>('a');
    const b = cache.space<string>('b');
    await a.load('k', loaded('from a', 'device:d1'));
    await b.load('k', loaded('from b', 'mapping:m1'));
    assert.equal(a.get('k'), 'from a');
    assert.equal(b.get('k'), 'from b');
    await cache.invalidate('device:d1');
    assert.equal(a.get('k'), undefined);
    assert.equal(b.get('k'), 'from b');
  });

  test('entries expire after their lifetime, and the oldest go first when full', async () => {
    const cache = new ReadCache(new MemoryBus(), { ttlMs: 30, maxEntries: 2 });
    const space = cache.space<string>('x');
    await space.load('one', loaded('1', 't1'));
    await space.load('two', loaded('2', 't2'));
    await space.load('three', loaded('3', 't3'));
    assert.equal(cache.size, 2);
    assert.equal(space.get('one'), undefined);
    assert.equal(space.get('three'), '3');
    await new Promise((r) => setTimeout(r, 40));
    assert.equal(space.get('three'), undefined);
    assert.equal(cache.size, 1, 'an expired entry is removed when it is looked up');
  });

  const buses: { name: string; skip?: string; make: () => [Bus, Bus] }[] = [
    {
      name: 'in-process bus',
      make: () => {
        const bus = new MemoryBus();
        return [bus, bus];
      },
    },
    {
      name: 'Redis bus',
      skip: redisUrl ? undefined : 'HEARTH_TEST_REDIS_URL is not set',
      make: () => {
        const prefix = `hearth-test:${randomUUID()}:`;
        return [new RedisBus(redisUrl ?? '', prefix), new RedisBus(redisUrl ?? '', prefix)];
      },
    },
  ];
  for (const { name, skip, make } of buses) {
    test(`an invalidation reaches the other instances over the ${name}`, { skip }, async () => {
      const [busA, busB] = make();
      const a = new ReadCache(busA);
      const b = new ReadCache(busB);
      await a.start();
      await b.start();
      try {
        const onB = b.space<string>('bearer');
        await onB.load('token', loaded('device d1', 'device:d1'));
        await onB.load('other', loaded('device d2', 'device:d2'));
        await a.invalidate('device:d1');
        await until(() => onB.get('token') === undefined, 'B dropped the entry A invalidated');
        assert.equal(onB.get('other'), 'device d2');
      } finally {
        await a.close();
        await b.close();
        await busA.close();
        if (busB !== busA) await busB.close();
      }
    });
  }

  test('a break in the Redis subscription empties the cache', {
    skip: redisUrl ? undefined : 'HEARTH_TEST_REDIS_URL is not set',
  }, async () => {
    const prefix = `hearth-test:${randomUUID()}:`;
    const bus = new RedisBus(redisUrl ?? '', prefix);
    const admin = new Redis(redisUrl ?? '');
    const cache = new ReadCache(bus);
    try {
      await cache.start();
      const space = cache.space<string>('session');
      await space.load('s1', loaded('kept', 'session:s1'));
      // Whatever was published while the connection was down is lost: nothing cached can be trusted.
      const list = String(await admin.client('LIST'));
      const line = list.split('\n').find((l) => l.includes(` name=${prefix}sub `));
      const id = line?.match(/^id=(\d+)/)?.[1];
      assert.ok(id, 'the bus subscription is a Redis client of its own name');
      assert.equal(await admin.client('KILL', 'ID', id), 1);
      await until(() => space.get('s1') === undefined, 'the cache was emptied after the reconnect');
    } finally {
      await cache.close();
      await bus.close();
      await admin.quit();
    }
  });
});
