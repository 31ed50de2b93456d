import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { type Frame, SimAgent, type SimAgentOptions } from '../../bench/src/simulator.ts';
import { enrollmentToken, type TestServer } from '../../server/test/helpers.ts';
import {
  assertFitsPhone,
  assertNotReloaded,
  browserSkipReason,
  closeHousehold,
  closePage,
  createAnnAndBen,
  isCommand,
  markPage,
  type Owner,
  openHousehold,
  openPage,
  PHONE,
  screenshot,
  timeUntil,
  waitForPath,
} from './support.ts';

const skip = browserSkipReason();

// Reports reach the pages over the event stream at once; allow a little for the request that follows.
const _WITHIN_LIVE = 3000;
// A device's sync state changes when its queued command is answered, which no event announces; the
// page asks again every few seconds while a device is waiting.
const WITHIN_SYNC_POLL = 10_000;

/** Resolves once the image has loaded with real pixels. */
async function assertIconLoaded(page: Page, img: Locator): Promise<void> {
  await img.scrollIntoViewIfNeeded();
  const handle = await img.elementHandle();
  await page.waitForFunction((el) => {
    const image = el as HTMLImageElement;
    return image.complete && image.naturalWidth > 0;
  }, handle);
  assert.ok((await img.evaluate((el) => (el as HTMLImageElement).naturalWidth)) > 0);
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Icon {
  hash: string;
  base64: string;
}

/** A small PNG: a rounded tile of one colour with a lighter band, so it reads as an app icon. */
function makeIcon([r, g, b]: [number, number, number]): Icon {
  const size = 48;
  const image = new PNG({ width: size, height: size });
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const i = (y * size + x) * 4;
      const corner = Math.min(x, size - 1 - x) + Math.min(y, size - 1 - y) < 8;
      const band = y > 18 && y < 30;
      image.data[i] = band ? Math.min(255, r + 90) : r;
      image.data[i + 1] = band ? Math.min(255, g + 90) : g;
      image.data[i + 2] = band ? Math.min(255, b + 90) : b;
      image.data[i + 3] = corner ? 0 : 255;
    }
  }
  const bytes = PNG.sync.write(image);
  return { hash: createHash('sha256').update(bytes).digest('hex'), base64: bytes.toString('base64') };
}

const FIREFOX_ICON = makeIcon([233, 110, 52]);
const GIMP_ICON = makeIcon([110, 98, 90]);
const KRITA_ICON = makeIcon([60, 120, 200]);

type App = { application_name: string; identifier: string; match_type: 'executable'; version_name: string };

function app(name: string, version: string, icon?: Icon): App & { icon_hash?: string } {
  return {
    application_name: name,
    identifier: `/usr/bin/${name.toLowerCase().replaceAll(' ', '-')}`,
    match_type: 'executable',
    version_name: version,
    ...(icon ? { icon_hash: icon.hash } : {}),
  };
}

/** Sends an icon as the agent does, and waits until the server has it. */
async function sendIcon(agent: SimAgent, icon: Icon): Promise<void> {
  const ack = agent.waitFor((f) => f.type === 'app_icon_report_ack' && f.content_hash === icon.hash);
  agent.send({
    type: 'app_icon_report',
    content_hash: icon.hash,
    mime_type: 'image/png',
    data_base64: icon.base64,
  });
  assert.equal((await ack).success, true);
}

/** Sends a complete one-chunk report for an account and waits for its final ack. */
async function report(agent: SimAgent, apps: App[], account = 'kid'): Promise<Frame> {
  const reportId = randomUUID();
  const ack = agent.waitFor(
    (f) => f.type === 'installed_apps_report_ack' && f.report_id === reportId && f.pending === false,
  );
  agent.send({
    type: 'installed_apps_report',
    report_id: reportId,
    linux_username: account,
    chunk_index: 0,
    chunk_total: 1,
    is_final: true,
    reported_at: new Date().toISOString(),
    apps,
  });
  const frame = await ack;
  assert.equal(frame.success, true, JSON.stringify(frame));
  return frame;
}

describe('installed apps and app rules', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let owner: Owner;
  let token: string;
  let ann: { id: string };
  let ben: { id: string };
  const agents: SimAgent[] = [];
  const agent = (options: Partial<SimAgentOptions>) => {
    const a = new SimAgent({ url: server.wsUrl, enrollmentToken: token, ...options });
    agents.push(a);
    return a;
  };
  let laptop: SimAgent;
  let study: SimAgent;

  const paired = async (options: Partial<SimAgentOptions>, name: string) => {
    const a = agent(options);
    await a.connect();
    const approved = a.waitFor('pairing_approved');
    const res = await owner.client.post(`/api/device/approve/${a.systemId}`, { display_name: name });
    assert.equal(res.status, 200, res.text);
    await approved;
    return a;
  };
  const map = async (child: { id: string }, systemId: string, account: string) => {
    const res = await owner.client.post(`/managed-users/${child.id}/mappings/add`, {
      system_id: systemId,
      linux_username: account,
    });
    assert.equal(res.status, 201, res.text);
  };
  const policyOf = async (child: { id: string }) =>
    (await owner.client.get(`/api/managed-users/${child.id}/app-policy`)).body;

  before(async () => {
    ({ server, browser, owner } = await openHousehold());
    token = await enrollmentToken(owner);
    ({ ann, ben } = await createAnnAndBen(owner));
    // The laptop takes a moment to answer "rescan", as a real agent does, so "Asking…" shows.
    laptop = await paired(
      {
        hostname: 'family-laptop',
        linuxUsers: [{ username: 'kid', display_name: 'Ann' }, { username: 'ben' }],
        respond: async (command) => {
          if (command === 'refresh_installed_apps') {
            await delay(600);
            return { success: true, data: { queued: true } };
          }
          return { success: true, data: {} };
        },
      },
      'Living room laptop',
    );
    study = await paired({ hostname: 'study-pc', linuxUsers: [{ username: 'kid' }] }, 'Study PC');
    await map(ann, laptop.systemId, 'kid');
    await map(ann, study.systemId, 'kid');
    await map(ben, laptop.systemId, 'ben');
  });
  after(() => closeHousehold({ server, browser }, agents));

  test('before any report the pages say where apps come from; a report then shows up without a reload', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/children/${ann.id}/apps`);
    await page.getByRole('heading', { level: 1, name: 'Ann’s apps' }).waitFor();
    await page.getByText('No apps reported yet').waitFor();
    await page
      .getByText('Apps appear when the Hearth agent on a device reports them.', { exact: false })
      .waitFor();
    assert.equal(await page.title(), 'Ann’s apps · Hearth');
    const nav = page.getByRole('navigation').getByRole('link', { name: 'Children' });
    assert.equal(await nav.getAttribute('aria-current'), 'page');

    await page.goto(`${server.url}/devices/${laptop.systemId}`);
    const section = page.getByRole('region', { name: 'Installed apps' });
    await section.getByText('No apps reported yet').waitFor();
    await section.getByText('No list from this device yet').waitFor();
    await markPage(page);

    await sendIcon(laptop, FIREFOX_ICON);
    await sendIcon(laptop, GIMP_ICON);
    await report(laptop, [
      app('Firefox', '121', FIREFOX_ICON),
      app('GIMP', '2.10.36', GIMP_ICON),
      app('Minetest', '5.8.0'),
      app('Tux Paint', '0.9.31'),
    ]);
    const rows = section.getByTestId('installed-app');
    const appeared = await timeUntil(rows.filter({ hasText: 'Tux Paint' }));
    console.log(`# the reported apps appeared after ${appeared} ms`);
    await assertNotReloaded(page);
    assert.equal(await rows.count(), 4);
    assert.deepEqual(await section.getByTestId('app-name').allTextContents(), [
      'Firefox',
      'GIMP',
      'Minetest',
      'Tux Paint',
    ]);
    await section.getByTestId('inventory-summary').getByText('4 apps · Last report just now').waitFor();

    const firefox = rows.filter({ hasText: 'Firefox' });
    await firefox.getByText('Version 121').waitFor();
    await firefox.getByText('/usr/bin/firefox').waitFor();
    await firefox.getByText(/Account kid · First seen just now · Last seen just now/).waitFor();
    const icon = firefox.getByTestId('app-icon');
    assert.equal(await icon.getAttribute('src'), `/api/apps/icons/${FIREFOX_ICON.hash}`);
    await assertIconLoaded(page, icon);
    await assertIconLoaded(page, rows.filter({ hasText: 'GIMP' }).getByTestId('app-icon'));
    // No icon from the agent: a neutral tile instead, never a broken image.
    const minetest = rows.filter({ hasText: 'Minetest' });
    await minetest.getByTestId('app-icon-fallback').waitFor();
    assert.equal(await minetest.locator('img').count(), 0);

    // An icon that does not load falls back too.
    await page.route('**/api/apps/icons/**', (route) => route.fulfill({ status: 404, body: '' }));
    await page.reload();
    await section.getByTestId('installed-app').first().waitFor();
    await section
      .getByTestId('installed-app')
      .filter({ hasText: 'Firefox' })
      .getByTestId('app-icon-fallback')
      .waitFor();
    assert.equal(await section.getByTestId('app-icon').count(), 0);
    await closePage(handle);
  });

  test('searching narrows the list by name, version or path', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/devices/${laptop.systemId}`);
    const section = page.getByRole('region', { name: 'Installed apps' });
    const rows = section.getByTestId('installed-app');
    await rows.filter({ hasText: 'Tux Paint' }).waitFor();

    const search = section.getByRole('searchbox', { name: 'Search installed apps' });
    await search.fill('fire');
    await section.getByTestId('inventory-count').getByText('1 of 4 apps').waitFor();
    assert.deepEqual(await section.getByTestId('app-name').allTextContents(), ['Firefox']);
    await search.fill('2.10');
    await section.getByTestId('inventory-count').getByText('1 of 4 apps').waitFor();
    assert.deepEqual(await section.getByTestId('app-name').allTextContents(), ['GIMP']);
    await search.fill('tux paint');
    await section.getByTestId('inventory-count').getByText('1 of 4 apps').waitFor();
    await search.fill('chess');
    await section.getByText('No apps match “chess”.').waitFor();
    assert.equal(await rows.count(), 0);
    await section.getByRole('button', { name: 'Clear search' }).click();
    await page.waitForFunction(() => !document.querySelector('[data-testid="inventory-count"]')?.textContent);
    assert.equal(await search.inputValue(), '');
    assert.equal(await rows.count(), 4);
    await closePage(handle);
  });

  test('Rescan now asks the agent, shows progress, and the new list replaces the old without a reload', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/devices/${laptop.systemId}`);
    const section = page.getByRole('region', { name: 'Installed apps' });
    const rows = section.getByTestId('installed-app');
    await rows.filter({ hasText: 'Tux Paint' }).waitFor();
    await markPage(page);

    const asked = laptop.waitFor(isCommand('refresh_installed_apps'));
    await section.getByRole('button', { name: 'Rescan now' }).click();
    const progress = section.getByTestId('rescan-progress');
    await progress.getByText('Asking the device…').waitFor();
    const command = await asked;
    assert.deepEqual(command.args, {});
    await progress.getByText('Waiting for the new list…').waitFor();

    // The agent looks again: Firefox was updated, Tux Paint removed, Krita installed.
    await sendIcon(laptop, KRITA_ICON);
    await report(laptop, [
      app('Firefox', '122', FIREFOX_ICON),
      app('GIMP', '2.10.36', GIMP_ICON),
      app('Krita', '5.2.2', KRITA_ICON),
      app('Minetest', '5.8.0'),
    ]);
    const updated = await timeUntil(rows.filter({ hasText: 'Krita' }));
    console.log(`# the rescanned list appeared after ${updated} ms`);
    await progress.getByText('Updated with the newest list from the device.').waitFor();
    await rows.filter({ hasText: 'Firefox' }).getByText('Version 122').waitFor();
    await rows.filter({ hasText: 'Tux Paint' }).waitFor({ state: 'detached' });
    await assertNotReloaded(page);
    await assertIconLoaded(page, rows.filter({ hasText: 'Krita' }).getByTestId('app-icon'));
    await screenshot(page, 'device-apps.png');
    await closePage(handle);

    const phone = await openPage(browser, server, { as: owner.client, viewport: PHONE });
    await phone.page.goto(`${server.url}/devices/${laptop.systemId}`);
    await phone.page.getByTestId('installed-app').filter({ hasText: 'Krita' }).waitFor();
    await assertFitsPhone(phone.page);
    await closePage(phone);
  });

  test('a rescan of an offline device waits for it to reconnect', async () => {
    await sendIcon(study, FIREFOX_ICON);
    await report(study, [
      app('Firefox', '120', FIREFOX_ICON),
      app('Minetest', '5.7.0'),
      app('Scratch', '3.0'),
    ]);
    await study.stop();

    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/devices/${study.systemId}`);
    await page.getByRole('heading', { level: 1, name: 'Study PC' }).waitFor();
    await page.getByRole('main').getByTestId('device-online').getByText('Offline', { exact: true }).waitFor();
    const section = page.getByRole('region', { name: 'Installed apps' });
    await section.getByTestId('installed-app').filter({ hasText: 'Scratch' }).waitFor();
    await section.getByRole('button', { name: 'Rescan now' }).click();
    await section
      .getByTestId('rescan-progress')
      .getByText('The device is offline; it will rescan when it reconnects.')
      .waitFor();
    await closePage(handle);
  });

  test('the child’s apps: one row per app with every device that has it, and search', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/children/${ann.id}`);
    const summary = page.getByRole('region', { name: 'Apps', exact: true });
    await summary.getByTestId('apps-summary').getByText('5 apps on Ann’s devices').waitFor();
    await summary.getByRole('link', { name: 'Manage apps' }).click();
    await waitForPath(page, `/children/${ann.id}/apps`);
    await page.getByRole('heading', { level: 1, name: 'Ann’s apps' }).waitFor();

    const list = page.getByRole('region', { name: 'Apps', exact: true });
    const rows = list.getByTestId('child-app');
    await rows.first().waitFor();
    assert.deepEqual(await list.getByTestId('app-name').allTextContents(), [
      'Firefox',
      'GIMP',
      'Krita',
      'Minetest',
      'Scratch',
    ]);
    // Firefox is on both devices: one row, both devices with their versions.
    const firefox = rows.filter({ hasText: 'Firefox' });
    assert.equal(await firefox.count(), 1);
    const devices = firefox.getByTestId('app-device');
    assert.deepEqual(await devices.allTextContents(), [
      'Living room laptop · Account kid · Version 122',
      'Study PC · Account kid · Version 120',
    ]);
    await assertIconLoaded(page, firefox.getByTestId('app-icon'));
    await rows.filter({ hasText: 'Minetest' }).getByTestId('app-icon-fallback').waitFor();
    assert.deepEqual(await rows.filter({ hasText: 'Scratch' }).getByTestId('app-device').allTextContents(), [
      'Study PC · Account kid · Version 3.0',
    ]);

    const search = list.getByRole('searchbox', { name: 'Search apps' });
    await search.fill('study');
    await list.getByTestId('apps-count').getByText('3 of 5 apps').waitFor();
    assert.deepEqual(await list.getByTestId('app-name').allTextContents(), [
      'Firefox',
      'Minetest',
      'Scratch',
    ]);
    await search.fill('kri');
    await list.getByTestId('apps-count').getByText('1 of 5 apps').waitFor();
    await search.press('Escape');
    await page.waitForFunction(() => !document.querySelector('[data-testid="apps-count"]')?.textContent);
    assert.equal(await rows.count(), 5);

    // Before any rule, each device has nothing to sync.
    const sync = page.getByRole('region', { name: 'Rules on Ann’s devices' });
    await sync.getByText('No app rules yet', { exact: false }).waitFor();
    assert.deepEqual(await sync.getByTestId('sync-status').allTextContents(), [
      'No rules yet',
      'No rules yet',
    ]);
    await closePage(handle);
  });

  test('Block saves the rule and reaches the online device; the offline one syncs when it reconnects', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/children/${ann.id}/apps`);
    const rows = page.getByTestId('child-app');
    const firefox = rows.filter({ hasText: 'Firefox' });
    await firefox.waitFor();
    await markPage(page);

    const pushed = laptop.waitFor(isCommand('sync_app_policy'));
    await firefox.getByRole('button', { name: 'Block Firefox' }).click();
    const frame = await pushed;
    assert.deepEqual(frame.args, {
      managed_user_id: ann.id,
      linux_username: 'kid',
      version: 1,
      rules: [
        {
          identifier: '/usr/bin/firefox',
          match_type: 'executable',
          action: 'block',
          application_name: 'Firefox',
        },
      ],
    });
    await firefox.getByTestId('rule-badge').getByText('Blocked').waitFor();
    assert.equal(
      await firefox.getByRole('button', { name: 'Block Firefox' }).getAttribute('aria-pressed'),
      'true',
    );
    await firefox
      .getByTestId('rule-saved')
      .getByText('Saved: blocked. Sent to 1 device; 1 gets the rules when it connects.')
      .waitFor();

    const policy = await policyOf(ann);
    assert.equal(policy.version, 1);
    assert.deepEqual(policy.rules, [
      {
        identifier: '/usr/bin/firefox',
        match_type: 'executable',
        action: 'block',
        application_name: 'Firefox',
      },
    ]);

    const sync = page.getByRole('region', { name: 'Rules on Ann’s devices' });
    const laptopSync = sync.getByTestId('policy-sync-device').filter({ hasText: 'Living room laptop' });
    const studySync = sync.getByTestId('policy-sync-device').filter({ hasText: 'Study PC' });
    await laptopSync.getByTestId('sync-status').getByText('Synced').waitFor();
    await studySync.getByTestId('sync-status').getByText('Waiting for device').waitFor();
    await studySync.getByText('Gets the rules when it connects').waitFor();

    // The study PC comes back with its token: the queued rules and the queued rescan reach it.
    study = agent({
      systemId: study.systemId,
      secureToken: study.secureToken,
      hostname: 'study-pc',
      linuxUsers: [{ username: 'kid' }],
    });
    const queuedRules = study.waitFor(isCommand('sync_app_policy'));
    const queuedRescan = study.waitFor(isCommand('refresh_installed_apps'));
    await study.connect();
    assert.equal(((await queuedRules).args as { version: number }).version, 1);
    await queuedRescan;
    const synced = await timeUntil(
      studySync.getByTestId('sync-status').getByText('Synced'),
      WITHIN_SYNC_POLL,
    );
    console.log(`# the reconnected device showed as synced after ${synced} ms`);
    await studySync.getByText(/^Got them just now$/).waitFor();
    await assertNotReloaded(page);
    assert.deepEqual(
      (await policyOf(ann)).sync.map(
        (s: { hostname: string; status: string }) => `${s.hostname}: ${s.status}`,
      ),
      ['Living room laptop: synced', 'Study PC: synced'],
    );

    // No rule takes it back off.
    const cleared = laptop.waitFor(isCommand('sync_app_policy'));
    await rows.filter({ hasText: 'Scratch' }).getByRole('button', { name: 'Allow Scratch' }).click();
    assert.equal(((await cleared).args as { rules: unknown[] }).rules.length, 2);
    await rows.filter({ hasText: 'Scratch' }).getByTestId('rule-badge').getByText('Allowed').waitFor();
    const removed = laptop.waitFor(isCommand('sync_app_policy'));
    await rows.filter({ hasText: 'Scratch' }).getByRole('button', { name: 'No rule for Scratch' }).click();
    assert.deepEqual(
      ((await removed).args as { rules: { identifier: string }[] }).rules.map((r) => r.identifier),
      ['/usr/bin/firefox'],
    );
    await rows.filter({ hasText: 'Scratch' }).getByTestId('rule-badge').waitFor({ state: 'detached' });
    await closePage(handle);
  });

  test('Limit asks for the minutes and saves daily_minutes', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/children/${ann.id}/apps`);
    const gimp = page.getByTestId('child-app').filter({ hasText: 'GIMP' });
    await gimp.waitFor();

    await gimp.getByRole('button', { name: 'Limit GIMP' }).click();
    const form = gimp.getByRole('form', { name: 'Daily limit for GIMP' });
    const minutes = form.getByRole('textbox', { name: 'Minutes a day' });
    assert.equal(await minutes.inputValue(), '60');
    // The keyboard lands on the minutes; Escape closes the form and goes back to Limit.
    assert.equal(await minutes.evaluate((el) => el === document.activeElement), true);
    await minutes.press('Escape');
    await form.waitFor({ state: 'detached' });
    const limit = gimp.getByRole('button', { name: 'Limit GIMP' });
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Limit GIMP');
    assert.equal(await limit.getAttribute('aria-expanded'), 'false');
    await limit.press('Enter');
    assert.equal(await limit.getAttribute('aria-expanded'), 'true');
    await minutes.fill('2000');
    await form.getByRole('button', { name: 'Save limit' }).click();
    await form.getByText('Enter whole minutes from 1 to 1440 (a whole day).').waitFor();
    assert.equal((await policyOf(ann)).rules.length, 1, 'nothing saved');

    await minutes.fill('45');
    await form.getByText('GIMP: up to 45 min a day.').waitFor();
    const pushed = laptop.waitFor(isCommand('sync_app_policy'));
    await form.getByRole('button', { name: 'Save limit' }).click();
    const rules = ((await pushed).args as { rules: Record<string, unknown>[] }).rules;
    assert.deepEqual(
      rules.find((r) => r.identifier === '/usr/bin/gimp'),
      {
        identifier: '/usr/bin/gimp',
        match_type: 'executable',
        action: 'limit',
        daily_minutes: 45,
        application_name: 'GIMP',
      },
    );
    await form.waitFor({ state: 'detached' });
    await gimp.getByTestId('rule-badge').getByText('45 min a day').waitFor();
    await gimp.getByTestId('rule-saved').getByText('Saved: 45 min a day. Sent to 2 devices.').waitFor();
    const saved = await policyOf(ann);
    assert.deepEqual(
      saved.rules.find((r: { identifier: string }) => r.identifier === '/usr/bin/gimp'),
      {
        identifier: '/usr/bin/gimp',
        match_type: 'executable',
        action: 'limit',
        daily_minutes: 45,
        application_name: 'GIMP',
      },
    );

    // Only apps with a rule, on request.
    const list = page.getByRole('region', { name: 'Apps', exact: true });
    await list.getByText('With a rule (2)').click();
    await list.getByTestId('apps-count').getByText('2 of 5 apps').waitFor();
    assert.deepEqual(await list.getByTestId('app-name').allTextContents(), ['Firefox', 'GIMP']);
    await list.getByText('All (5)').click();
    await page.waitForFunction(() => !document.querySelector('[data-testid="apps-count"]')?.textContent);
    assert.equal(await list.getByTestId('child-app').count(), 5);
    await page.getByRole('region', { name: 'Rules on Ann’s devices' }).getByText('Synced').nth(1).waitFor();
    await screenshot(page, 'child-apps.png');
    await closePage(handle);

    const phone = await openPage(browser, server, { as: owner.client, viewport: PHONE });
    await phone.page.goto(`${server.url}/children/${ann.id}/apps`);
    await phone.page.getByTestId('child-app').filter({ hasText: 'GIMP' }).getByText('45 min a day').waitFor();
    await assertFitsPhone(phone.page);
    await screenshot(phone.page, 'child-apps-phone.png');
    await closePage(phone);
  });

  test('a rule saved elsewhere meanwhile is not overwritten: the parent is asked to reload', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    // The page reads the rules on load and again once its event stream opens; wait for both.
    let streamAsked = false;
    const caughtUp = new Promise<void>((resolve) => {
      page.on('request', (req) => {
        const pathname = new URL(req.url()).pathname;
        if (pathname === '/api/dashboard/events') streamAsked = true;
        else if (streamAsked && pathname.endsWith('/app-policy') && req.method() === 'GET')
          void req.response().then(() => resolve());
      });
    });
    await page.goto(`${server.url}/children/${ann.id}/apps`);
    const rows = page.getByTestId('child-app');
    await rows.filter({ hasText: 'Krita' }).waitFor();
    await caughtUp;

    // Another parent blocks Minetest after this page read the rules.
    const current = await policyOf(ann);
    const other = await owner.client.request('PUT', `/api/managed-users/${ann.id}/app-policy`, {
      json: {
        version: current.version,
        rules: [
          ...current.rules,
          { identifier: '/usr/bin/minetest', match_type: 'executable', action: 'block' },
        ],
      },
    });
    assert.equal(other.status, 200);

    await rows.filter({ hasText: 'Krita' }).getByRole('button', { name: 'Block Krita' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'These rules were changed somewhere else' });
    await alert.waitFor();
    const after = await policyOf(ann);
    assert.equal(after.version, current.version + 1, 'the other parent’s rules stay');
    assert.equal(
      after.rules.some((r: { identifier: string }) => r.identifier === '/usr/bin/krita'),
      false,
    );
    await alert.getByRole('button', { name: 'Reload rules' }).click();
    await alert.waitFor({ state: 'detached' });
    await rows.filter({ hasText: 'Minetest' }).getByTestId('rule-badge').getByText('Blocked').waitFor();
    await rows.filter({ hasText: 'Krita' }).getByRole('button', { name: 'Block Krita' }).click();
    await rows.filter({ hasText: 'Krita' }).getByTestId('rule-badge').getByText('Blocked').waitFor();
    assert.equal((await policyOf(ann)).rules.length, 4);
    await closePage(handle);
  });

  test('a child whose devices reported nothing yet sees the empty state', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/children/${ben.id}`);
    const summary = page.getByRole('region', { name: 'Apps', exact: true });
    await summary
      .getByText('No apps reported yet — apps appear when the Hearth agent on a device reports them.')
      .waitFor();
    assert.equal(await summary.getByRole('link', { name: 'Manage apps' }).count(), 0);
    await page.goto(`${server.url}/children/${ben.id}/apps`);
    await page.getByText('No apps reported yet').waitFor();
    await closePage(handle);
  });
});
