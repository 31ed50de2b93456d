import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { SimAgent } from '../../bench/src/simulator.ts';
import type { TestServer } from '../../server/test/helpers.ts';
import {
  deviceSection,
  laptopRequests,
  mappingRow,
  openApprovalsHousehold,
  WITHOUT_OVERLAYS,
  waitingItems,
} from './approvals-support.ts';
import {
  assertFitsPhone,
  assertNotReloaded,
  browserSkipReason,
  closeHousehold,
  closePage,
  gotoLive,
  markPage,
  type Owner,
  openPage,
  PHONE,
  SCREENSHOTS,
  screenshot,
} from './support.ts';

const skip = browserSkipReason();

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

describe('allowed sites and online accounts', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let owner: Owner;
  let ann: { id: string };
  let ben: { id: string };
  let agents: SimAgent[] = [];
  let device: ReturnType<typeof laptopRequests>;
  const bearer = (method: string, url: string, body?: unknown) => device.bearer(method, url, body);
  const check = (domain: string, account?: string) => device.check(domain, account);
  const logLogin = (domain: string, username: string, account?: string) =>
    device.logLogin(domain, username, account);

  before(async () => {
    let laptop: SimAgent;
    let mappingId: string;
    ({
      server,
      browser,
      owner,
      ann,
      ben,
      laptop,
      agents,
      annLaptopMapping: mappingId,
    } = await openApprovalsHousehold());
    device = laptopRequests(server, laptop);
    // Where the approval requests' story leaves Ann: sign-ups enforced on the family laptop, one site
    // approved once, one always, and one request still waiting.
    const enforced = await owner.client.post(`/api/mappings/${mappingId}/approval-settings`, {
      enforce_signup_approvals: true,
    });
    assert.equal(enforced.status, 200, enforced.text);
    for (const [domain, url, grant] of [
      ['games.example.com', 'https://games.example.com/signup?from=home', 'once'],
      ['video.example.org', 'https://video.example.org/join', 'persistent'],
    ] as const) {
      const asked = await device.askSignup(domain, url);
      assert.equal(asked.status, 201);
      const approved = await owner.client.post(`/api/approvals/${asked.body.id}/approve`, { grant });
      assert.equal(approved.status, 200, approved.text);
    }
    // (A sign-up request is for the whole site: example.com and example.org are decided above.)
    assert.equal((await device.askSignup('forum.example.net', 'https://forum.example.net/')).status, 201);
  });
  after(() => closeHousehold({ server, browser }, agents));

  test('Allowed sites lists the grants; a site allowed there passes the check and Revoke takes it back', async () => {
    // The first login after "Approve once" uses that approval up.
    assert.equal((await logLogin('games.example.com', 'ann.rivera@example.com')).status, 200);
    assert.equal((await check('games.example.com')).allowed, false);

    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await gotoLive(page, `${server.url}/children/${ann.id}`);
    const row = mappingRow(page, 'Living room laptop');
    const grants = row.getByTestId('grant-row');
    // Approving a request allows its site (registrable domain) and everything under it.
    const video = grants.filter({ has: page.getByText('example.org', { exact: true }) });
    await video.getByText('Always', { exact: true }).waitFor();
    await video.getByText('Every sign-up on this site').waitFor();
    const games = grants.filter({ has: page.getByText('example.com', { exact: true }) });
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
    await school.getByText('Living room laptop · account ann').waitFor();
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

    // A login made while the page is open shows up without a reload: the page asks again by itself.
    await markPage(page);
    assert.equal((await logLogin('maths.example.net', 'ann.maths', 'ann')).status, 200);
    await page.waitForRequest((r) => new URL(r.url()).pathname === '/api/online-accounts');
    // (Sorted by username: ann.maths comes before ann.rivera@….)
    await waitForDomains(page, [
      'maths.example.net',
      'games.example.com',
      'school.example.edu',
      'video.example.org',
    ]);
    await assertNotReloaded(page);
    await closePage(handle);
  });

  test('at phone width the three pages fit the screen, the accounts as cards', async () => {
    const phone = await openPage(browser, server, { as: owner.client, viewport: PHONE });
    const { page } = phone;
    await gotoLive(page, `${server.url}/access-requests`);
    await waitingItems(page)
      .filter({ hasText: 'forum.example.net' })
      .getByRole('button', { name: 'Approve once' })
      .waitFor();
    await assertFitsPhone(page);
    await page.screenshot({ path: '/tmp/hearth-access-requests-phone.png', fullPage: true });

    await page.goto(`${server.url}/online-accounts`);
    await waitForDomains(page, [
      'maths.example.net',
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
      'maths.example.net',
      'school.example.edu',
      'video.example.org',
    ]);
    await assertFitsPhone(page);
    await page.screenshot({ path: '/tmp/hearth-online-accounts-phone.png', fullPage: true });

    await page.goto(`${server.url}/children/${ann.id}`);
    await mappingRow(page, 'Living room laptop').getByTestId('grant-row').first().waitFor();
    await assertFitsPhone(page);
    await page.mouse.move(0, 0);
    await deviceSection(page).screenshot({ path: '/tmp/hearth-child-phone.png', style: WITHOUT_OVERLAYS });
    await closePage(phone);
  });
});
