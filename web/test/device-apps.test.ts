import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { SimAgent } from '../../bench/src/simulator.ts';
import type { TestServer } from '../../server/test/helpers.ts';
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
  closeHousehold,
  closePage,
  isCommand,
  markPage,
  type Owner,
  openPage,
  PHONE,
  screenshot,
  timeUntil,
} from './support.ts';

const skip = browserSkipReason();

describe('installed apps of a device', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let owner: Owner;
  let ann: { id: string };
  let laptop: SimAgent;
  let study: SimAgent;
  let agents: SimAgent[] = [];

  before(async () => {
    ({ server, browser, owner, ann, laptop, study, agents } = await openAppsHousehold());
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
    // Icons load lazily: the list (below the device's restrictions and screenshots) is brought into view.
    for (const name of ['Firefox', 'GIMP']) {
      const row = section.getByTestId('installed-app').filter({ hasText: name });
      await row.scrollIntoViewIfNeeded();
      await row.getByTestId('app-icon-fallback').waitFor();
    }
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
});
