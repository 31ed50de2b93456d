import path from 'node:path';
import { parseArgs } from 'node:util';
import { HEARTH_VERSION } from '@hearth/protocol';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { type Config, ConfigError, loadConfig, loadDotEnv } from './config.js';
import { SessionRepository } from './features/auth/repository.js';
import { AuthService } from './features/auth/service.js';
import { HouseholdRepository } from './features/household/repository.js';
import { MemoryBus } from './platform/bus.js';
import { nowIso } from './platform/clock.js';
import { hashPassword, newId } from './platform/crypto.js';
import { migrateToLatest, openDatabase, SchemaTooNewError } from './platform/db/database.js';
import { MemoryCounterStore } from './platform/rate-limit.js';
import { ReadCache } from './platform/read-cache.js';
import { startServer } from './server.js';
import { buildServices } from './services.js';
import { defaultTasks, WorkerLoop } from './worker/loop.js';

const USAGE = `Hearth ${HEARTH_VERSION}: family device management

Usage: hearth <command> [options]

Commands:
  serve [--no-worker]     Run the web server (REST, agent socket, admin UI) and the worker
  worker                  Run only the worker loop
  migrate                 Apply database migrations and exit
  create-admin            Create a parent with admin rights
      --username NAME       sign-in name (required)
      --password PASS       at least 12 characters (or set HEARTH_ADMIN_PASSWORD)
      --household ID        household to join (default: the only one; a new "Home" if none)
      --role owner|admin    default: owner for a new household, admin otherwise

Configuration comes from HEARTH_* environment variables (and a .env file); see README.md.`;

function onShutdown(close: () => Promise<void>, log: pino.Logger): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    close()
      .then(() => process.exit(0))
      .catch((err) => {
        log.error({ err }, 'error during shutdown');
        process.exit(1);
      });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

async function serve(config: Config, withWorker: boolean) {
  const server = await startServer(config, { worker: withWorker });
  server.app.log.info(
    `Hearth ${HEARTH_VERSION} listening on ${server.url} (${server.services.db.dialect}${withWorker ? ', with worker' : ''})`,
  );
  onShutdown(() => server.close(), server.app.log as unknown as pino.Logger);
}

async function worker(config: Config) {
  const log = pino({ level: config.logLevel });
  const db = openDatabase(config);
  await migrateToLatest(db);
  const services = buildServices(config, db, log as unknown as FastifyBaseLogger);
  await services.cache.start();
  const loop = new WorkerLoop(defaultTasks(services), services.worker, log as unknown as FastifyBaseLogger);

  loop.start();
  log.info('Hearth worker running');
  onShutdown(async () => {
    await loop.stop();
    await services.close();
    await db.close();
  }, log);
}

async function migrate(config: Config) {
  const db = openDatabase(config);
  try {
    const applied = await migrateToLatest(db);
    console.log(applied.length ? `Applied migrations: ${applied.join(', ')}` : 'The database is up to date.');
  } finally {
    await db.close();
  }
}

async function createAdmin(config: Config, args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      username: { type: 'string' },
      password: { type: 'string' },
      household: { type: 'string' },
      role: { type: 'string' },
    },
  });
  const username = values.username?.trim();
  const password = values.password ?? process.env.HEARTH_ADMIN_PASSWORD ?? '';
  if (!username) throw new UsageError('create-admin needs --username');
  if (password.length < 12)
    throw new UsageError(
      'create-admin needs a password of at least 12 characters (--password or HEARTH_ADMIN_PASSWORD)',
    );
  if (values.role && values.role !== 'owner' && values.role !== 'admin')
    throw new UsageError('--role must be owner or admin');
  const db = openDatabase(config);
  try {
    await migrateToLatest(db);
    const repo = new HouseholdRepository(db.kysely);
    const household = values.household
      ? await repo.getHousehold(values.household)
      : await repo.firstHousehold();
    if (values.household && !household) throw new UsageError(`No household has id ${values.household}`);
    if (!household) {
      const auth = new AuthService(
        new SessionRepository(db),
        repo,
        new MemoryCounterStore(),
        new ReadCache(new MemoryBus()),
      );
      await auth.createHouseholdWithOwner({ username, password, household_name: 'Home' }, false);
      console.log(`Created household "Home" with owner ${username}.`);
      return;
    }
    if (await repo.usernameTaken(username.toLowerCase()))
      throw new UsageError(`The username ${username} is already taken`);
    const at = nowIso();
    await repo.insertParent({
      id: newId(),
      household_id: household.id,
      username,
      username_key: username.toLowerCase(),
      password_hash: await hashPassword(password),
      role: (values.role as 'owner' | 'admin' | undefined) ?? 'admin',
      created_at: at,
      updated_at: at,
    });
    console.log(`Added ${username} as ${values.role ?? 'admin'} of household "${household.name}".`);
  } finally {
    await db.close();
  }
}

class UsageError extends Error {}

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE);
    return;
  }
  if (command === '--version' || command === '-v') {
    console.log(HEARTH_VERSION);
    return;
  }
  loadDotEnv(path.resolve('.env'));
  try {
    const config = loadConfig();
    if (command === 'serve') {
      const { values } = parseArgs({ args: rest, options: { 'no-worker': { type: 'boolean' } } });
      await serve(config, !values['no-worker']);
    } else if (command === 'worker') await worker(config);
    else if (command === 'migrate') await migrate(config);
    else if (command === 'create-admin') await createAdmin(config, rest);
    else throw new UsageError(`Unknown command "${command}". Run "hearth --help" for the list.`);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof UsageError || err instanceof SchemaTooNewError) {
      console.error(`hearth: ${err.message}`);
    } else if (err instanceof Error && 'code' in err && err.code === 'EADDRINUSE') {
      console.error(`hearth: the port is already in use (${err.message}); set HEARTH_PORT to another port.`);
    } else {
      console.error('hearth: failed to start:', err);
    }
    process.exit(1);
  }
}
