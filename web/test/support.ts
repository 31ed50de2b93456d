// Shared parts of the admin UI browser tests: the real server, a system Chromium, signed-in pages.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import {
  type Browser,
  type BrowserContext,
  chromium,
  type Locator,
  type Page,
  type Response,
} from 'playwright-core';
import { type Frame, SimAgent, type SimAgentOptions } from '../../bench/src/simulator.ts';
import {
  Client,
  enrollmentToken,
  PASSWORD,
  startTestServer,
  type TestServer,
} from '../../server/test/helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const root = path.resolve(import.meta.dirname, '../..');
/**
 * Where screenshots go: `test-results/screenshots` (ignored by git), so `npm test` leaves the tree
 * clean; `npm run screenshots` points HEARTH_SCREENSHOTS_DIR at `docs/screenshots` to refresh them.
 */
export const SCREENSHOTS = process.env.HEARTH_SCREENSHOTS_DIR
  ? path.resolve(process.env.HEARTH_SCREENSHOTS_DIR)
  : path.join(root, 'test-results', 'screenshots');

/** `false` when the tests can run, else why not (for node:test's `skip`). */
export function browserSkipReason(): string | false {
  if (!existsSync(CHROMIUM)) return `no Chromium at ${CHROMIUM}; the admin UI browser tests need it`;
  return false;
}

export function assertBuilt(): void {
  if (!existsSync(path.join(root, 'web', 'dist', 'index.html'))) {
    throw new Error('web/dist is missing: run `node scripts/build.mjs` before the browser tests.');
  }
}

/** Debian's Chromium, headless, with the flags this machine needs and any `extraArgs`. */
export function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export interface Owner {
  client: Client;
  householdId: string;
  parentId: string;
  username: string;
}

/**
 * A household with a readable owner name (it shows in screenshots): through POST /api/setup on a
 * fresh server, else through the household service that open sign-up uses.
 */
export async function createOwner(
  server: TestServer,
  username: string,
  householdName: string,
): Promise<Owner> {
  const client = new Client(server.url);
  const body = { username, password: PASSWORD, household_name: householdName };
  const res = await client.post('/api/setup', body);
  if (res.status === 201) {
    return { client, householdId: res.body.household.id, parentId: res.body.parent.id, username };
  }
  await server.services.auth.createHouseholdWithOwner(body, false);
  const signed = await client.signIn(username, PASSWORD);
  if (signed.status !== 200) throw new Error(`could not sign in: ${signed.status} ${signed.text}`);
  return { client, householdId: signed.body.household.id, parentId: signed.body.parent.id, username };
}

export interface OpenPage {
  context: BrowserContext;
  page: Page;
  /** Uncaught exceptions and console errors other than failed 4xx loads. */
  problems: string[];
}

/** A browser page; with `as`, it shares that client's session cookie, so it starts signed in. */
export async function openPage(
  browser: Browser,
  server: TestServer,
  options: { as?: Client; viewport?: { width: number; height: number } } = {},
): Promise<OpenPage> {
  const context = await browser.newContext({
    viewport: options.viewport ?? DESKTOP,
    colorScheme: 'light',
    reducedMotion: 'reduce',
  });
  // A bound, not a wait: generous, because CI runs on two busy cores (a run there took three times as long).
  context.setDefaultTimeout(30_000);
  const cookie = options.as?.cookie;
  if (cookie) {
    const [name = '', value = ''] = cookie.split('=', 2);
    await context.addCookies([{ name, value, url: server.url }]);
  }
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() !== 'error' || /status of 4\d\d/.test(msg.text())) return;
    // page.screenshot() puts its own style sheet (caret, animations) into every frame; the Hearth Space
    // preview's CSP refuses it, which Chromium logs without a script location. Not the page's doing.
    if (msg.location().url === '' && msg.text().startsWith('Applying inline style violates')) return;
    problems.push(msg.text());
  });
  return { context, page, problems };
}

/** Closes the page's context and fails if the page threw or logged an error. */
export async function closePage({ context, problems }: OpenPage): Promise<void> {
  await context.close();
  if (problems.length) throw new Error(`the page reported errors:\n${problems.join('\n')}`);
}

/**
 * Writes <SCREENSHOTS>/<name> of the whole page, without passing notifications unless
 * `notifications` keeps them (a picture of one is the point).
 */
export async function screenshot(
  page: Page,
  name: string,
  options: { notifications?: boolean } = {},
): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' });
  // A window as tall as the page keeps the fixed header and navigation where they belong, which
  // a stitched full-page capture does not.
  // No hover effect from the last click in the picture.
  await page.mouse.move(0, 0);
  const viewport = page.viewportSize() ?? DESKTOP;
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  if (height > viewport.height) await page.setViewportSize({ width: viewport.width, height });
  await page.screenshot({
    path: path.join(SCREENSHOTS, name),
    animations: 'disabled',
    style: options.notifications ? undefined : '.mantine-Notifications-root { display: none !important; }',
  });
  if (height > viewport.height) await page.setViewportSize(viewport);
}

/** Opens `url` and resolves once the page's live event stream is connected. */
export async function gotoLive(page: Page, url: string): Promise<void> {
  const stream = page.waitForResponse(
    (r) => new URL(r.url()).pathname === '/api/dashboard/events' && r.status() === 200,
  );
  await page.goto(url);
  await stream;
}

/**
 * Runs `act` (a click, a switch) and resolves with the server's answer to the change it sends (a
 * POST, PUT, PATCH or DELETE whose path ends with `pathEnd`). Some pages show the outcome before the
 * server has it (an optimistic update), so a test that reads the server next waits for this answer.
 */
export async function awaitChange(
  page: Page,
  pathEnd: string,
  act: () => Promise<unknown>,
): Promise<Response> {
  const answer = page.waitForResponse(
    (r) => r.request().method() !== 'GET' && new URL(r.url()).pathname.endsWith(pathEnd),
  );
  await act();
  return answer;
}

/** Clicks `target` and resolves with the server's answer to the change the click sends. */
export const clickAndAwaitChange = (page: Page, target: Locator, pathEnd: string): Promise<Response> =>
  awaitChange(page, pathEnd, () => target.click());

/**
 * Asks `read` again until `ok` holds, for what the server or a device does on its own time, and
 * answers that value; fails naming `what` and the last value after `timeout` ms (a bound, not a wait).
 */
export async function eventually<T>(
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  what: string,
  timeout = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Resolves once `url` (a path) is the page's location. */
export async function waitForPath(page: Page, pathname: string): Promise<void> {
  await page.waitForURL((url) => url.pathname === pathname);
}

export { Client, PASSWORD };

// Changes reach the pages over the event stream at once, followed by one request. The bound is
// generous because CI runs on two busy cores: the tests prove no reload is needed, not a speed
// (the times they print are for reading; speed is measured in bench/).
export const WITHIN_LIVE = 30_000;

/** Marks the page, so a later check can tell that it was never reloaded in between. */
export async function markPage(page: Page): Promise<void> {
  await page.evaluate(() => {
    (window as unknown as { hearthMark: boolean }).hearthMark = true;
  });
}

export async function assertNotReloaded(page: Page): Promise<void> {
  const marked = await page.evaluate(() => (window as unknown as { hearthMark?: boolean }).hearthMark);
  assert.equal(marked, true, 'the page was reloaded');
}

/** Waits until `locator` shows up and says how long that took. */
export async function timeUntil(locator: Locator, timeout = WITHIN_LIVE): Promise<number> {
  const started = Date.now();
  await locator.waitFor({ timeout });
  return Date.now() - started;
}

/** Nothing on the page is wider than a phone. */
export async function assertFitsPhone(page: Page): Promise<void> {
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(
    width <= PHONE.width,
    `${new URL(page.url()).pathname} is ${width}px wide on a ${PHONE.width}px phone`,
  );
}

/** Matches the agent simulator's command_request frames for one command. */
export const isCommand = (command: string) => (f: Frame) =>
  f.type === 'command_request' && f.command === command;

export interface Household {
  server: TestServer;
  browser: Browser;
  owner: Owner;
}

/**
 * A suite's start: a fresh server (with `env` added to its configuration), a browser, and Maria's
 * household (the name the screenshots show).
 */
export async function openHousehold(env: Record<string, string> = {}): Promise<Household> {
  assertBuilt();
  const server = await startTestServer(undefined, env);
  const browser = await launchBrowser();
  const owner = await createOwner(server, 'maria', 'The Rivera family');
  return { server, browser, owner };
}

/** A suite's end: its agents stop first, then the browser and the server. */
export async function closeHousehold(
  household: Partial<Household>,
  agents: { stop(): Promise<unknown> }[] = [],
): Promise<void> {
  await Promise.all(agents.map((a) => a.stop()));
  await household.browser?.close();
  await household.server?.close();
}

/** The two children most suites look after: Ann (8–12) and Ben (under 8). */
export async function createAnnAndBen(owner: Owner): Promise<{ ann: { id: string }; ben: { id: string } }> {
  const ann = (await owner.client.post('/api/user/create', { name: 'Ann', overlay_age_tier: 'eight12' }))
    .body;
  const ben = (await owner.client.post('/api/user/create', { name: 'Ben', overlay_age_tier: 'under8' })).body;
  return { ann, ben };
}

/** Maps an account on a device to a child, as the child's page does. */
export async function mapAccount(
  owner: Owner,
  child: { id: string },
  systemId: string,
  account: string,
): Promise<{ id: string }> {
  const res = await owner.client.post(`/managed-users/${child.id}/mappings/add`, {
    system_id: systemId,
    linux_username: account,
  });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/**
 * Connects a simulated agent with the household's enrollment token, approves it as `displayName` and
 * maps its accounts to children; `agents` collects it so the suite's end stops it.
 */
export async function pairAgent(
  { server, owner }: Pick<Household, 'server' | 'owner'>,
  agents: SimAgent[],
  options: Partial<SimAgentOptions>,
  displayName: string,
  accounts: [string, { id: string }][] = [],
): Promise<SimAgent> {
  const agent = new SimAgent({
    url: server.wsUrl,
    enrollmentToken: await enrollmentToken(owner),
    ...options,
  });
  agents.push(agent);
  await agent.connect();
  const approved = agent.waitFor('pairing_approved');
  const res = await owner.client.post(`/api/device/approve/${agent.systemId}`, { display_name: displayName });
  assert.equal(res.status, 200, res.text);
  await approved;
  for (const [account, child] of accounts) await mapAccount(owner, child, agent.systemId, account);
  return agent;
}

/** What a device asks with its own token, as the agent and the browser extension's helper do. */
export function asDevice(server: TestServer, agent: SimAgent) {
  return async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${server.url}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${agent.secureToken}`,
        connection: 'close', // as Client does: no kept-alive socket the server may be closing
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
}

/** A child's request from Hearth Space, sent the way the device's agent sends it. */
export const sendAccessRequest = (
  server: TestServer,
  agent: SimAgent,
  linuxUsername: string,
  reason: string,
  message: string,
) =>
  asDevice(server, agent)('POST', '/api/access-request', { linux_username: linuxUsername, reason, message });

/** Sends agent clock-change alerts and waits until the server has stored them all. */
export async function sendClockAlerts(
  owner: Owner,
  agent: SimAgent,
  events: { linux_username?: string; detail: object }[],
): Promise<void> {
  const count = async () =>
    (await owner.client.get('/api/alerts?kind=clock_tamper&limit=200')).body.items.length as number;
  const before = await count();
  for (const event of events) agent.send({ type: 'alert_event', event_type: 'clock_tamper', ...event });
  await eventually(count, (now) => now >= before + events.length, `${events.length} new clock alerts stored`);
}

/** Resolves once the server shows the device offline (after its agent stopped). */
export async function waitForOffline(owner: Owner, systemId: string): Promise<void> {
  await eventually(
    async () => (await owner.client.get(`/api/devices/${systemId}`)).body.online,
    (online) => online === false,
    `${systemId} shown offline`,
  );
}

/** The laptop Ann (account `ann`) and Ben (account `ben`) share, paired as "Living room laptop". */
export const pairFamilyLaptop = (
  household: Pick<Household, 'server' | 'owner'>,
  agents: SimAgent[],
  ann: { id: string },
  ben: { id: string },
): Promise<SimAgent> =>
  pairAgent(
    household,
    agents,
    {
      hostname: 'family-laptop',
      linuxUsers: [{ username: 'ann', display_name: 'Ann' }, { username: 'ben' }],
    },
    'Living room laptop',
    [
      ['ann', ann],
      ['ben', ben],
    ],
  );
