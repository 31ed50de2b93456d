// Everything the extension's browser tests run against, all real and all on loopback: the server (through a
// proxy that records every HTTP request the agent makes of it), an approved agent daemon for a child's
// account, the agent's native host registered in a fresh Chromium profile, Debian's Chromium with the
// built extension loaded, and web sites served under `.test` names that Chromium resolves to 127.0.0.1.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXTENSION_ID, NATIVE_HOST_NAME } from '@hearth/protocol';
import { type BrowserContext, chromium, type Page, type Worker } from 'playwright-core';
import { startApprovedAgent } from '../../agent/test/approved-agent.ts';
import { type AgentProcess, makeSysroot, type Sysroot } from '../../agent/test/harness.ts';
import {
  bounded,
  createHousehold,
  type Household,
  startTestServer,
  type TestServer,
  within,
} from '../../server/test/helpers.ts';
import type { ExtensionStatus } from '../src/messages.ts';

export const EXTENSION_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT = path.resolve(EXTENSION_DIR, '..');
export const DIST = path.join(EXTENSION_DIR, 'dist');
export const CHROMIUM = '/usr/bin/chromium';
export const CHILD = { username: 'mia', uid: 1000 };

/** Debian's Chromium or nothing: these tests never download a browser. */
export const skipReason = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing (apt-get install chromium)`;
if (skipReason) console.log(`# skipping the extension's browser tests: ${skipReason}`);

export const screenshotDir = path.join(
  process.env.HEARTH_SCREENSHOTS_DIR
    ? path.resolve(process.env.HEARTH_SCREENSHOTS_DIR)
    : path.join(ROOT, 'test-results', 'screenshots'),
  'extension',
);

function newest(target: string): number {
  if (!existsSync(target)) return 0;
  const s = statSync(target);
  if (!s.isDirectory()) return s.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(target)) latest = Math.max(latest, newest(path.join(target, entry)));
  return latest;
}

/** `npm test` builds first; a test file run on its own builds when the sources are newer than dist/. */
export function ensureBuilt(): void {
  const built = newest(path.join(DIST, 'manifest.json'));
  const sources = Math.max(
    newest(path.join(EXTENSION_DIR, 'src')),
    newest(path.join(EXTENSION_DIR, 'build.mjs')),
    newest(path.join(ROOT, 'overlay', 'dist', 'extension')),
    newest(path.join(ROOT, 'protocol', 'src')),
  );
  if (built && built >= sources) return;
  const r = spawnSync(process.execPath, [path.join(EXTENSION_DIR, 'build.mjs')], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('building the extension failed');
}

/**
 * Polls `test` (never a fixed wait): resolves with its first truthy value, or fails after `ms`. An attempt
 * that never settles (a Playwright call with no timeout of its own, such as an evaluate in a worker that
 * Chromium stopped) fails the wait at the deadline instead of holding it for ever.
 */
export async function until<T>(
  test: () => Promise<T> | T,
  what: string,
  ms = 15_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const value = await within(Promise.resolve().then(test), Math.max(1_000, deadline - Date.now()));
      if (value === 'timed out') last = new Error('the last try did not answer');
      else if (value) return value as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface Recorded {
  method: string;
  path: string;
  body: string;
}

/** A loopback proxy in front of the server that keeps every HTTP request (and passes WebSockets on). */
export class RecordingProxy {
  readonly requests: Recorded[] = [];
  private readonly server: http.Server;
  private readonly sockets = new Set<net.Socket>();
  url = '';

  constructor(private readonly targetPort: number) {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        this.requests.push({ method: req.method ?? '', path: req.url ?? '', body: body.toString('utf8') });
        const up = http.request(
          {
            host: '127.0.0.1',
            port: this.targetPort,
            method: req.method,
            path: req.url,
            headers: req.headers,
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        up.on('error', () => res.destroy());
        up.end(body);
      });
    });
    this.server.on('upgrade', (req, socket: net.Socket, head: Buffer) => {
      this.requests.push({ method: 'UPGRADE', path: req.url ?? '', body: '' });
      const up = net.connect(this.targetPort, '127.0.0.1', () => {
        const lines = [`${req.method} ${req.url} HTTP/1.1`];
        for (let i = 0; i < req.rawHeaders.length; i += 2)
          lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
        up.write(`${lines.join('\r\n')}\r\n\r\n`);
        up.write(head);
        socket.pipe(up).pipe(socket);
      });
      for (const s of [socket, up]) {
        this.sockets.add(s);
        s.on('error', () => {
          socket.destroy();
          up.destroy();
        });
        s.on('close', () => {
          this.sockets.delete(s);
          socket.destroy();
          up.destroy();
        });
      }
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export type Handler = (
  req: http.IncomingMessage,
  body: string,
) => { status?: number; headers?: Record<string, string>; html: string };

/** Web sites under `.test` names: one loopback server answers for all and picks the page by Host and path. */
export class Sites {
  readonly requests: (Recorded & { host: string })[] = [];
  private readonly pages = new Map<string, Handler>();
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const host = (req.headers.host ?? '').replace(/:\d+$/, '');
      const url = new URL(req.url ?? '/', 'http://x');
      const body = Buffer.concat(chunks).toString('utf8');
      this.requests.push({ host, method: req.method ?? '', path: req.url ?? '', body });
      const handler = this.pages.get(`${host}${url.pathname}`);
      if (!handler) {
        res
          .writeHead(404, { 'content-type': 'text/html; charset=utf-8' })
          .end('<!doctype html><title>404</title>');
        return;
      }
      const page = handler(req, body);
      res
        .writeHead(page.status ?? 200, { 'content-type': 'text/html; charset=utf-8', ...page.headers })
        .end(page.html);
    });
  });
  port = 0;

  /** Serves `html` (or what `handler` answers) at http://<host>:<port><path>. */
  page(host: string, pathname: string, content: string | Handler): string {
    this.pages.set(`${host}${pathname}`, typeof content === 'string' ? () => ({ html: content }) : content);
    return this.url(host, pathname);
  }

  url(host: string, pathAndQuery: string): string {
    return `http://${host}:${this.port}${pathAndQuery}`;
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export const html = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

export interface Stack {
  server: TestServer;
  proxy: RecordingProxy;
  home: Household;
  sys: Sysroot;
  daemon: AgentProcess;
  systemId: string;
  childId: string;
  mappingId: string;
  sites: Sites;
  context: BrowserContext;
  extensionId: string;
  worker(): Promise<Worker>;
  /** What the worker keeps for the popup (chrome.storage.local). */
  status(): Promise<ExtensionStatus | null>;
  close(): Promise<void>;
}

/** The native host as Chromium finds it in a profile: a manifest naming a script that runs the agent's host. */
function registerNativeHost(userDataDir: string, socket: string): void {
  registerHostScript(
    userDataDir,
    [
      '#!/bin/sh',
      `cd ${JSON.stringify(ROOT)} || exit 1`,
      `HEARTH_AGENT_IPC_SOCKET=${JSON.stringify(socket)} exec ${JSON.stringify(process.execPath)} --conditions=hearth-source --import tsx ${JSON.stringify(path.join(ROOT, 'agent/src/native-host-main.ts'))} "$@"`,
      '',
    ].join('\n'),
  );
}

/** Registers `script` (an executable's text) in the profile as the host com.hearth.agent. */
export function registerHostScript(userDataDir: string, text: string): void {
  const dir = path.join(userDataDir, 'NativeMessagingHosts');
  mkdirSync(dir, { recursive: true });
  const script = path.join(userDataDir, 'hearth-native-host');
  writeFileSync(script, text);
  chmodSync(script, 0o755);
  writeFileSync(
    path.join(dir, `${NATIVE_HOST_NAME}.json`),
    JSON.stringify({
      name: NATIVE_HOST_NAME,
      description: 'Hearth agent (test)',
      path: script,
      type: 'stdio',
      allowed_origins: [`chrome-extension://${EXTENSION_ID}/`],
    }),
  );
}

/** Debian's Chromium in the new headless mode with the built extension loaded, in `userDataDir`. */
export function launchWithExtension(userDataDir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    locale: 'en-GB',
    viewport: { width: 1280, height: 860 },
    ignoreDefaultArgs: ['--disable-extensions'],
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup',
      `--disable-extensions-except=${DIST}`,
      `--load-extension=${DIST}`,
      '--host-resolver-rules=MAP *.test 127.0.0.1',
    ],
  });
}

/** The extension's service worker (waiting for it to start if it has not). */
export async function workerOf(context: BrowserContext): Promise<Worker> {
  const found = context
    .serviceWorkers()
    .find((w) => w.url().startsWith(`chrome-extension://${EXTENSION_ID}/`));
  if (found) return found;
  return context.waitForEvent('serviceworker', {
    predicate: (w) => w.url().startsWith(`chrome-extension://${EXTENSION_ID}/`),
    timeout: 15_000,
  });
}

/** What the worker keeps for the popup (chrome.storage.local). */
export async function statusOf(context: BrowserContext): Promise<ExtensionStatus | null> {
  const w = await workerOf(context);
  // Playwright waits for a stopped worker to start again, however long that takes: bounded here.
  return bounded(
    w.evaluate(async () => ((await chrome.storage.local.get('status')).status ?? null) as never),
    15_000,
    "reading the worker's status",
  );
}

export async function startStack(): Promise<Stack> {
  ensureBuilt();
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  const running: AgentProcess[] = [];
  /** Undoes what started, newest first; each step bounded, so one that hangs cannot hold the rest. */
  const cleanUp = async () => {
    for (const fn of cleanups.reverse()) await within(Promise.resolve().then(fn), 60_000).catch(() => {});
  };
  try {
    const server = await startTestServer();
    cleanups.push(() => server.close());
    const proxy = new RecordingProxy(Number(new URL(server.url).port));
    await proxy.start();
    cleanups.push(() => proxy.close());
    const home = await createHousehold(server, 'Extension home');
    const sys = makeSysroot([CHILD]);
    cleanups.push(() => sys.cleanup());
    chmodSync(sys.root, 0o755);
    cleanups.push(() => Promise.all(running.map((p) => p.stop())));
    const { systemId, daemon } = await startApprovedAgent({ ...server, url: proxy.url }, home, sys, running);

    const child = await home.client.post('/api/user/create', {
      name: 'Mia',
      overlay_age_tier: 'teen',
      overlay_parent_note: 'Homework first, then games',
    });
    if (child.status !== 201) throw new Error(`user: ${child.status} ${child.text}`);
    const mapped = await home.client.post(`/managed-users/${child.body.id}/mappings/add`, {
      system_id: systemId,
      linux_username: CHILD.username,
    });
    if (mapped.status !== 201) throw new Error(`mapping: ${mapped.status} ${mapped.text}`);
    const enforced = await home.client.post(`/api/mappings/${mapped.body.id}/approval-settings`, {
      enforce_signup_approvals: true,
    });
    if (enforced.body?.enforce_signup_approvals !== true || enforced.body?.signup_supported !== true)
      throw new Error(`approval settings: ${enforced.status} ${enforced.text}`);

    const sites = new Sites();
    await sites.start();
    cleanups.push(() => sites.close());

    const userDataDir = mkdtempSync(path.join(tmpdir(), 'hearth-extension-profile-'));
    cleanups.push(() => rmSync(userDataDir, { recursive: true, force: true }));
    registerNativeHost(userDataDir, path.join(sys.runDir, 'users', String(CHILD.uid), 'ipc.sock'));
    const context = await launchWithExtension(userDataDir);
    cleanups.push(() => context.close());
    const worker = () => workerOf(context);
    await worker();
    return {
      server,
      proxy,
      home,
      sys,
      daemon,
      systemId,
      childId: child.body.id,
      mappingId: mapped.body.id,
      sites,
      context,
      extensionId: EXTENSION_ID,
      worker,
      status: () => statusOf(context),
      close: cleanUp,
    };
  } catch (err) {
    await cleanUp();
    throw err;
  }
}

/** Opens `url` in a new tab; a navigation the extension cuts short is not an error here. */
export async function open(context: BrowserContext, url: string): Promise<Page> {
  const page = await bounded(context.newPage(), 30_000, 'opening a tab');
  await page.goto(url).catch(() => {});
  return page;
}

/**
 * Closes a tab. Chromium can acknowledge a close that arrives while the tab commits a navigation (a form
 * sent, Hearth Space going back to a page) and then never close it (crbug.com/536385539); Playwright's
 * page.close() has no timeout and would wait for ever. A close not done within a few seconds is asked for
 * again over the tab's own DevTools session, which ends such a tab.
 */
export async function closePage(page: Page): Promise<void> {
  const closing = page.close();
  for (let attempt = 1; attempt <= 5; attempt++) {
    if ((await within(closing, 3_000)) !== 'timed out') return;
    if (attempt === 1) console.log(`# the close of ${page.url()} was not done within 3 s: asked again`);
    try {
      const session = await bounded(page.context().newCDPSession(page), 5_000, 'a DevTools session');
      const { targetInfo } = await bounded(session.send('Target.getTargetInfo'), 5_000, 'the tab');
      await bounded(session.send('Target.closeTarget', { targetId: targetInfo.targetId }), 5_000, 'a close');
    } catch {
      // the tab went meanwhile, or cannot be reached: the close above settles or the next try asks again
    }
  }
  await bounded(closing, 3_000, `closing the tab ${page.url()}`);
}

export const isOverlay = (url: URL | string) =>
  String(url).startsWith(`chrome-extension://${EXTENSION_ID}/blockedv2.html`);

/** Waits until the tab shows a URL that passes `test`, however it got there (a redirect may abort loads). */
export function landsOn(page: Page, test: (url: URL) => boolean, what: string): Promise<URL> {
  return until<URL | null>(() => {
    const url = new URL(page.url());
    return test(url) ? url : null;
  }, what);
}
