// `hearth-agent run`: the daemon. Builds the context, connects, and starts each part in order.

import { EventEmitter } from 'node:events';
import { type FSWatcher, watch } from 'node:fs';
import { hostname } from 'node:os';
import { humanAccounts } from './accounts.js';
import { browserPolicyModule } from './browser-policy.js';
import { Channel } from './channel.js';
import type { AgentContext, AgentEvents, AgentModule } from './context.js';
import { devicePolicyModule } from './device-policy/module.js';
import { domainPolicyModule } from './domain-policy.js';
import { forgetToken, readIdentity, readToken, writeIdentity, writeToken, wsUrlOf } from './identity.js';
import { inventoryModule } from './inventory/reporter.js';
import { ipcModule } from './ipc/server.js';
import type { Logger } from './log.js';
import { Outbox } from './outbox.js';
import { overlayModule } from './overlay/index.js';
import { type AgentPaths, underRoot } from './paths.js';
import { screenshotModule } from './screenshot/module.js';
import { StateStore } from './state.js';
import { timeModule } from './time/module.js';
import { AGENT_VERSION } from './version.js';

/** The error of a request written to a connection the other side had closed (ECONNRESET, EPIPE, …). */
function closedConnection(err: unknown): boolean {
  const cause = (err as { cause?: { code?: unknown } } | null)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : '';
  return ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'].includes(code);
}

export interface DaemonOptions {
  paths: AgentPaths;
  log: Logger;
  env?: NodeJS.ProcessEnv;
  /** The parts to run; the default is every part of the agent. */
  modules?: AgentModule[];
}

export interface RunningDaemon {
  ctx: AgentContext;
  channel: Channel;
  outbox: Outbox;
  stop(): Promise<void>;
}

/** Every part of the agent, in start order (stopped in reverse). */
export function defaultModules(): AgentModule[] {
  return [
    domainPolicyModule(),
    overlayModule(),
    ipcModule(),
    timeModule(),
    inventoryModule(),
    // The device policies before the browser part, which writes their browser rules from its start.
    devicePolicyModule(),
    browserPolicyModule(),
    screenshotModule(),
  ];
}

export function backoffFromEnv(env: NodeJS.ProcessEnv): { baseMs: number; maxMs: number } | undefined {
  const m = /^(\d+),(\d+)$/.exec(env.HEARTH_AGENT_BACKOFF_MS ?? '');
  return m ? { baseMs: Number(m[1]), maxMs: Number(m[2]) } : undefined;
}

/**
 * Resolves once the state directory holds an identity: a service installed before its enrolment (or
 * whose identity file was damaged) waits quietly instead of failing and being restarted in a loop.
 */
export function waitForIdentity(paths: AgentPaths, log: Logger, signal?: AbortSignal): Promise<void> {
  const state = new StateStore(paths.stateDir, log);
  state.ensure();
  if (readIdentity(state)) return Promise.resolve();
  log.warn('not enrolled yet: waiting for "hearth-agent enroll"', { state_dir: paths.stateDir });
  return new Promise((resolve) => {
    const done = () => {
      watcher.close();
      clearInterval(timer);
      resolve();
    };
    const check = () => {
      if (readIdentity(state)) done();
    };
    const watcher = watch(paths.stateDir, check);
    // Some file systems do not report changes; a slow look now and then covers them.
    const timer = setInterval(check, 30_000);
    signal?.addEventListener('abort', done, { once: true });
  });
}

export async function startDaemon(options: DaemonOptions): Promise<RunningDaemon> {
  const { paths, log } = options;
  const env = options.env ?? process.env;
  const state = new StateStore(paths.stateDir, log);
  state.ensure();
  const identity = readIdentity(state);
  if (!identity)
    throw new Error(
      `not enrolled: run "hearth-agent enroll --server URL --token T" first (state in ${paths.stateDir})`,
    );

  const outbox = new Outbox(state, log);
  const events = new EventEmitter<AgentEvents>();
  let clockOffset: number | null = null;
  const name = env.HEARTH_AGENT_HOSTNAME || hostname();

  const channel = new Channel({
    wsUrl: wsUrlOf(identity.server_url),
    log: log.child({ part: 'channel' }),
    hello: () => ({
      system_id: identity.system_id,
      hostname: name,
      platform: 'linux',
      agent_version: AGENT_VERSION,
      linux_users: humanAccounts(paths).map(({ username, display_name }) => ({
        username,
        ...(display_name ? { display_name } : {}),
      })),
    }),
    secureToken: () => readToken(state),
    enrollmentToken: () => identity.enrollment_token ?? null,
    backoff: backoffFromEnv(env),
  });

  const flush = () => void outbox.flush((msg) => channel.send(msg));
  channel.on('approved', (token) => {
    writeToken(state, token);
    delete identity.enrollment_token;
    writeIdentity(state, identity);
    log.info('device approved; token stored');
  });
  let since = new Date().toISOString();
  const writeRuntime = () =>
    state.write('status.json', {
      pid: process.pid,
      connected: channel.authenticated,
      since,
      outbox: outbox.size,
      overlays: ctx.overlay?.current() ?? [],
      device_policies: ctx.devicePolicies?.summary() ?? {},
    });
  channel.on('authenticated', () => {
    since = new Date().toISOString();
    events.emit('authenticated');
    flush();
    writeRuntime();
  });
  channel.on('disconnected', () => {
    if (since && channel.authenticated === false) since = new Date().toISOString();
    events.emit('disconnected');
    writeRuntime();
  });
  events.on('devicePolicyApplied', () => writeRuntime());
  channel.on('rejected', (code) => {
    if (code === 4403 && readToken(state)) {
      log.error('the server no longer knows this device; enrol it again');
      forgetToken(state);
    }
  });

  const ctx: AgentContext = {
    paths,
    log,
    state,
    version: AGENT_VERSION,
    hostname: name,
    systemId: identity.system_id,
    serverUrl: identity.server_url.replace(/\/+$/, ''),
    accounts: () => humanAccounts(paths),
    events,
    connected: () => channel.authenticated,
    onCommand: (command, handler) => channel.onCommand(command, handler),
    onPush: (type, handler) => channel.onPush(type, handler),
    async sendNow(frame) {
      if (!channel.authenticated) return false;
      try {
        await channel.send(frame);
        return true;
      } catch {
        return false;
      }
    },
    sendDurable(frame, key) {
      outbox.add(frame, key);
      if (channel.authenticated) flush();
    },
    async serverFetch(pathAndQuery, init = {}) {
      const token = readToken(state);
      if (!token) throw new Error('this device is not approved yet');
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${token}`);
      const started = Date.now();
      const send = () =>
        fetch(`${identity.server_url}${pathAndQuery}`, {
          ...init,
          headers,
          signal: init.signal ?? AbortSignal.timeout(30_000),
        });
      let res: Response;
      try {
        res = await send();
      } catch (err) {
        // A kept-alive connection the server closed while idle fails the first write; the request
        // never reached the server, so it is sent once more on a new connection.
        if (!closedConnection(err) || init.body instanceof ReadableStream) throw err;
        res = await send();
      }
      const date = res.headers.get('date');
      if (date) {
        const server = Date.parse(date);
        // Date has whole seconds; the midpoint of the round trip is our best guess of when it was read.
        if (Number.isFinite(server)) clockOffset = server + 500 - (started + Date.now()) / 2;
      }
      return res;
    },
    serverClockOffset: () => clockOffset,
  };

  // Accounts come and go (useradd replaces /etc/passwd): a new hello tells the server the new list.
  let helloAccounts = JSON.stringify(ctx.accounts());
  let accountsTimer: NodeJS.Timeout | null = null;
  const etc = underRoot(paths, '/etc');
  let passwdWatch: FSWatcher | null = null;
  try {
    passwdWatch = watch(etc, (_event, file) => {
      if (file !== 'passwd' || accountsTimer) return;
      accountsTimer = setTimeout(() => {
        accountsTimer = null;
        const now = JSON.stringify(ctx.accounts());
        if (now === helloAccounts) return;
        helloAccounts = now;
        log.info('the device accounts changed; saying hello again');
        channel.reconnect('accounts changed');
      }, 1000);
    });
  } catch (err) {
    log.warn('cannot watch the accounts file', { err });
  }

  channel.onCommand('unenroll', () => {
    log.warn('the server unenrolled this device');
    forgetToken(state);
    return {};
  });

  const modules = options.modules ?? defaultModules();
  const started: AgentModule[] = [];
  for (const module of modules) {
    await module.start(ctx);
    started.push(module);
  }
  channel.start();
  writeRuntime();
  const runtimeTimer = setInterval(writeRuntime, 60_000);
  runtimeTimer.unref();
  log.info('agent started', {
    version: AGENT_VERSION,
    system_id: identity.system_id,
    server: identity.server_url,
  });

  return {
    ctx,
    channel,
    outbox,
    async stop() {
      clearInterval(runtimeTimer);
      passwdWatch?.close();
      if (accountsTimer) clearTimeout(accountsTimer);
      await channel.stop();
      for (const module of started.reverse()) {
        try {
          await module.stop?.();
        } catch (err) {
          log.warn('part did not stop cleanly', { part: module.name, err });
        }
      }
      state.remove('status.json');
    },
  };
}
