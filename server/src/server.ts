import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import type { ChannelTimings } from './agent-channel/types.js';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { migrateToLatest, openDatabase } from './platform/db/database.js';
import { ensureSecretKey } from './platform/secret-key.js';
import { buildServices, type Services } from './services.js';
import type { HearthApp } from './types.js';
import { defaultTasks, WorkerLoop } from './worker/loop.js';

export interface RunningServer {
  app: HearthApp;
  services: Services;
  url: string;
  worker: WorkerLoop | null;
  close(): Promise<void>;
}

/** Opens storage, migrates, builds the app and listens; `close` undoes all of it in order. */
export async function startServer(
  config: Config,
  options: { worker?: boolean; log?: FastifyBaseLogger; timings?: Partial<ChannelTimings> } = {},
): Promise<RunningServer> {
  const log = options.log ?? (pino({ level: config.logLevel }) as FastifyBaseLogger);
  const db = openDatabase(config);
  try {
    await migrateToLatest(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  ensureSecretKey(config.dataDir, config.secretKey);
  const services = buildServices(config, db, log, options.timings);
  await services.cache.start();
  await services.channel.start();
  await services.eventHub.start();
  const app = await buildApp({ config, services });
  if (config.bootstrapAdmin) {
    const created = await services.auth.bootstrapAdmin(
      config.bootstrapAdmin.username,
      config.bootstrapAdmin.password,
    );
    if (created)
      app.log.info(
        { username: config.bootstrapAdmin.username },
        'created household "Home" and its owner from HEARTH_BOOTSTRAP_ADMIN',
      );
  }
  const worker =
    options.worker === false ? null : new WorkerLoop(defaultTasks(services), services.worker, log);

  let closed = false;
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await app.close();
    await services.close();
    await db.close();
    throw err;
  }
  worker?.start();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    app,
    services,
    worker,
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    async close() {
      if (closed) return;
      closed = true;
      await worker?.stop();
      await services.channel.close();
      services.eventHub.endStreams();
      // Node closes the idle keep-alive connections once, when the close begins. One whose last
      // response (a streamed file) was still finishing then turns idle a moment later and would hold
      // the close for the whole keep-alive time (72 s), so idle connections are closed until it ends.
      const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
      try {
        await app.close();
      } finally {
        clearInterval(sweep);
      }
      await services.close();
      await db.close();
    },
  };
}
