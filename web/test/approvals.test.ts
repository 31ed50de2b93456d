import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { SimAgent } from '../../bench/src/simulator.ts';
import { enrollmentToken, type TestServer } from '../../server/test/helpers.ts';
import {
  assertFitsPhone,
  assertNotReloaded,
  browserSkipReason,
  Client,
  closeHousehold,
  closePage,
  createAnnAndBen,
  gotoLive,
  markPage,
  type Owner,
  openHousehold,
  openPage,
  PASSWORD,
  PHONE,
  screenshot,
  timeUntil,
} from './support.ts';

const skip = browserSkipReason();

// Changes travel over the event stream; allow a little for the request that follows an event.
const _LIVE_MS = 3000;
const SCREENSHOTS = path.resolve(import.meta.dirname, '../../docs/screenshots');

// A picture of one section: no passing notification, nor the fixed header over it.
const WITHOUT_OVERLAYS =
  '.mantine-Notifications-root, .mantine-AppShell-header { display: none !important; }';
const deviceSection = (page: Page) => page.getByRole('region', { name: 'Devices' });

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A device mapping's box on a child's page. */
const mappingRow = (page: Page, hostname: string) =>
  page.getByTestId('mapping-row').filter({ hasText: hostname });

const enforceSwitch = (row: Locator) => row.getByRole('switch', { name: 'Enforce Sign-up Approvals' });

/** Approval requests waiting for a decision, and those decided. */
const waitingItems = (page: Page) =>
  page.getByRole('list', { name: 'Approval requests' }).getByTestId('approval-item');
const decidedItems = (page: Page, name = 'Just decided') =>
  page.getByRole('list', { name }).getByTestId('approval-item');

const pendingBadge = (page: Page) =>
  page
    .getByRole('navigation')
    .getByRole('link', { name: /Access Requests/ })
    .getByTestId('pending-approvals-badge');

/** The domains of the Online Accounts rows, top to bottom. */
const shownDomains = (page: Page) =>
  page.getByTestId('account-row').getByTestId('account-domain').allTextContents();

async function waitForDomains(page: Page, expected: string[]): Promise<void> {
  await page.waitForFunction(
    (want) =>
      JSON.stringify(
        [...document.querySelectorAll('[data-testid="account-row"] [data-testid="account-domain"]')].map(
          (el) => el.textContent,
        ),
      ) === JSON.stringify(want),
    expected,
  );
}

describe('sign-up approvals, approval requests and online accounts', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let owner: Owner;
  let ann: { id: string };
  let ben: { id: string };
  let laptop: SimAgent;
  const agents: SimAgent[] = [];

  /** What the agent asks, with its own token, as the browser extension's helper does. */
  const bearer = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${server.url}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${laptop.secureToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const check = async (domain: string, account = 'ann') =>
    (
      await bearer(
        'GET',
        `/api/registration/check?domain=${encodeURIComponent(domain)}&linux_username=${account}`,
      )
    ).body;
  const askSignup = (domain: string, url: string, account = 'ann') =>
    bearer('POST', '/api/registration/request', { domain, linux_username: account, url });
  const logLogin = (domain: string, username: string, account = 'ann') =>
    bearer('POST', '/api/registration/log-login', { domain, username, linux_username: account });
  const askOther = (type: string, details: object, account = 'ann') =>
    bearer('POST', '/api/approvals/request', { type, linux_username: account, details });
  const requestAccess = (account: string, reason: string, message: string) =>
    bearer('POST', '/api/access-request', { linux_username: account, reason, message });

  /** Pairs and approves an agent, and maps its accounts to children. */
  const pairedAgent = async (
    hostname: string,
    displayName: string,
    accounts: [string, { id: string }][],
    agentVersion?: string,
  ) => {
    const agent = new SimAgent({
      url: server.wsUrl,
      enrollmentToken: await enrollmentToken(owner),
      hostname,
      agentVersion,
      linuxUsers: accounts.map(([username]) => ({ username })),
    });
    agents.push(agent);
    await agent.connect();
    const approved = agent.waitFor('pairing_approved');
    await owner.client.post(`/api/device/approve/${agent.systemId}`, { display_name: displayName });
    await approved;
    for (const [account, child] of accounts) {
      const res = await owner.client.post(`/managed-users/${child.id}/mappings/add`, {
        system_id: agent.systemId,
        linux_username: account,
      });
      assert.equal(res.status, 201);
    }
    return agent;
  };

  before(async () => {
    ({ server, browser, owner } = await openHousehold());
    ({ ann, ben } = await createAnnAndBen(owner));
    laptop = await pairedAgent('family-laptop', 'Living room laptop', [
      ['ann', ann],
      ['ben', ben],
    ]);
    // Ann's old laptop runs an agent from before sign-up approvals.
    await pairedAgent('old-laptop', 'Old laptop', [['ann', ann]], '0.56.0');
  });
  after(() => closeHousehold({ server, browser }, agents));

  test('the Enforce switch turns sign-up approvals on for the very next check; an old agent cannot', async () => {
    assert.deepEqual(await check('games.example.com'), {
      allowed: true,
      pending: false,
      domain: 'games.example.com',
    });
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await gotoLive(page, `${server.url}/children/${ann.id}`);
    const row = mappingRow(page, 'family-laptop');
    const toggle = enforceSwitch(row);
    await toggle.waitFor();
    assert.equal(await toggle.isChecked(), false);
    await row.getByText('Ann asks you before creating an account on a website').waitFor();

    await toggle.check();
    await page.getByText('Ann now needs your OK to sign up on websites as ann on family-laptop.').waitFor();
    assert.equal(await toggle.isChecked(), true);
    // No agent restart: the next check already refuses.
    assert.deepEqual(await check('games.example.com'), {
      allowed: false,
      pending: false,
      domain: 'games.example.com',
    });
    // Only Ann's account on this laptop: Ben's is not enforced.
    assert.equal((await check('games.example.com', 'ben')).allowed, true);
    await row.getByText('No sites yet. Approving a sign-up request adds its site here.').waitFor();

    // The old agent's switch is off and says why.
    const old = mappingRow(page, 'old-laptop');
    assert.equal(await enforceSwitch(old).isDisabled(), true);
    assert.equal(await enforceSwitch(old).isChecked(), false);
    await old
      .getByText(
        'This device’s agent is too old or does not support sign-up approvals (Linux and Windows agents 0.57.0 or later).',
      )
      .waitFor();
    assert.equal(await old.getByRole('form', { name: 'Allow a site' }).count(), 0);

    // Turned off and on again, the switch keeps to the server's value after a reload.
    await toggle.uncheck();
    await page.getByText('Ann can sign up on websites as ann on family-laptop without asking.').waitFor();
    assert.equal((await check('games.example.com')).allowed, true);
    await toggle.check();
    await page.getByText('Sign-up approvals on').last().waitFor();
    await page.reload();
    await enforceSwitch(mappingRow(page, 'family-laptop')).waitFor();
    assert.equal(await enforceSwitch(mappingRow(page, 'family-laptop')).isChecked(), true);
    assert.equal((await check('games.example.com')).allowed, false);
    await closePage(handle);
  });

  test('sign-up and other requests arrive live on Access Requests and are answered there', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await gotoLive(page, `${server.url}/access-requests`);
    await page.getByRole('heading', { level: 2, name: 'Approvals' }).waitFor();
    await page.getByText('Nothing waiting for you').waitFor();
    await page.getByText('No requests right now').waitFor();
    await markPage(page);

    // A message from Hearth Space, then a sign-up the extension held back.
    assert.equal((await requestAccess('ann', 'signup', 'Can I join the maths club site?')).status, 201);
    const url = 'https://games.example.com/signup?from=home';
    const created = await askSignup('games.example.com', url);
    assert.equal(created.status, 201);
    const games = waitingItems(page).filter({ hasText: 'games.example.com' });
    const appeared = await timeUntil(games);
    console.log(`# the sign-up request was listed after ${appeared} ms`);
    await games.getByTestId('approval-type').getByText('Site Sign-Up', { exact: true }).waitFor();
    await games.getByText('Wants to create an account on games.example.com').waitFor();
    await games.getByText('Ann', { exact: true }).waitFor();
    await games.getByRole('link', { name: 'family-laptop' }).waitFor();
    const link = games.getByTestId('approval-url');
    assert.equal(await link.getAttribute('href'), url);
    assert.equal(await link.getAttribute('target'), '_blank');
    assert.match((await link.getAttribute('rel')) ?? '', /\bnoopener\b/);
    assert.match((await link.textContent()) ?? '', /games\.example\.com\/signup\?from=home/);
    assert.deepEqual(await check('games.example.com'), {
      allowed: false,
      pending: true,
      domain: 'games.example.com',
    });
    await pendingBadge(page).getByText('1', { exact: true }).waitFor();
    await page
      .getByRole('list', { name: 'Access requests' })
      .getByText('“Can I join the maths club site?”')
      .waitFor();

    // More time: the minutes asked for are filled in.
    assert.equal(
      (await askOther('time_extension', { minutes: 20, reason: 'Finishing my essay' })).status,
      201,
    );
    const time = waitingItems(page).filter({ hasText: 'more minutes' });
    await time.getByTestId('approval-type').getByText('Time', { exact: true }).waitFor();
    await time.getByText('Asks for 20 more minutes today').waitFor();
    await time.getByText('“Finishing my essay”').waitFor();
    assert.equal(await time.getByRole('textbox', { name: 'Minutes' }).inputValue(), '20');
    await time.getByRole('button', { name: 'Add 20 minutes' }).waitFor();
    await pendingBadge(page).getByText('2', { exact: true }).waitFor();
    const notice = page.getByTestId('access-request-notification');
    await notice.getByRole('button', { name: 'Dismiss' }).click();
    await notice.waitFor({ state: 'detached' });
    await screenshot(page, 'access-requests.png');

    // Approve once: the next check allows it; the request moves to the decided ones.
    await games.getByRole('button', { name: 'Approve once' }).click();
    const gamesDone = decidedItems(page).filter({ hasText: 'games.example.com' });
    await gamesDone.getByTestId('approval-outcome').getByText('Approved once').waitFor();
    await gamesDone.getByText(/approved by you just now/).waitFor();
    assert.equal(await games.count(), 0);
    assert.deepEqual(await check('games.example.com'), {
      allowed: true,
      pending: false,
      domain: 'games.example.com',
    });

    // Deny: refused, and nothing pending any more.
    await askSignup('chat.example.net', 'https://chat.example.net/register');
    const chat = waitingItems(page).filter({ hasText: 'chat.example.net' });
    await chat.getByRole('button', { name: 'Deny' }).click();
    await decidedItems(page)
      .filter({ hasText: 'chat.example.net' })
      .getByTestId('approval-outcome')
      .getByText('Denied')
      .waitFor();
    assert.deepEqual(await check('chat.example.net'), {
      allowed: false,
      pending: false,
      domain: 'chat.example.net',
    });

    // Approve always: the site and its subdomains, for good.
    await askSignup('video.example.org', 'https://video.example.org/join');
    await waitingItems(page)
      .filter({ hasText: 'video.example.org' })
      .getByRole('button', { name: 'Approve always' })
      .click();
    await decidedItems(page)
      .filter({ hasText: 'video.example.org' })
      .getByTestId('approval-outcome')
      .getByText('Approved always')
      .waitFor();
    assert.equal((await check('video.example.org')).allowed, true);
    assert.equal((await check('www.video.example.org')).allowed, true);

    // Add N minutes, with the number changed.
    await time.getByRole('textbox', { name: 'Minutes' }).fill('25');
    await time.getByRole('button', { name: 'Add 25 minutes' }).click();
    await decidedItems(page)
      .filter({ hasText: 'more minutes' })
      .getByTestId('approval-outcome')
      .getByText('Approved', { exact: true })
      .waitFor();
    const times = (await owner.client.get(`/api/approvals?type=time_extension`)).body.items;
    assert.deepEqual(
      times.map((a: { status: string }) => a.status),
      ['approved'],
    );

    // An app and a website, in words.
    await askOther('app_access', { identifier: 'org.minetest.Minetest', application_name: 'Minetest' });
    const app = waitingItems(page).filter({ hasText: 'Minetest' });
    await app.getByTestId('approval-type').getByText('App', { exact: true }).waitFor();
    await app.getByText('Asks to use the app Minetest').waitFor();
    await app.getByText('org.minetest.Minetest').waitFor();
    await askOther('domain_unblock', { domain: 'maps.example.com' });
    const maps = waitingItems(page).filter({ hasText: 'maps.example.com' });
    await maps.getByTestId('approval-type').getByText('Website', { exact: true }).waitFor();
    await maps.getByText('Asks to open maps.example.com, which is blocked').waitFor();
    await pendingBadge(page).getByText('2', { exact: true }).waitFor();

    // Another parent answers: the request moves here too, with their name.
    const grandmaRes = await owner.client.post('/api/household/parents', {
      username: 'grandma',
      password: PASSWORD,
      role: 'admin',
    });
    assert.equal(grandmaRes.status, 201);
    const grandma = new Client(server.url);
    assert.equal((await grandma.signIn('grandma', PASSWORD)).status, 200);
    const mapsId = (await owner.client.get('/api/approvals?type=domain_unblock')).body.items[0].id;
    assert.equal(
      (await grandma.post(`/api/approvals/${mapsId}/approve`, { grant: 'persistent' })).status,
      200,
    );
    await timeUntil(
      decidedItems(page)
        .filter({ hasText: 'maps.example.com' })
        .getByText(/approved by grandma/),
    );
    assert.equal(await maps.count(), 0);
    await pendingBadge(page).getByText('1', { exact: true }).waitFor();

    // …and when both answer at once, the slower one is told.
    const appId = (await owner.client.get('/api/approvals?type=app_access')).body.items[0].id;
    await page.route('**/api/approvals/*/deny', async (route) => {
      await grandma.post(`/api/approvals/${appId}/approve`, { grant: 'once' });
      await route.continue();
    });
    await app.getByRole('button', { name: 'Deny' }).click();
    const appDone = decidedItems(page).filter({ hasText: 'Minetest' });
    await appDone.getByText('Another parent already decided this.').waitFor();
    await appDone.getByTestId('approval-outcome').getByText('Approved once').waitFor();
    await page.unroute('**/api/approvals/*/deny');
    await pendingBadge(page).waitFor({ state: 'detached' });
    await page.getByText('Nothing waiting for you').waitFor();

    // All: every decided request, with who and when.
    await page.getByRole('radiogroup', { name: 'Which approvals' }).getByText('All').click();
    const everyDecided = decidedItems(page, 'Decided');
    await page.waitForFunction(
      () => document.querySelectorAll('[data-testid="approval-item"][data-status]').length === 6,
    );
    assert.equal(await everyDecided.count(), 6);
    assert.match(page.url(), /approvals=all/);
    await assertNotReloaded(page);

    // A new request still arrives at the top while All is shown; the dashboard counts it.
    await askSignup('forum.example.com', 'https://forum.example.com/');
    await waitingItems(page).filter({ hasText: 'forum.example.com' }).waitFor();
    await page.getByRole('navigation').getByRole('link', { name: 'Dashboard' }).click();
    await page
      .getByTestId('count-pending-approvals')
      .getByTestId('count')
      .getByText('1', { exact: true })
      .waitFor();
    await closePage(handle);
  });

  test('Allowed sites lists the grants; a site allowed there passes the check and Revoke takes it back', async () => {
    // The first login after "Approve once" uses that approval up.
    assert.equal((await logLogin('games.example.com', 'ann.rivera@example.com')).status, 200);
    assert.equal((await check('games.example.com')).allowed, false);

    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await gotoLive(page, `${server.url}/children/${ann.id}`);
    const row = mappingRow(page, 'family-laptop');
    const grants = row.getByTestId('grant-row');
    const video = grants.filter({ hasText: 'video.example.org' });
    await video.getByText('Always', { exact: true }).waitFor();
    await video.getByText('Every sign-up on this site').waitFor();
    const games = grants.filter({ hasText: 'games.example.com' });
    await games.getByText('Once', { exact: true }).waitFor();
    await games.getByText('Used just now').waitFor();

    const form = row.getByRole('form', { name: 'Allow a site' });
    // An empty site is explained before anything is sent.
    await form.getByRole('button', { name: 'Allow' }).click();
    await form.getByText('Enter a website, such as example.com.').waitFor();
    // A pasted address keeps only its site.
    await form.getByRole('textbox', { name: 'Allow a site' }).fill('https://homework.example.com/join');
    await form.getByRole('radiogroup', { name: 'How often' }).getByText('Always').click();
    await form.getByRole('button', { name: 'Allow' }).click();
    const homework = grants.filter({ hasText: 'homework.example.com' });
    await homework.getByText('Always', { exact: true }).waitFor();
    assert.equal(await form.getByRole('textbox', { name: 'Allow a site' }).inputValue(), '');
    assert.deepEqual(await check('homework.example.com'), {
      allowed: true,
      pending: false,
      domain: 'homework.example.com',
    });

    // A bad site gets the server's sentence.
    await form.getByRole('textbox', { name: 'Allow a site' }).fill('not a site');
    await form.getByRole('button', { name: 'Allow' }).click();
    const refusal = form.getByRole('alert');
    await refusal.getByText(/is not a valid domain/).waitFor();
    assert.doesNotMatch((await refusal.textContent()) ?? '', /\{|invalid_request|400/);

    await homework.getByRole('button', { name: 'Revoke' }).click();
    await homework.waitFor({ state: 'detached' });
    assert.equal((await check('homework.example.com')).allowed, false);

    // One more for the picture: a one-time site, still unused.
    await form.getByRole('textbox', { name: 'Allow a site' }).fill('art.example.com');
    await form.getByRole('radiogroup', { name: 'How often' }).getByText('Once').click();
    await form.getByRole('button', { name: 'Allow' }).click();
    await grants
      .filter({ hasText: 'art.example.com' })
      .getByText(/One sign-up, ends in 2\d h/)
      .waitFor();
    assert.equal((await check('art.example.com')).allowed, true);
    await form.getByRole('textbox', { name: 'Allow a site' }).blur();
    await page.mouse.move(0, 0);
    await deviceSection(page).screenshot({
      path: path.join(SCREENSHOTS, 'child-signup-settings.png'),
      animations: 'disabled',
      style: WITHOUT_OVERLAYS,
    });
    await closePage(handle);
  });

  test('Online Accounts lists the logins: search, sort by column and filter by child', async () => {
    // Logins a moment apart, so "last active" orders them.
    for (const [domain, username, account] of [
      ['school.example.edu', 'ann.rivera@school.example.edu', 'ann'],
      ['blocks.example.com', 'ben2014', 'ben'],
      ['video.example.org', 'annr', 'ann'],
    ] as const) {
      await pause(15);
      const res = await logLogin(domain, username, account);
      assert.equal(res.status, 200);
      assert.equal(res.body.username, username);
    }
    // Passwords are not taken: the extension never sends one, and one sent anyway is dropped unread.
    const withPassword = await bearer('POST', '/api/registration/log-login', {
      domain: 'school.example.edu',
      username: 'ann.rivera@school.example.edu',
      linux_username: 'ann',
      password: 'hunter2-secret',
    });
    assert.equal(withPassword.status, 200);
    assert.doesNotMatch(JSON.stringify(withPassword.body), /hunter2/);

    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await gotoLive(page, `${server.url}/online-accounts`);
    const byLastActive = [
      'school.example.edu',
      'video.example.org',
      'blocks.example.com',
      'games.example.com',
    ];
    await waitForDomains(page, byLastActive);
    const table = page.getByRole('table', { name: 'Online accounts' });
    const header = (name: string) => table.getByRole('columnheader', { name });
    assert.equal(await header('Last active').getAttribute('aria-sort'), 'descending');
    assert.equal(await header('Domain').getAttribute('aria-sort'), null);
    const school = page.getByTestId('account-row').filter({ hasText: 'school.example.edu' });
    await school.getByText('ann.rivera@school.example.edu').waitFor();
    await school.getByText('Ann', { exact: true }).waitFor();
    await school.getByText('family-laptop · account ann').waitFor();
    await school.getByText('just now').waitFor();
    assert.doesNotMatch((await page.locator('main').textContent()) ?? '', /hunter2/);
    await page.getByText('4 accounts').waitFor();
    await screenshot(page, 'online-accounts.png');

    // Sorting by a column's header, then the other way.
    await table.getByRole('button', { name: 'Domain' }).click();
    await waitForDomains(page, [...byLastActive].sort());
    assert.equal(await header('Domain').getAttribute('aria-sort'), 'ascending');
    assert.equal(await header('Last active').getAttribute('aria-sort'), null);
    assert.match(page.url(), /sort=domain/);
    await table.getByRole('button', { name: 'Domain' }).click();
    await waitForDomains(page, [...byLastActive].sort().reverse());
    assert.equal(await header('Domain').getAttribute('aria-sort'), 'descending');
    await table.getByRole('button', { name: 'Last active' }).click();
    await waitForDomains(page, byLastActive);
    assert.equal(await header('Last active').getAttribute('aria-sort'), 'descending');
    await table.getByRole('button', { name: 'Last active' }).click();
    await waitForDomains(page, [...byLastActive].reverse());
    assert.equal(await header('Last active').getAttribute('aria-sort'), 'ascending');
    await table.getByRole('button', { name: 'Username / email' }).click();
    await waitForDomains(page, [
      'games.example.com',
      'school.example.edu',
      'video.example.org',
      'blocks.example.com',
    ]);

    // Search: by domain, by username, by part of an email, whatever the case.
    const search = page.getByRole('searchbox', { name: 'Search' });
    await search.fill('video');
    await waitForDomains(page, ['video.example.org']);
    await page.getByText('1 account matching “video”').waitFor();
    await search.fill('ben2014');
    await waitForDomains(page, ['blocks.example.com']);
    await search.fill('ANN.RIVERA');
    await waitForDomains(page, ['games.example.com', 'school.example.edu']);
    await search.fill('nothing-like-this');
    await page.getByText('No accounts match').waitFor();
    await page.getByRole('button', { name: 'Clear search and filters' }).click();
    await waitForDomains(page, [
      'games.example.com',
      'school.example.edu',
      'video.example.org',
      'blocks.example.com',
    ]);

    // By child.
    await page.getByRole('combobox', { name: 'Child' }).click();
    await page.getByRole('option', { name: 'Ben' }).click();
    await waitForDomains(page, ['blocks.example.com']);
    assert.match(page.url(), new RegExp(`child=${ben.id}`));
    await page.getByRole('combobox', { name: 'Child' }).click();
    await page.getByRole('option', { name: 'Ann' }).click();
    await waitForDomains(page, ['games.example.com', 'school.example.edu', 'video.example.org']);
    assert.deepEqual((await shownDomains(page)).length, 3);
    await closePage(handle);
  });

  test('at phone width the three pages fit the screen, the accounts as cards', async () => {
    const phone = await openPage(browser, server, { as: owner.client, viewport: PHONE });
    const { page } = phone;
    await gotoLive(page, `${server.url}/access-requests`);
    await waitingItems(page)
      .filter({ hasText: 'forum.example.com' })
      .getByRole('button', { name: 'Approve once' })
      .waitFor();
    await assertFitsPhone(page);
    await page.screenshot({ path: '/tmp/hearth-access-requests-phone.png', fullPage: true });

    await page.goto(`${server.url}/online-accounts`);
    await waitForDomains(page, [
      'school.example.edu',
      'video.example.org',
      'blocks.example.com',
      'games.example.com',
    ]);
    assert.equal(await page.getByRole('table').count(), 0);
    await page.getByRole('list', { name: 'Online accounts' }).waitFor();
    await page.getByRole('combobox', { name: 'Sort by' }).click();
    await page.getByRole('option', { name: 'Domain, A to Z' }).click();
    await waitForDomains(page, [
      'blocks.example.com',
      'games.example.com',
      'school.example.edu',
      'video.example.org',
    ]);
    await assertFitsPhone(page);
    await page.screenshot({ path: '/tmp/hearth-online-accounts-phone.png', fullPage: true });

    await page.goto(`${server.url}/children/${ann.id}`);
    await mappingRow(page, 'family-laptop').getByTestId('grant-row').first().waitFor();
    await assertFitsPhone(page);
    await page.mouse.move(0, 0);
    await deviceSection(page).screenshot({ path: '/tmp/hearth-child-phone.png', style: WITHOUT_OVERLAYS });
    await closePage(phone);
  });
});
