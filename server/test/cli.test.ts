import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { openDatabase } from '../src/platform/db/database.js';
import { Client, freePort } from './helpers.js';

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/cli.ts');

function run(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--conditions=hearth-source', '--import', 'tsx', cli, ...args], {
      env: { ...process.env, HEARTH_LOG_LEVEL: 'warn', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function waitForHealth(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 150; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not become healthy');
}

describe('the hearth CLI', () => {
  const dirs: string[] = [];
  const dataDir = () => {
    const d = mkdtempSync(path.join(tmpdir(), 'hearth-cli-'));
    dirs.push(d);
    return d;
  };
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test('--help lists the commands', async () => {
    const res = await run(['--help'], {});
    assert.equal(res.code, 0);
    for (const command of ['serve', 'worker', 'migrate', 'create-admin'])
      assert.match(res.stdout, new RegExp(command));
  });

  test('bad configuration stops start-up with one line per problem', async () => {
    const res = await run(['serve'], {
      HEARTH_DATA_DIR: dataDir(),
      HEARTH_PORT: 'abc',
      HEARTH_OPEN_SIGNUP: 'perhaps',
    });
    assert.equal(res.code, 1);
    assert.match(res.stderr, /HEARTH_PORT must be a port number/);
    assert.match(res.stderr, /HEARTH_OPEN_SIGNUP must be a boolean/);
  });

  test('an unknown command says so', async () => {
    const res = await run(['explode'], { HEARTH_DATA_DIR: dataDir() });
    assert.equal(res.code, 1);
    assert.match(res.stderr, /Unknown command "explode"/);
  });

  test('migrate applies the schema once; create-admin makes an owner who can sign in to serve', async () => {
    const dir = dataDir();
    const first = await run(['migrate'], { HEARTH_DATA_DIR: dir });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /Applied migrations: 0001-foundation/);
    const second = await run(['migrate'], { HEARTH_DATA_DIR: dir });
    assert.match(second.stdout, /up to date/);

    const short = await run(['create-admin', '--username', 'mum', '--password', 'short'], {
      HEARTH_DATA_DIR: dir,
    });
    assert.equal(short.code, 1);
    assert.match(short.stderr, /at least 12 characters/);
    const made = await run(['create-admin', '--username', 'mum', '--password', 'a long enough password'], {
      HEARTH_DATA_DIR: dir,
    });
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stdout, /Created household "Home" with owner mum/);
    const admin = await run(['create-admin', '--username', 'dad'], {
      HEARTH_DATA_DIR: dir,
      HEARTH_ADMIN_PASSWORD: 'another long password',
    });
    assert.equal(admin.code, 0, admin.stderr);
    assert.match(admin.stdout, /Added dad as admin of household "Home"/);

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, ['--conditions=hearth-source', '--import', 'tsx', cli, 'serve'], {
      env: { ...process.env, HEARTH_DATA_DIR: dir, HEARTH_PORT: String(port), HEARTH_LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    // Listened for from the start: a server that ended early (its port taken meanwhile) still answers here.
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitForHealth(url, child);
      const dad = new Client(url);
      const res = await dad.signIn('dad', 'another long password');
      assert.equal(res.status, 200);
      assert.equal(res.body.role, 'admin');
      assert.equal(res.body.household.name, 'Home');
    } finally {
      child.kill('SIGTERM');
      assert.equal(await exited, 0, 'graceful shutdown exits 0');
    }
  });

  test('serve refuses a database written by a newer Hearth', async () => {
    const dir = dataDir();
    assert.equal((await run(['migrate'], { HEARTH_DATA_DIR: dir })).code, 0);
    const db = openDatabase({ databaseUrl: null, dataDir: dir });
    await sql`insert into kysely_migration (name, timestamp) values ('9999-future', '2030-01-01T00:00:00.000Z')`.execute(
      db.kysely,
    );
    await db.close();
    const res = await run(['serve'], { HEARTH_DATA_DIR: dir, HEARTH_PORT: String(await freePort()) });
    assert.equal(res.code, 1);
    assert.match(res.stderr, /newer than this version of Hearth/);
  });
});
