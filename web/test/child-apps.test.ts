import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { SimAgent, type SimAgentOptions } from '../../bench/src/simulator.ts';
import { enrollmentToken, type TestServer } from '../../server/test/helpers.ts';
import {
  app,
  assertIconLoaded,
  FIREFOX_ICON,
  GIMP_ICON,
  KRITA_ICON,
  openAppsHousehold,
  report,
  sendIcon,
} from './inventory-support.ts';
import {
  assertFitsPhone,
  assertNotReloaded,
  browserSkipReason,
  clickAndAwaitChange,
  closeHousehold,
  closePage,
  isCommand,
  markPage,
  type Owner,
  openPage,
  PHONE,
  screenshot,
  timeUntil,
  waitForOffline,
  waitForPath,
} from './support.ts';

const skip = browserSkipReason();

// A device's sync state changes when its queued command is answered, which no event announces; the
// page asks again every few seconds while a device is waiting.
const WITHIN_SYNC_POLL = 10_000;

describe('a child’s apps and app rules', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let owner: Owner;
  let ann: { id: string };
  let ben: { id: string };
  let laptop: SimAgent;
  let study: SimAgent;
  let agents: SimAgent[] = [];
  const agent = async (options: Partial<SimAgentOptions>) => {
    const a = new SimAgent({ url: server.wsUrl, enrollmentToken: await enrollmentToken(owner), ...options });
    agents.push(a);
    return a;
  };
  const policyOf = async (child: { id: string }) =>
    (await owner.client.get(`/api/managed-users/${child.id}/app-policy`)).body;

  before(async () => {
    ({ server, browser, owner, ann, ben, laptop, study, agents } = await openAppsHousehold());
    // The lists the device tests leave behind: the laptop after its rescan, and the study PC, which
    // then went offline with a rescan waiting for it.
    for (const icon of [FIREFOX_ICON, GIMP_ICON, KRITA_ICON]) await sendIcon(laptop, icon);
    await report(laptop, [
      app('Firefox', '122', FIREFOX_ICON),
      app('GIMP', '2.10.36', GIMP_ICON),
      app('Krita', '5.2.2', KRITA_ICON),
      app('Minetest', '5.8.0'),
    ]);
    await sendIcon(study, FIREFOX_ICON);
    await report(study, [
      app('Firefox', '120', FIREFOX_ICON),
      app('Minetest', '5.7.0'),
      app('Scratch', '3.0'),
    ]);
    await study.stop();
    await waitForOffline(owner, study.systemId);
    const rescan = await owner.client.post(`/api/devices/${study.systemId}/installed-apps/refresh`);
    assert.equal(rescan.status, 202, rescan.text);
  });
  after(() => closeHousehold({ server, browser }, agents));

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
    study = await agent({
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
    await page.goto(`${server.url}/children/${ann.id}/apps`);
    const rows = page.getByTestId('child-app');
    await rows.filter({ hasText: 'Krita' }).waitFor();

    // Another parent blocks Minetest just before this page's save reaches the server. (The page may
    // read the rules again on its own at any time, when its event stream opens or a device reports, so
    // the other parent's change goes in between this page's save and the server, where it must lose.)
    let current: { version: number; rules: Record<string, unknown>[] } | undefined;
    let otherStatus = 0;
    await page.route(`**/api/managed-users/${ann.id}/app-policy`, async (route) => {
      if (route.request().method() !== 'PUT' || current) return route.continue();
      current = await policyOf(ann);
      const rules = [
        ...(current?.rules ?? []),
        { identifier: '/usr/bin/minetest', match_type: 'executable', action: 'block' },
      ];
      const other = await owner.client.request('PUT', `/api/managed-users/${ann.id}/app-policy`, {
        json: { version: current?.version, rules },
      });
      otherStatus = other.status;
      await route.continue();
    });

    await rows.filter({ hasText: 'Krita' }).getByRole('button', { name: 'Block Krita' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'These rules were changed somewhere else' });
    await alert.waitFor();
    await page.unroute(`**/api/managed-users/${ann.id}/app-policy`);
    assert.equal(otherStatus, 200, 'the other parent saved first');
    const after = await policyOf(ann);
    assert.equal(after.version, (current?.version ?? 0) + 1, 'the other parent’s rules stay');
    assert.equal(
      after.rules.some((r: { identifier: string }) => r.identifier === '/usr/bin/krita'),
      false,
    );
    await alert.getByRole('button', { name: 'Reload rules' }).click();
    await alert.waitFor({ state: 'detached' });
    await rows.filter({ hasText: 'Minetest' }).getByTestId('rule-badge').getByText('Blocked').waitFor();
    const saved = await clickAndAwaitChange(
      page,
      rows.filter({ hasText: 'Krita' }).getByRole('button', { name: 'Block Krita' }),
      '/app-policy',
    );
    assert.equal(saved.status(), 200);
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
