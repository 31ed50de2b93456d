// Game consoles (issue 18, DESIGN §13) in Chromium against a real server pointed at the vendor
// simulators: Xbox linked through the wizard (the sign-in opens the simulator's page in a new tab, its
// "continue" link is the address pasted back), a wrong paste answered in the server's words under the
// field, consoles imported for children with per-row progress, Sync now, the sync state on the child's
// page, an expired link, and Unlink after its confirmation; at desktop and phone width.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  type NintendoSimulator,
  startNintendoSimulator,
  startXboxSimulator,
  type XboxSimulator,
} from '@hearth/simulators';
import type { Browser, Locator, Page } from 'playwright-core';
import type { TestServer } from '../../server/test/helpers.ts';
import {
  assertFitsPhone,
  browserSkipReason,
  closeHousehold,
  closePage,
  createAnnAndBen,
  DESKTOP,
  gotoLive,
  type Owner,
  openHousehold,
  openPage,
  PHONE,
  SCREENSHOTS,
  screenshot,
  WITHIN_LIVE,
  waitForPath,
} from './support.ts';

const skip = browserSkipReason();

const LIVING_ROOM = 'g:9000000000000001';
const BEDROOM = 'g:9000000000000002';
const SWITCH = 'D0000000000000A1';

/** The Riveras at Microsoft: Ann plays in the living room, Ben there and in his bedroom. */
const XBOX_FAMILY = {
  parent: { id: '1000000001', name: 'Maria Rivera' },
  children: [
    { id: '2000000001', name: 'Ann Rivera', devices: [{ id: LIVING_ROOM, name: 'Living room Xbox' }] },
    {
      id: '2000000002',
      name: 'Ben Rivera',
      devices: [
        { id: LIVING_ROOM, name: 'Living room Xbox' },
        { id: BEDROOM, name: 'Bedroom Xbox' },
        { id: 'g:9000000000000003', name: 'Ben’s laptop', deviceClass: 'Windows' },
      ],
    },
  ],
};

const NINTENDO_FAMILY = {
  account: { id: 'a1b2c3d4e5f60001', nickname: 'Maria' },
  devices: [
    {
      id: SWITCH,
      label: 'Family Switch',
      players: [
        { id: 'P000000000000001', nickname: 'Ann' },
        { id: 'P000000000000002', nickname: 'Ben' },
      ],
    },
  ],
};

/** Today in the server's zone (the household's, as the test server starts it). */
const today = () => new Intl.DateTimeFormat('en-CA').format(new Date());

/** What the vendor's sign-in page would send a parent to, asked as JSON the way a script can. */
async function signInRedirect(url: string): Promise<string> {
  const res = await fetch(url, { headers: { accept: 'application/json' } });
  assert.equal(res.status, 200, await res.clone().text());
  return ((await res.json()) as { redirect_url: string }).redirect_url;
}

/** Links a vendor through the routes the wizard uses, for tests about what comes after. */
async function linkByApi(owner: Owner, provider: 'xbox' | 'nintendo'): Promise<void> {
  const start = await owner.client.get(`/api/${provider}/login-url`);
  assert.equal(start.status, 200, start.text);
  const redirect_url = await signInRedirect(start.body.url);
  const linked = await owner.client.post(`/api/${provider}/authenticate`, {
    redirect_url,
    state: start.body.state,
  });
  assert.equal(linked.status, 200, linked.text);
}

/** The server's message for the next answer of `path`, as the page receives it. */
async function serverMessage(page: Page, path: string, act: () => Promise<void>): Promise<string> {
  const answer = page.waitForResponse((r) => new URL(r.url()).pathname === path);
  await act();
  const res = await answer;
  assert.equal(res.status(), 400);
  return ((await res.json()) as { error: { message: string } }).error.message;
}

/**
 * A picture of an open dialog at the window's own size: the page behind it does not scroll, so the
 * whole-page picture would only add empty space below a full-screen dialog.
 */
async function dialogScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' });
  await page.mouse.move(0, 0);
  await page.screenshot({
    path: path.join(SCREENSHOTS, name),
    animations: 'disabled',
    style: '.mantine-Notifications-root { display: none !important; }',
  });
}

const card = (page: Page, provider: 'xbox' | 'nintendo') => page.getByTestId(`console-card-${provider}`);

async function chooseRow(row: Locator, player: string, child: string, label?: string): Promise<void> {
  if (label !== undefined) await row.getByTestId('console-import-label').fill(label);
  await row.getByTestId('console-import-player').selectOption({ label: player });
  // The child comes with the player of the same name.
  await row
    .getByTestId('console-import-child')
    .locator('option:checked', { hasText: child })
    .waitFor({ state: 'attached' });
}

describe('game consoles', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let owner: Owner;
  let ann: { id: string };
  let ben: { id: string };
  let xbox: XboxSimulator;
  let nintendo: NintendoSimulator;

  before(async () => {
    [xbox, nintendo] = await Promise.all([startXboxSimulator(), startNintendoSimulator()]);
    await xbox.control.family(XBOX_FAMILY);
    await nintendo.control.family(NINTENDO_FAMILY);
    ({ server, browser, owner } = await openHousehold({
      HEARTH_XBOX_AUTH_BASE: xbox.authBase,
      HEARTH_XBOX_API_BASE: xbox.apiBase,
      HEARTH_NINTENDO_AUTH_BASE: nintendo.authBase,
      HEARTH_NINTENDO_API_BASE: nintendo.apiBase,
    }));
    ({ ann, ben } = await createAnnAndBen(owner));
    // Ben may play 8 hours on Saturdays, more than a Switch can hold (6 hours): the console says so.
    const week = await owner.client.post('/weekly-schedule/update', {
      managed_user_id: ben.id,
      days: { saturday: { limit_minutes: 480, windows: [] } },
    });
    assert.equal(week.status, 200, week.text);
    // Ann played 45 minutes in the living room today.
    await xbox.control.playtime({
      user_id: '2000000001',
      device_id: LIVING_ROOM,
      date: today(),
      minutes: 45,
    });
  });
  after(async () => {
    await closeHousehold({ server, browser });
    await Promise.all([xbox?.close(), nintendo?.close()]);
  });

  test('a parent links Xbox through the wizard, adds two consoles for Ann and Ben, syncs, sees it on Ann’s page and unlinks', async () => {
    // The Switch is already linked for Ben, so the page shows both kinds of card.
    await linkByApi(owner, 'nintendo');
    const imported = await owner.client.post('/api/nintendo/import-device', {
      console_id: SWITCH,
      label: 'Family Switch',
      player_id: 'P000000000000002',
      managed_user_id: ben.id,
    });
    assert.equal(imported.status, 201, imported.text);

    const handle = await openPage(browser, server, { as: owner.client, viewport: DESKTOP });
    const { page } = handle;
    await gotoLive(page, `${server.url}/`);
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Game consoles' })
      .click();
    await waitForPath(page, '/consoles');
    await page.getByRole('heading', { level: 1, name: 'Game consoles' }).waitFor();
    const xboxCard = card(page, 'xbox');
    await xboxCard.getByTestId('console-account').getByText('Not linked').waitFor();

    // Step 1 says what will happen; step 2 signs in.
    await xboxCard.getByTestId('console-link-xbox').click();
    const wizard = page.getByRole('dialog', { name: 'Link Xbox' });
    await wizard
      .getByTestId('console-explain')
      .getByText(/copy that page’s address/)
      .waitFor();
    await wizard.getByRole('button', { name: 'Continue' }).click();
    const pasted = wizard.getByTestId('console-redirect-input');
    await pasted.waitFor();

    // Not an address Microsoft sends anyone to: caught before the server is asked.
    await pasted.fill('my password is hunter2');
    await wizard.getByTestId('console-authenticate').click();
    await wizard.getByText(/^This is not the address Microsoft sends you to/).waitFor();

    // Microsoft's page, but a code Hearth never started a sign-in for: the server's words, under the field.
    await pasted.fill('https://login.live.com/oauth20_desktop.srf?code=M.C105_BAY.2.U.garbled&lc=1033');
    const refusal = await serverMessage(page, '/api/xbox/authenticate', () =>
      wizard.getByTestId('console-authenticate').click(),
    );
    await wizard.getByText(refusal, { exact: true }).waitFor();

    // The sign-in opens in a new tab: the simulator's page, whose "continue" link is the address to paste.
    const vendorTab = page.context().waitForEvent('page');
    await wizard.getByTestId('console-open-signin').click();
    const signIn = await vendorTab;
    const continueLink = signIn.locator('#continue');
    await continueLink.waitFor();
    const redirect = (await continueLink.getAttribute('href')) ?? '';
    assert.match(redirect, /\/oauth20_desktop\.srf\?code=/);
    await signIn.close();
    await wizard.getByTestId('console-signin-opened').waitFor();
    await pasted.fill(redirect);
    await dialogScreenshot(page, 'consoles-wizard-signin.png');
    await wizard.getByTestId('console-authenticate').click();

    // Step 3: each Xbox of the family, with a name, the player and the child.
    await wizard.getByText('Linked as Maria Rivera: choose your consoles').waitFor();
    const living = wizard.getByTestId(`console-import-row-${LIVING_ROOM}`);
    const bedroom = wizard.getByTestId(`console-import-row-${BEDROOM}`);
    assert.equal(await living.getByTestId('console-import-label').inputValue(), 'Living room Xbox');
    // The laptop is no console.
    assert.equal(await wizard.getByTestId(/^console-import-row-/).count(), 2);
    await chooseRow(living, 'Ann Rivera', 'Ann');
    await chooseRow(bedroom, 'Ben Rivera', 'Ben', 'Ben’s Xbox');
    // Ann's player cannot also be Ben on the bedroom Xbox.
    assert.equal(
      await bedroom
        .getByTestId('console-import-player')
        .locator('option', { hasText: 'Ann Rivera — already Ann’s' })
        .isDisabled(),
      true,
    );
    await dialogScreenshot(page, 'consoles-wizard-import.png');
    await wizard.getByTestId('console-import').click();

    // Step 4: done, with the sync state and Sync now.
    const done = wizard.getByTestId('console-wizard-done');
    await done.waitFor({ timeout: WITHIN_LIVE });
    await wizard.getByTestId('console-sync-now').click();
    await wizard
      .getByTestId('console-sync-result')
      .getByText('Synced 2 consoles.')
      .waitFor({ timeout: WITHIN_LIVE });
    await done.getByTestId('console-name').filter({ hasText: 'Ben’s Xbox' }).waitFor();
    await dialogScreenshot(page, 'consoles-wizard-done.png');
    await wizard.getByTestId('console-wizard-close').click();
    await wizard.waitFor({ state: 'detached' });

    // The card: linked, working, synced, each console with its child and player.
    await xboxCard
      .getByTestId('console-account')
      .getByText('Linked to Maria Rivera’s Microsoft account')
      .waitFor();
    assert.equal(await xboxCard.getByTestId('console-status').innerText(), 'Working');
    const rows = xboxCard.getByTestId(/^console-row-/);
    assert.equal(await rows.count(), 2);
    const annRow = rows.filter({ hasText: 'Living room Xbox' });
    assert.equal(await annRow.getByTestId('console-player').innerText(), 'Ann plays as Ann Rivera');
    await annRow.getByTestId('console-synced').getByText('Synced just now').waitFor();
    // The Switch cannot hold Ben's 8-hour Saturday: the card says what it holds instead.
    const switchCard = card(page, 'nintendo');
    await switchCard.getByTestId('console-notes').waitFor({ timeout: WITHIN_LIVE });
    await screenshot(page, 'consoles-page.png');

    // The console's own page: synced, not online; no agent cards (apps, Hearth Space, clock).
    await annRow.getByTestId('console-name').click();
    await page.waitForURL((url) => url.pathname.startsWith('/devices/'));
    const main = page.getByRole('main');
    await main.getByRole('heading', { level: 1, name: 'Living room Xbox' }).waitFor();
    await main.getByTestId('console-sync-badge').getByText('Synced just now').waitFor();
    await main.getByRole('heading', { name: 'Synced through your Microsoft account' }).waitFor();
    assert.equal(await main.getByTestId('device-online').count(), 0);
    assert.match(await main.getByTestId('device-details').innerText(), /Player\s+Ann Rivera \(Ann\)/);
    assert.equal(await main.getByRole('heading', { name: 'Installed apps' }).count(), 0);

    // Ann's page: the console with her player, today's playtime and when it was synced; no "online" dot.
    await page.goto(`${server.url}/children/${ann.id}`);
    const consoles = page.getByTestId('child-consoles');
    const annXbox = consoles.getByTestId('child-console').filter({ hasText: 'Living room Xbox' });
    await annXbox.getByTestId('child-console-player').getByText('Ann Rivera').waitFor();
    assert.equal(await annXbox.getByTestId('child-console-today').innerText(), '45 min');
    await annXbox.getByTestId('console-sync-badge').getByText('Synced just now').waitFor();
    assert.equal(await annXbox.getByTestId('device-online').count(), 0);
    // The computers' list does not offer the console for a Linux account.
    await page.getByTestId('usage-summary').waitFor();
    await screenshot(page, 'consoles-child.png');

    // Unlink, after a confirmation that says what goes.
    await page.goto(`${server.url}/consoles`);
    await xboxCard.getByTestId('console-unlink').click();
    const confirm = page.getByRole('dialog', { name: 'Unlink Xbox?' });
    const text = await confirm.getByTestId('console-unlink-text').innerText();
    assert.match(text, /deletes the token it keeps for Maria Rivera’s Microsoft account/);
    assert.match(text, /Living room Xbox and Ben’s Xbox leave Hearth/);
    await dialogScreenshot(page, 'consoles-unlink.png');
    await confirm.getByRole('button', { name: 'Unlink' }).click();
    await confirm.waitFor({ state: 'detached' });
    await xboxCard.getByTestId('console-link-xbox').waitFor();
    const status = await owner.client.get('/api/xbox/account-status');
    assert.equal(status.body.linked, false);

    // The same address again: spent, and the server says so under the field.
    await xboxCard.getByTestId('console-link-xbox').click();
    await wizard.getByRole('button', { name: 'Continue' }).click();
    await pasted.fill(redirect);
    const replayed = await serverMessage(page, '/api/xbox/authenticate', () =>
      wizard.getByTestId('console-authenticate').click(),
    );
    await wizard.getByText(replayed, { exact: true }).waitFor();
    await dialogScreenshot(page, 'consoles-wrong-paste.png');
    await closePage(handle);
  });

  test('a link the vendor no longer accepts shows as expired and offers to link again', async () => {
    await linkByApi(owner, 'xbox');
    const imported = await owner.client.post('/api/xbox/import-device', {
      console_id: LIVING_ROOM,
      label: 'Living room Xbox',
      player_id: '2000000001',
      managed_user_id: ann.id,
    });
    assert.equal(imported.status, 201, imported.text);
    await xbox.control.revoke();

    const handle = await openPage(browser, server, { as: owner.client, viewport: DESKTOP });
    const { page } = handle;
    await gotoLive(page, `${server.url}/consoles`);
    const xboxCard = card(page, 'xbox');
    // Opening the page checks the stored token; Sync now finds the same.
    await xboxCard.getByTestId('console-status').getByText('Link expired — link again').waitFor({
      timeout: WITHIN_LIVE,
    });
    await xboxCard.getByTestId('console-expired').getByRole('button', { name: 'Link again' }).waitFor();
    await screenshot(page, 'consoles-expired.png');

    // Linking again through the wizard brings it back to working.
    await xboxCard.getByTestId('console-relink-xbox').click();
    const wizard = page.getByRole('dialog', { name: 'Link Xbox' });
    await wizard.getByRole('button', { name: 'Continue' }).click();
    const start = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/xbox/login-url');
    const vendorTab = page.context().waitForEvent('page');
    await wizard.getByTestId('console-open-signin').click();
    const url = ((await (await start).json()) as { url: string }).url;
    // Closed once its page has loaded: a tab closed while it commits a navigation can stay open for ever
    // in Chromium (crbug.com/536385539), and Playwright's close() would wait for it.
    const tab = await vendorTab;
    await tab.waitForLoadState('load');
    await tab.close();
    await wizard.getByTestId('console-redirect-input').fill(await signInRedirect(url));
    await wizard.getByTestId('console-authenticate').click();
    // The console is already in Hearth: it shows as added, nothing to tick.
    const row = wizard.getByTestId(`console-import-row-${LIVING_ROOM}`);
    await row.getByText('Already added').waitFor();
    await wizard.getByRole('button', { name: 'Skip for now' }).click();
    await wizard.getByTestId('console-sync-now').click();
    await wizard
      .getByTestId('console-sync-result')
      .getByText('Synced 1 console.')
      .waitFor({ timeout: WITHIN_LIVE });
    await wizard.getByTestId('console-wizard-close').click();
    await xboxCard.getByTestId('console-status').getByText('Working').waitFor({ timeout: WITHIN_LIVE });
    await xboxCard.getByTestId('console-synced').first().getByText('Synced just now').waitFor();
    assert.equal(await xboxCard.getByTestId('console-error').count(), 0);
    await closePage(handle);
  });

  test('on a phone the page, the wizard and the child’s consoles fit', async () => {
    const handle = await openPage(browser, server, { as: owner.client, viewport: PHONE });
    const { page } = handle;
    await gotoLive(page, `${server.url}/consoles`);
    const xboxCard = card(page, 'xbox');
    await xboxCard.getByTestId('console-status').waitFor();
    await card(page, 'nintendo').getByTestId('console-status').waitFor();
    await assertFitsPhone(page);
    await screenshot(page, 'consoles-phone.png');

    // "Add a console" opens the wizard at the consoles, full screen.
    await xboxCard.getByTestId('console-add-xbox').click();
    const wizard = page.getByRole('dialog', { name: 'Add an Xbox console' });
    const bedroom = wizard.getByTestId(`console-import-row-${BEDROOM}`);
    await bedroom.waitFor();
    await chooseRow(bedroom, 'Ben Rivera', 'Ben');
    await assertFitsPhone(page);
    await dialogScreenshot(page, 'consoles-wizard-phone.png');
    await wizard.getByTestId('console-import').click();
    // Every chosen console added: the wizard goes on to its last step.
    await wizard.getByTestId('console-wizard-done').waitFor({ timeout: WITHIN_LIVE });
    await wizard.getByTestId('console-wizard-close').click();
    await xboxCard
      .getByTestId(/^console-row-/)
      .filter({ hasText: 'Bedroom Xbox' })
      .waitFor();

    // Ben's page: the Switch (with what it cannot hold) and the bedroom Xbox.
    await page.goto(`${server.url}/children/${ben.id}`);
    const consoles = page.getByTestId('child-consoles');
    await consoles.getByTestId('child-console').filter({ hasText: 'Bedroom Xbox' }).waitFor();
    await consoles
      .getByTestId('child-console')
      .filter({ hasText: 'Family Switch' })
      .getByTestId('console-notes')
      .waitFor();
    await assertFitsPhone(page);
    await screenshot(page, 'consoles-child-phone.png');
    await closePage(handle);
  });
});
