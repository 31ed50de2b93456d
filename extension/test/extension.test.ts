// The extension end to end: Debian's Chromium with the built extension, the real agent's native host in the
// profile, the real agent daemon and the real server (stack.ts). A parent acts through the server's routes;
// the child through the browser.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test as nodeTest } from 'node:test';
import { EXTENSION_ID } from '@hearth/protocol';
import type { Page } from 'playwright-core';
import { within } from '../../server/test/helpers.ts';
import {
  closePage,
  html,
  isOverlay,
  landsOn,
  open,
  type Stack,
  screenshotDir,
  skipReason,
  startStack,
  until,
} from './stack.ts';

const form = (inner: string) => `<form method="post" action="/done">${inner}</form>`;
const EMAIL = '<label>Email <input type="email" name="email"></label>';
const PASSWORD = '<label>Password <input type="password" name="password"></label>';
const JOIN_PAGE = html('Join', `<h1>Welcome</h1>${form(`${EMAIL}${PASSWORD}<button>Go</button>`)}`);

/** One plain page per layer of SPEC's detection, each matching that layer first. */
const LAYERS = [
  {
    layer: 'url',
    host: 'url-layer.test',
    path: '/signup',
    body: form(`${EMAIL}${PASSWORD}<button>Go</button>`),
  },
  {
    layer: 'new-password',
    host: 'new-password.test',
    path: '/start',
    body: form(
      `${EMAIL}<label>Password <input type="password" name="password" autocomplete="new-password"></label><button>Go</button>`,
    ),
  },
  {
    layer: 'confirm-password',
    host: 'confirm.test',
    path: '/start',
    body: form(
      `${EMAIL}${PASSWORD}<label>Repeat it <input type="password" name="password2"></label><button>Go</button>`,
    ),
  },
  {
    layer: 'registration-fields',
    host: 'fields.test',
    path: '/start',
    body: form(
      `<label>First name <input name="first_name" autocomplete="given-name"></label>${EMAIL}${PASSWORD}<button>Go</button>`,
    ),
  },
  {
    layer: 'page-text',
    host: 'text.test',
    path: '/start',
    body: `<h1>Create your account</h1>${form(`${EMAIL}${PASSWORD}<button>Create account</button>`)}`,
  },
];

const hook = (name: string) => `[data-hearth="${name}"]`;

/** Hearth Space as the child sees it a moment after it opens (its fade-in finished). */
async function settled(page: Page): Promise<void> {
  await page.waitForSelector('html[data-settled]', { state: 'attached' });
  await page.evaluate(() => {
    for (const a of document.getAnimations()) if ((a as CSSAnimation).animationName === 'settle') a.finish();
  });
}

async function screenshot(page: Page, name: string, fullPage = false): Promise<void> {
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage, animations: 'disabled' });
}

/**
 * Waits until the overlay page leaves for `url`. The page checks every 10 s and whenever it regains focus;
 * a focus event now and then makes that sooner, and the wait is for the navigation itself.
 */
async function returnsTo(page: Page, url: string): Promise<void> {
  const back = page.waitForURL(url, { timeout: 12_000 });
  let done = false;
  void back.finally(() => {
    done = true;
  });
  while (!done) {
    // A nudge only: one that does not answer (the tab between two pages) is left behind.
    await within(
      page.evaluate(() => window.dispatchEvent(new Event('focus'))).catch(() => {}),
      1_000,
    );
    await Promise.race([back.catch(() => {}), new Promise((resolve) => setTimeout(resolve, 300))]);
  }
  await back;
}

/**
 * Each test's own bound, far above what it takes on a busy machine (seconds): a wait that never ends fails
 * that test by name, and the file goes on, instead of the whole file running into the runner's limit.
 */
const EACH = { timeout: 180_000 };
const test = (name: string, fn: () => Promise<void>) => nodeTest(name, EACH, fn);

describe('the extension in Chromium with the real agent and server', { skip: skipReason }, () => {
  let stack: Stack;

  before(
    async () => {
      stack = await startStack();
    },
    { timeout: 300_000 },
  );
  after(
    async () => {
      await stack?.close();
    },
    { timeout: 600_000 },
  );

  const pendingFor = (domain: string) =>
    until(async () => {
      const list = await stack.home.client.get('/api/approvals?status=pending&type=site_signup');
      return list.body.items.find((i: { domain: string }) => i.domain === domain);
    }, `a pending sign-up request for ${domain}`);

  /** The child opens a sign-up page, lands on Hearth Space and asks; the request is pending. */
  async function childAsks(host: string, shots?: { block: string; waiting: string }) {
    const url = stack.sites.page(host, '/join', JOIN_PAGE);
    const page = await open(stack.context, url);
    await page.waitForURL(isOverlay);
    await settled(page);
    if (shots) await screenshot(page, shots.block);
    await page.locator(hook('request-signup')).click();
    await page.waitForSelector(`${hook('request-signup')}[data-state="waiting"]`);
    if (shots) await screenshot(page, shots.waiting);
    const request = await pendingFor(host);
    assert.equal(request.url, url);
    return { page, url, request };
  }

  /** The worker's last check, once it is the one for `domain` made after `since`. */
  const checkedAfter = (domain: string, since: number) =>
    until(async () => {
      const s = await stack.status();
      return s?.lastCheck && s.lastCheck.domain === domain && s.lastCheck.at >= since ? s.lastCheck : null;
    }, `a check of ${domain}`);

  test('the worker connects to the agent through the native host and learns that sign-ups are enforced', async () => {
    const status = await until(async () => {
      const s = await stack.status();
      return s?.connection === 'connected' && s.enforced !== null && s.policy ? s : null;
    }, 'the worker to connect');
    assert.equal(status.enforced, true);
    assert.equal(status.policy?.version, 0);
    // The account's child and her overlay settings, from the server through the agent (GET_STATUS).
    assert.equal(status.agent?.child_name, 'Mia');
    assert.equal(status.agent?.age_tier, 'teen');
    assert.equal(status.agent?.parent_note, 'Homework first, then games');
  });

  for (const l of LAYERS) {
    test(`layer ${l.layer}: a sign-up page goes to Hearth Space with its domain and URL`, async () => {
      const url = stack.sites.page(l.host, l.path, html('Sign up', l.body));
      const started = Date.now();
      const page = await open(stack.context, url);
      await page.waitForURL(isOverlay);
      const q = new URL(page.url()).searchParams;
      assert.equal(q.get('reason'), 'signup');
      assert.equal(q.get('device'), l.host);
      assert.equal(q.get('url'), url);
      assert.equal(q.get('context'), null);
      assert.equal((await checkedAfter(l.host, started)).layer, l.layer);
      await closePage(page);
    });
  }

  test('a sign-up form that a page adds later is found; until then the page stays', async () => {
    const url = stack.sites.page(
      'news.test',
      '/',
      html('News', `<h1>Today</h1><form role="search"><input name="q"><button>Search</button></form>`),
    );
    const page = await open(stack.context, url);
    assert.equal(page.url(), url);
    assert.notEqual((await stack.status())?.lastCheck?.domain, 'news.test');
    const started = Date.now();
    await page.evaluate(
      (body) => {
        document.body.insertAdjacentHTML('beforeend', body);
      },
      `<div id="later">${form(`${EMAIL}${PASSWORD}<label>Again <input type="password" name="p2"></label><button>Go</button>`)}</div>`,
    );
    await page.waitForURL(isOverlay);
    assert.equal((await checkedAfter('news.test', started)).layer, 'confirm-password');
    await closePage(page);
  });

  test('a single-page app that changes its route to a sign-up form is checked on the new route', async () => {
    const url = stack.sites.page(
      'spa.test',
      '/',
      html(
        'App',
        `<main id="app"><h1>Home</h1><a href="/account/new" id="go">Get started</a></main>
        <script>
          document.getElementById('go').onclick = (e) => {
            e.preventDefault();
            history.pushState({}, '', '/account/new');
            document.getElementById('app').innerHTML =
              '<h2>Your details</h2><form><input type="email" name="email" aria-label="Email">' +
              '<input type="password" name="pw" autocomplete="new-password" aria-label="Password"><button>Next</button></form>';
          };
        </script>`,
      ),
    );
    const page = await open(stack.context, url);
    const started = Date.now();
    await page.click('#go');
    await page.waitForURL(isOverlay);
    const q = new URL(page.url()).searchParams;
    assert.equal(q.get('url'), stack.sites.url('spa.test', '/account/new'));
    assert.equal((await checkedAfter('spa.test', started)).layer, 'new-password');
    await closePage(page);
  });

  test('a sign-up form in a cross-origin frame sends the whole tab, for the frame’s domain', async () => {
    const embed = stack.sites.page(
      'accounts-widget.test',
      '/embed',
      html(
        'Widget',
        form(
          `${EMAIL}<label>Password <input type="password" name="pw" autocomplete="new-password"></label><button>Join</button>`,
        ),
      ),
    );
    const url = stack.sites.page(
      'portal.test',
      '/',
      html('Portal', `<h1>Portal</h1><iframe src="${embed}"></iframe>`),
    );
    const page = await open(stack.context, url);
    await page.waitForURL(isOverlay);
    const q = new URL(page.url()).searchParams;
    assert.equal(q.get('device'), 'accounts-widget.test');
    assert.equal(q.get('url'), url);
    await closePage(page);
  });

  test('approved once: the waiting page goes back to the sign-up page, which then stays', async () => {
    const { page, url, request } = await childAsks('games.test', {
      block: 'signup-block',
      waiting: 'signup-waiting',
    });
    const approved = await stack.home.client.post(`/api/approvals/${request.id}/approve`, { grant: 'once' });
    assert.equal(approved.status, 200);
    const at = Date.now();
    await returnsTo(page, url);
    // Back on the sign-up page, its form is checked again and allowed by the grant.
    assert.equal((await checkedAfter('games.test', at)).outcome, 'allowed');
    assert.ok(!isOverlay(page.url()));
    await closePage(page);
  });

  test('approved for good: back to the sign-up page, and a later visit is allowed too', async () => {
    const { page, url, request } = await childAsks('chat.test');
    const approved = await stack.home.client.post(`/api/approvals/${request.id}/approve`, {
      grant: 'persistent',
    });
    assert.equal(approved.body.grant, 'persistent');
    let at = Date.now();
    await returnsTo(page, url);
    assert.equal((await checkedAfter('chat.test', at)).outcome, 'allowed');
    await closePage(page);

    at = Date.now();
    const again = await open(stack.context, url);
    assert.equal((await checkedAfter('chat.test', at)).outcome, 'allowed');
    assert.equal(again.url(), url);
    await closePage(again);
  });

  test('denied: the waiting page lets the child ask again, and the site stays blocked', async () => {
    const { page, request } = await childAsks('video.test');
    assert.equal((await stack.home.client.post(`/api/approvals/${request.id}/deny`)).status, 200);
    await until(async () => {
      await page.evaluate(() => window.dispatchEvent(new Event('focus')));
      return page.$(`${hook('request-signup')}[data-state="idle"]`);
    }, 'the request button to be ready again');
    assert.match((await page.textContent(hook('status'))) ?? '', /said no|declined/);
    assert.ok(isOverlay(page.url()));
    await closePage(page);
  });

  test('login capture: the account reaches the Online Accounts list; the password never leaves the page', async () => {
    const secret = `pw-${Math.random().toString(36).slice(2)}-never-sent`;
    const url = stack.sites.page(
      'login.test',
      '/',
      html(
        'Log in',
        `<h1>Log in</h1><form method="post" action="/session">
          <label>Username <input name="username" autocomplete="username"></label>
          <label>Password <input type="password" name="password" autocomplete="current-password"></label>
          <button type="submit">Log in</button> <a href="/forgot">Forgot password?</a></form>`,
      ),
    );
    stack.sites.page('login.test', '/session', html('Welcome', '<p>Welcome back</p>'));
    const page = await open(stack.context, url);
    await page.fill('input[name="username"]', 'mia_plays');
    await page.fill('input[name="password"]', secret);
    await page.click('button[type="submit"]');
    await page.waitForURL(/\/session$/);

    // A single-page app's login: no form element, a plain button, the page's script does the rest.
    const appUrl = stack.sites.page(
      'app-login.test',
      '/',
      html(
        'App',
        `<div id="login"><h2>Sign in</h2>
          <input id="u" type="email" autocomplete="email" placeholder="Email">
          <input id="p" type="password" autocomplete="current-password" placeholder="Password">
          <button type="button" id="go">Sign in</button></div>
          <script>document.getElementById('go').onclick = () => { document.getElementById('login').textContent = 'Hi'; };</script>`,
      ),
    );
    await page.goto(appUrl);
    await page.fill('#u', 'mia@example.test');
    await page.fill('#p', secret);
    await page.click('#go');

    const accounts = await until(async () => {
      const list = (await stack.home.client.get('/api/online-accounts?sort=domain')).body.items as {
        domain: string;
        username: string;
      }[];
      const got = list.map((a) => `${a.domain} ${a.username}`);
      return got.includes('login.test mia_plays') && got.includes('app-login.test mia@example.test')
        ? got
        : null;
    }, 'both online accounts');
    assert.ok(accounts.length >= 2);

    // The site got the password (it is the site's); nothing the agent sent the server holds it.
    assert.ok(stack.sites.requests.some((r) => r.body.includes(secret)));
    assert.equal(
      stack.proxy.requests.filter((r) => r.body.includes(secret) || r.path.includes(secret)).length,
      0,
    );
    const logins = stack.proxy.requests.filter((r) => r.path === '/api/registration/log-login');
    assert.ok(logins.length >= 2);
    for (const r of logins)
      assert.deepEqual(Object.keys(JSON.parse(r.body)).sort(), ['domain', 'linux_username', 'username']);
    // Nor anything the server stored (the database and everything else in its data directory).
    for (const name of readdirSync(stack.server.dataDir))
      assert.ok(!readFileSync(path.join(stack.server.dataDir, name)).includes(secret), name);
    await closePage(page);
  });

  test('a site on the child’s blocked list goes to Hearth Space as filtered, also behind a redirect', async () => {
    // Open before the site is blocked: the new policy sends this tab to Hearth Space too.
    const earlier = await open(
      stack.context,
      stack.sites.page('earlier.blocked.test', '/', html('Earlier', '<p>Already open</p>')),
    );
    const source = await stack.home.client.post('/blocklists/sources/add', {
      name: 'Games',
      kind: 'manual',
      domains: ['blocked.test'],
    });
    assert.equal(source.status, 201);
    const policy = await stack.home.client.post(`/managed-users/${stack.childId}/blocklists/update`, {
      source_ids: [source.body.id],
    });
    assert.equal(policy.status, 200);
    // The agent is told, pushes POLICY_CHANGED through the native host, and the worker fetches the policy.
    await until(
      async () => (await stack.status())?.policy?.version === policy.body.version,
      'the new policy',
    );
    await landsOn(
      earlier,
      (u) => isOverlay(u) && u.searchParams.get('device') === 'earlier.blocked.test',
      'the open tab',
    );
    await closePage(earlier);

    const blocked = stack.sites.page('www.blocked.test', '/', html('Games', '<p>Games</p>'));
    const page = await open(stack.context, blocked);
    const q = (await landsOn(page, isOverlay, 'Hearth Space')).searchParams;
    assert.equal(q.get('reason'), 'filtered');
    assert.equal(q.get('device'), 'www.blocked.test');
    assert.equal(q.get('url'), null);
    assert.equal(q.get('age'), 'teen', "the child's tier");
    assert.equal(q.get('note'), 'Homework first, then games', "the parent's note");

    // The child asks from Hearth Space: the parent's alert names the site the worker recorded.
    await page.fill(hook('message-input'), 'I need it for my project');
    await page.click(hook('send'));
    const alert = await until(async () => {
      const items = (await stack.home.client.get('/api/alerts?kind=access_requested')).body.items;
      return items.find(
        (a: { payload: { message?: string } }) => a.payload.message === 'I need it for my project',
      );
    }, 'the access request');
    assert.deepEqual(alert.payload, {
      reason: 'filtered',
      message: 'I need it for my project',
      domain: 'www.blocked.test',
    });

    const hop = stack.sites.page('hop.test', '/go', () => ({
      status: 302,
      headers: { location: blocked },
      html: '',
    }));
    await page.goto(hop).catch(() => {});
    await landsOn(
      page,
      (u) => isOverlay(u) && u.searchParams.get('device') === 'www.blocked.test',
      'Hearth Space',
    );
    // The parent's own site is not on the list.
    const fine = stack.sites.page('fine.test', '/', html('Fine', '<p>Fine</p>'));
    await page.goto(fine);
    assert.equal(page.url(), fine);
    await closePage(page);
  });

  test('a page that fakes messages to the extension gets nothing sent anywhere', async () => {
    const before = stack.proxy.requests.length;
    const url = stack.sites.page(
      'spoof.test',
      '/',
      html(
        'Spoof',
        `<script>
          const fakes = [
            { type: 'LOGIN_DETECTED', domain: 'victim.test', username: 'spoofed' },
            { type: 'CHECK_REGISTRATION', domain: 'victim.test' },
            { type: 'REQUEST_REGISTRATION', domain: 'victim.test', url: 'http://victim.test/join' },
            { type: 'ACCESS_REQUEST', reason: 'filtered', message: 'spoofed' },
          ];
          // Straight to the extension: web pages have no way in (no externally_connectable match).
          for (const m of fakes) try { chrome.runtime.sendMessage('${EXTENSION_ID}', m); } catch {}
          window.chrome = { runtime: { id: '${EXTENSION_ID}', sendMessage() {}, connect() {}, onMessage: { addListener() {} } } };
          for (const m of fakes) { window.postMessage(m, '*'); window.postMessage(JSON.stringify(m), '*'); }
        </script>
        <iframe src="chrome-extension://${EXTENSION_ID}/blockedv2.html?reason=signup&device=victim.test&url=http%3A%2F%2Fvictim.test%2Fjoin"></iframe>
        <h1>Log in</h1><form method="post" action="/in">
          <label>Username <input name="username" autocomplete="username"></label>
          <label>Password <input type="password" name="password" autocomplete="current-password"></label>
          <button type="submit">Log in</button></form>`,
      ),
    );
    stack.sites.page('spoof.test', '/in', html('In', '<p>In</p>'));
    const page = await open(stack.context, url);
    // Hearth Space is web-accessible, so the frame loads; asked from inside a frame, the worker refuses.
    const framed = await until(
      async () =>
        page.frames().find((f) => f.url().startsWith(`chrome-extension://${EXTENSION_ID}/`)) ?? null,
      'the framed overlay',
    );
    await framed.click('[data-hearth="request-signup"]');
    await until(
      async () => framed.$('[data-hearth="status"][data-tone="error"]'),
      'the framed request to be refused',
    );
    // The one real login on the page, so that we know when the extension has done all it will.
    await page.fill('input[name="username"]', 'real_mia');
    await page.fill('input[name="password"]', 'whatever');
    await page.click('button[type="submit"]');
    await until(async () => {
      const list = (await stack.home.client.get('/api/online-accounts?q=spoof.test')).body.items;
      return list.some((a: { username: string }) => a.username === 'real_mia');
    }, 'the real login');
    const sent = stack.proxy.requests.slice(before);
    assert.deepEqual(
      sent.filter((r) => /victim|spoofed/.test(r.body + r.path)),
      [],
      'nothing of the fakes reached the server',
    );
    const accounts = (await stack.home.client.get('/api/online-accounts')).body.items;
    assert.ok(
      !accounts.some(
        (a: { domain: string; username: string }) => a.domain === 'victim.test' || a.username === 'spoofed',
      ),
    );
    const approvals = (await stack.home.client.get('/api/approvals')).body.items;
    assert.ok(!approvals.some((a: { domain: string | null }) => a.domain === 'victim.test'));
    await closePage(page);
  });

  test('the popup says it is connected and shows the policy and the last check', async () => {
    const page = await stack.context.newPage();
    await page.setViewportSize({ width: 360, height: 420 });
    await page.goto(`chrome-extension://${EXTENSION_ID}/popup.html`);
    await page.waitForSelector('body[data-connection="connected"][data-ready]');
    assert.match(await page.locator('[data-popup="headline"]').innerText(), /looking after this browser/);
    assert.match(await page.locator('[data-popup="policy"]').innerText(), /Version \d+ · 1 site$/);
    assert.match(await page.locator('[data-popup="signups"]').innerText(), /parent’s OK/);
    assert.equal(await page.locator('[data-popup="paused"]').isHidden(), true);
    await screenshot(page, 'popup', true);
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'popup-phone');
    await closePage(page);
  });

  // Last: it stops the agent.
  test('agent unreachable: a sign-up page is blocked all the same, and the popup says why', async () => {
    await stack.daemon.stop();
    const url = stack.sites.page('later.test', '/signup', JOIN_PAGE);
    const page = await open(stack.context, url);
    await page.waitForURL(isOverlay);
    const q = new URL(page.url()).searchParams;
    assert.equal(q.get('reason'), 'signup');
    assert.equal(q.get('device'), 'later.test');
    assert.equal(q.get('context'), 'unreachable');
    const held = await page.waitForSelector('[data-hearth-context="unreachable"]');
    assert.match((await held.textContent()) ?? '', /isn’t answering|can’t be reached|can’t check/);
    // The redirect and the popup's status are written separately: wait for the status to say both.
    const status = await until(async () => {
      const s = await stack.status();
      return s?.connection === 'agent_unreachable' && s.lastCheck?.outcome === 'failed_closed' ? s : null;
    }, 'the status of the held sign-up');
    assert.equal(status.lastCheck?.domain, 'later.test');
    await closePage(page);

    const popup = await stack.context.newPage();
    await popup.setViewportSize({ width: 360, height: 480 });
    await popup.goto(`chrome-extension://${EXTENSION_ID}/popup.html`);
    await popup.waitForSelector('body[data-connection="agent_unreachable"][data-ready]');
    assert.match(await popup.locator('[data-popup="headline"]').innerText(), /can’t reach/);
    assert.match(await popup.locator('[data-popup="paused"]').innerText(), /waits until Hearth is connected/);
    await screenshot(popup, 'popup-unreachable', true);
    await closePage(popup);
  });
});
