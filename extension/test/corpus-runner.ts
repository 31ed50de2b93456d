// Runs the sign-up detection corpus in Debian's Chromium: a loopback server answers for the corpus's
// `.test` host names, detect.ts is bundled and injected into every frame, and each page is classified
// the way the content script would see it. Shared by extension/test/detect.test.ts and
// bench/src/signup-detection.ts.
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { type Browser, type BrowserContext, chromium, type Frame } from 'playwright-core';
import type { SignupMatch } from '../src/content/detect.js';

export type Expect = 'signup' | 'login' | 'ordinary';

export interface CorpusEntry {
  file: string;
  host: string;
  /** Path and query the page is opened at. */
  path: string;
  expect: Expect;
  note: string;
  /** A CSS selector the runner clicks once the page has loaded (e.g. a "Create account" button). */
  click?: string;
  /** A CSS selector, in the top document, that appears once the page has rendered what is measured. */
  ready?: string;
  /** Login pages: the name of the field findLoginForm must take as the username. */
  username?: string;
}

export const corpusDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'corpus');
const detectEntry = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  'src',
  'content',
  'detect.ts',
);

export const CHROMIUM = '/usr/bin/chromium';

export function loadCorpus(): CorpusEntry[] {
  return JSON.parse(readFileSync(path.join(corpusDir, 'corpus.json'), 'utf8')) as CorpusEntry[];
}

/** Why the browser tests cannot run here, or null when they can. */
export function chromiumMissing(): string | null {
  return existsSync(CHROMIUM) ? null : `${CHROMIUM} is missing (apt-get install chromium)`;
}

/** detect.ts as one script that defines `HearthDetect` in the page. */
export async function bundleDetect(): Promise<string> {
  const out = await build({
    entryPoints: [detectEntry],
    bundle: true,
    write: false,
    format: 'iife',
    globalName: 'HearthDetect',
    target: 'chrome120',
    logLevel: 'silent',
  });
  const file = out.outputFiles[0];
  if (!file) throw new Error('esbuild produced no output');
  // Playwright runs an init script inside a function: the global has to be set by hand.
  return `${file.text}\nglobalThis.HearthDetect = HearthDetect;\n`;
}

export interface CorpusServer {
  port: number;
  url(host: string, pathAndQuery: string): string;
  close(): Promise<void>;
}

/**
 * Answers on 127.0.0.1 for every corpus page by Host and path; `/_corpus/<file>` serves any corpus
 * file (frames, scripts); `extra` adds pages by "host/path" (the test's own fixtures).
 */
export async function startCorpusServer(
  corpus: CorpusEntry[],
  extra: Map<string, string> = new Map(),
): Promise<CorpusServer> {
  // Pages are found by host and path with the query first (two pages may share a path), then without.
  const pages = new Map<string, string>();
  for (const e of corpus) {
    const u = new URL(e.path, 'http://x');
    pages.set(`${e.host}${u.pathname}${u.search}`, e.file);
    if (!pages.has(`${e.host}${u.pathname}`)) pages.set(`${e.host}${u.pathname}`, e.file);
  }
  const server = createServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const { pathname, search } = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, body: string, type = 'text/html; charset=utf-8') => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    const inline = extra.get(`${host}${pathname}`);
    if (inline !== undefined) return send(200, inline);
    let file = pages.get(`${host}${pathname}${search}`) ?? pages.get(`${host}${pathname}`);
    const direct = /^\/_corpus\/([\w.-]+)$/.exec(pathname);
    if (!file && direct) file = direct[1];
    if (!file || file.includes('..'))
      return send(404, '<!doctype html><title>Not found</title><h1>Not found</h1>');
    try {
      const body = readFileSync(path.join(corpusDir, file), 'utf8');
      return send(200, body, file.endsWith('.js') ? 'text/javascript' : 'text/html; charset=utf-8');
    } catch {
      return send(404, '<!doctype html><title>Not found</title>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (host, pathAndQuery) => `http://${host}:${port}${pathAndQuery}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--host-resolver-rules=MAP *.test 127.0.0.1',
    ],
  });
}

/** A context whose every frame gets `HearthDetect` before the page's own scripts run. */
export async function detectContext(browser: Browser, bundle: string): Promise<BrowserContext> {
  const context = await browser.newContext({ serviceWorkers: 'block' });
  await context.addInitScript({ content: bundle });
  return context;
}

/**
 * A page that builds `count` elements of ordinary content (sections, headings, links) and ends with a
 * login form or a sign-up form; `html[data-ready]` holds the element count once built. 'grid' is the
 * login page with a spreadsheet of 3,000 labelled inputs before the form.
 */
export function hugePage(kind: 'login' | 'signup' | 'grid', count: number): string {
  const grid =
    kind === 'grid'
      ? `const rows = [];
  for (let r = 0; r < 600; r++) {
    let row = '<tr>';
    for (let c = 0; c < 5; c++) row += '<td><label for="c' + r + '_' + c + '">R' + r + 'C' + c + '</label><input id="c' + r + '_' + c + '" name="cell' + r + '_' + c + '"></td>';
    rows.push(row + '</tr>');
  }
  document.getElementById('grid').innerHTML = rows.join('');`
      : '';
  const form =
    kind !== 'signup'
      ? `<form action="/session" method="post"><h2>Log in</h2>
  <input name="username" autocomplete="username"><input name="password" type="password">
  <button type="submit">Log in</button> <a href="/join">Join</a></form>`
      : `<h2>Join the archive</h2><form action="/users" method="post">
  <input name="email" type="email"><input name="password" type="password"><input name="password2" type="password">
  <button type="submit">Continue</button></form>`;
  return `<!doctype html><html><head><meta charset="utf-8"><title>Archive</title></head><body>
<div id="bulk"></div>
<table id="grid"></table>
${form}
<script>
  ${grid}
  const html = [];
  for (let i = 0; i < ${Math.ceil(count / 5)}; i++) {
    html.push('<section><h3>Entry ' + i + '</h3><p>Text <a href="/e/' + i + '">more</a> <span>tag</span></p></section>');
  }
  document.getElementById('bulk').innerHTML = html.join('');
  document.documentElement.dataset.ready = String(document.getElementsByTagName('*').length);
</script></body></html>`;
}

export interface FrameResult {
  url: string;
  signup: SignupMatch | null;
  /** The login form found, described by its username field's name (or null without one). */
  login: { username: string | null } | null;
  /** The first call in the frame (it also sets the library up). */
  detectMs: number;
  loginMs: number;
  /** Mean of `repeat` further calls, when asked for. */
  warmMs: number | null;
}

export interface PageResult {
  entry: CorpusEntry;
  frames: FrameResult[];
  verdict: Expect;
  /** detectSignup time of the slowest frame, in the page: first call, and mean of the repeats. */
  detectMs: number;
  warmMs: number | null;
}

declare const HearthDetect: typeof import('../src/content/detect.js');

/** Runs detection in one frame, injecting the bundle first where the init script did not run. */
export async function detectInFrame(frame: Frame, bundle: string, repeat = 0): Promise<FrameResult> {
  const present = await frame.evaluate(() => typeof (globalThis as any).HearthDetect !== 'undefined');
  if (!present) await frame.evaluate(bundle);
  return frame.evaluate((repeat) => {
    const t0 = performance.now();
    const signup = HearthDetect.detectSignup(document, location.href);
    const t1 = performance.now();
    const form = HearthDetect.findLoginForm(document, location.href);
    const t2 = performance.now();
    const u = form?.username;
    // Chromium rounds performance.now() to 0.1 ms here: time the repeats together.
    const t3 = performance.now();
    for (let i = 0; i < repeat; i++) HearthDetect.detectSignup(document, location.href);
    const warmMs = repeat ? (performance.now() - t3) / repeat : null;
    return {
      url: location.href,
      signup,
      login: form ? { username: u ? u.getAttribute('name') || u.id || u.type : null } : null,
      detectMs: t1 - t0,
      loginMs: t2 - t1,
      warmMs,
    };
  }, repeat);
}

export function classify(frames: FrameResult[]): Expect {
  if (frames.some((f) => f.signup)) return 'signup';
  if (frames.some((f) => f.login)) return 'login';
  return 'ordinary';
}

export async function runEntry(
  context: BrowserContext,
  server: CorpusServer,
  bundle: string,
  entry: CorpusEntry,
  repeat = 0,
): Promise<PageResult> {
  const page = await context.newPage();
  try {
    await page.goto(server.url(entry.host, entry.path), { waitUntil: 'load' });
    if (entry.click) await page.click(entry.click);
    if (entry.ready) await page.waitForSelector(entry.ready, { state: 'attached' });
    const frames: FrameResult[] = [];
    for (const frame of page.frames()) {
      if (frame.url() === 'about:blank' && frame !== page.mainFrame()) continue;
      frames.push(await detectInFrame(frame, bundle, repeat));
    }
    return {
      entry,
      frames,
      verdict: classify(frames),
      detectMs: Math.max(0, ...frames.map((f) => f.detectMs)),
      warmMs: repeat ? Math.max(0, ...frames.map((f) => f.warmMs ?? 0)) : null,
    };
  } finally {
    await page.close();
  }
}
