import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { Client, createHousehold, describeWithServer, PASSWORD, startTestServer } from './helpers.js';

const modeOf = (file: string) => statSync(file).mode & 0o777;
const octal = (mode: number) => mode.toString(8);

const parent = mkdtempSync(path.join(tmpdir(), 'hearth-modes-'));
after(() => rmSync(parent, { recursive: true, force: true }));

/** Every file Hearth keeps in the data directory, each with the mode it must have. */
function assertPrivate(dataDir: string) {
  assert.equal(octal(modeOf(dataDir)), '700', 'the data directory');
  for (const name of ['hearth.db', 'hearth.db-wal', 'hearth.db-shm', 'secret.key']) {
    assert.equal(octal(modeOf(path.join(dataDir, name))), '600', name);
  }
}

test('a new data directory is 0700 and the database, its WAL and shared memory and the key are 0600', async () => {
  const dataDir = path.join(parent, 'fresh', 'data');
  const server = await startTestServer(undefined, { HEARTH_DATA_DIR: dataDir });
  try {
    // A write, so the WAL certainly exists.
    await createHousehold(server, 'Modes home');
    assertPrivate(dataDir);
  } finally {
    await server.close();
  }
});

test('a data directory left readable by others is tightened at start-up', async () => {
  const dataDir = path.join(parent, 'loose');
  const first = await startTestServer(undefined, { HEARTH_DATA_DIR: dataDir }, { keep: true });
  await createHousehold(first, 'Loose home');
  await first.close();
  chmodSync(dataDir, 0o755);
  writeFileSync(path.join(dataDir, 'hearth.db-wal'), '', { flag: 'a' });
  writeFileSync(path.join(dataDir, 'hearth.db-shm'), '', { flag: 'a' });
  for (const name of ['hearth.db', 'hearth.db-wal', 'hearth.db-shm', 'secret.key'])
    chmodSync(path.join(dataDir, name), 0o644);
  writeFileSync(path.join(dataDir, 'notes.txt'), 'left here', { mode: 0o664 });

  const second = await startTestServer(undefined, { HEARTH_DATA_DIR: dataDir });
  try {
    assertPrivate(dataDir);
    assert.equal(octal(modeOf(path.join(dataDir, 'notes.txt'))), '600', 'any other file');
    // Still the same database.
    assert.equal((await new Client(second.url).get('/api/setup')).body.setup_required, false);
  } finally {
    await second.close();
  }
});

describeWithServer('open sign-up is limited per address', { env: { HEARTH_OPEN_SIGNUP: 'true' } }, (ctx) => {
  test('five sign-ups an hour from one address, then 429 with Retry-After', async () => {
    const signUp = (i: number) =>
      new Client(ctx.server.url).post('/api/signup', {
        username: `family${i}_${Math.random().toString(36).slice(2, 7)}`,
        password: PASSWORD,
        household_name: `Family ${i}`,
      });
    // A body that fails validation costs nothing and is not counted.
    const invalid = await new Client(ctx.server.url).post('/api/signup', { username: 'x' });
    assert.equal(invalid.status, 400);
    for (let i = 0; i < 5; i++) assert.equal((await signUp(i)).status, 201, `sign-up ${i + 1}`);
    const refused = await signUp(6);
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.code, 'rate_limited');
    assert.match(refused.body.error.message, /sign-ups from this address/);
    const wait = Number(refused.headers.get('retry-after'));
    assert.ok(wait > 3500 && wait <= 3600, `Retry-After ${wait}`);
  });
});
