import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  Client,
  createHousehold,
  describeWithServer,
  PASSWORD,
  startTestServer,
  type TestServer,
  testDatabases,
} from './helpers.js';

/** Posts one sign-in per password, all at once on their own connections; answers in the same order. */
async function burst(urls: string[], username: string, passwords: string[]) {
  return Promise.all(
    passwords.map(async (password, i) => {
      const res = await fetch(`${urls[i % urls.length]}/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username, password }),
      });
      await res.arrayBuffer();
      return { status: res.status, retryAfter: res.headers.get('retry-after') };
    }),
  );
}

const count = (replies: { status: number }[], status: number) =>
  replies.filter((r) => r.status === status).length;

/** 300 wrong passwords, in parallel; exactly ten are checked, the rest answer 429 with Retry-After. */
async function assertParallelLockout(urls: string[], username: string) {
  const replies = await burst(
    urls,
    username,
    Array.from({ length: 300 }, (_, i) => `wrong password number ${i}`),
  );
  assert.equal(count(replies, 401), 10, `statuses: ${JSON.stringify(replies.map((r) => r.status))}`);
  assert.equal(count(replies, 429), 290);
  for (const r of replies.filter((x) => x.status === 429)) {
    const wait = Number(r.retryAfter);
    assert.ok(wait >= 1 && wait <= 60, `Retry-After ${r.retryAfter}`);
  }
}

/** A burst of 299 wrong passwords whose last request has the right one: it must not sign in. */
async function assertRightPasswordLastIsRefused(urls: string[], username: string) {
  const passwords = Array.from({ length: 299 }, (_, i) => `wrong password number ${i}`);
  const replies = await burst(urls, username, [...passwords, PASSWORD]);
  const last = replies.at(-1);
  assert.equal(last?.status, 429, `the right password at the end of the burst answered ${last?.status}`);
  assert.equal(count(replies, 200), 0);
  assert.equal(count(replies, 401), 10);
}

describeWithServer('sign-in lockout under parallel requests (in-process counters)', {}, (ctx) => {
  test('300 parallel wrong sign-ins for one (IP, username): ten are checked, then 429', async () => {
    const owner = await createHousehold(ctx.server, 'Burst home');
    await assertParallelLockout([ctx.server.url], owner.username);
    // The pair stays locked for the right password; another username from the same address is not.
    assert.equal((await new Client(ctx.server.url).signIn(owner.username, PASSWORD)).status, 429);
    const other = await createHousehold(ctx.server, 'Bystander home');
    assert.equal((await new Client(ctx.server.url).signIn(other.username, PASSWORD)).status, 200);
  });

  test('a burst whose last request has the right password does not sign in', async () => {
    const owner = await createHousehold(ctx.server, 'Last-right home');
    await assertRightPasswordLastIsRefused([ctx.server.url], owner.username);
  });

  test('successful sign-ins do not count as failures', async () => {
    const owner = await createHousehold(ctx.server, 'Often home');
    const c = new Client(ctx.server.url);
    for (let i = 0; i < 9; i++) assert.equal((await c.signIn(owner.username, `nope ${i}`)).status, 401);
    for (let i = 0; i < 15; i++) assert.equal((await c.signIn(owner.username, PASSWORD)).status, 200);
    assert.equal((await c.signIn(owner.username, 'tenth failure')).status, 401);
    assert.equal((await c.signIn(owner.username, PASSWORD)).status, 429);
  });
});

const redisUrl = process.env.HEARTH_TEST_REDIS_URL;
const redisSkip = redisUrl ? undefined : 'HEARTH_TEST_REDIS_URL is not set';
if (redisSkip) console.log(`# skipping the shared-counter lockout tests: ${redisSkip}`);

describe('sign-in lockout across two instances sharing Redis', { skip: redisSkip }, () => {
  // The database both instances share: PostgreSQL when the run has one, else one SQLite file.
  const db = testDatabases().at(-1);
  let a: TestServer;
  let b: TestServer;

  before(async () => {
    a = await startTestServer(db, { HEARTH_REDIS_URL: redisUrl ?? '' });
    // The second instance leaves the shared storage to the first, which removes it last.
    b = await startTestServer(db, { ...a.storageEnv, HEARTH_REDIS_URL: redisUrl ?? '' }, { keep: true });
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  test('300 parallel wrong sign-ins spread over both instances: ten are checked, then 429', async () => {
    // Redis counters outlive a run by a minute, so every run signs in under names of its own.
    const owner = await createHousehold(a, 'Shared burst home');
    await assertParallelLockout([a.url, b.url], owner.username);
    assert.equal((await new Client(b.url).signIn(owner.username, PASSWORD)).status, 429);
  });

  test('the right password last in a burst over both instances does not sign in', async () => {
    const owner = await createHousehold(a, 'Shared last-right home');
    await assertRightPasswordLastIsRefused([a.url, b.url], owner.username);
  });
});
