import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { TestServer } from '../../server/test/helpers.ts';
import {
  browserSkipReason,
  closeHousehold,
  closePage,
  type Owner,
  openHousehold,
  openPage,
  PHONE,
  screenshot,
  waitForPath,
} from './support.ts';

const skip = browserSkipReason();

describe('navigation', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let owner: Owner;

  before(async () => {
    ({ server, browser, owner } = await openHousehold());
  });
  after(() => closeHousehold({ server, browser }));

  test('the pages still to come each explain what will appear there', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/`);
    const pages = [
      { link: 'Access Requests', path: '/access-requests', empty: 'No requests right now' },
      { link: 'Online Accounts', path: '/online-accounts', empty: 'No accounts seen yet' },
      { link: 'Blocklists', path: '/blocklists', empty: 'No lists yet' },
      { link: 'Alerts', path: '/alerts', empty: 'All quiet' },
    ];
    for (const item of pages) {
      await page.getByRole('navigation').getByRole('link', { name: item.link }).click();
      await waitForPath(page, item.path);
      await page.getByRole('heading', { level: 1, name: item.link }).waitFor();
      await page.getByText(item.empty).waitFor();
      assert.equal(await page.title(), `${item.link} · Hearth`);
      assert.doesNotMatch((await page.locator('main').textContent()) ?? '', /TODO|lorem/i);
    }

    // An unknown address inside the app is a friendly page, not an error.
    await page.goto(`${server.url}/no/such/page`);
    await page.getByText('This page is not here').waitFor();
    await closePage(handle);
  });

  test('on a phone the navigation opens from the burger and the Children page works', async () => {
    const handle = await openPage(browser, server, { as: owner.client, viewport: PHONE });
    const { page } = handle;
    await page.goto(`${server.url}/`);
    await page.getByRole('heading', { level: 1, name: 'The Rivera family' }).waitFor();
    const children = page.getByRole('navigation').getByRole('link', { name: 'Children' });
    assert.equal(await children.isVisible(), false);

    await page.getByRole('button', { name: 'Open navigation' }).click();
    await children.waitFor();
    await page.getByRole('navigation').getByRole('button', { name: 'Sign out' }).waitFor();
    await children.click();
    await waitForPath(page, '/children');
    await page.getByRole('heading', { level: 1, name: 'Children' }).waitFor();
    // Choosing a page closes the menu again.
    await children.waitFor({ state: 'hidden' });

    const form = page.getByRole('form', { name: 'Add child' });
    await form.getByLabel('Name').fill('Dara');
    await form.getByLabel('Age group').click();
    await page.getByRole('option', { name: 'Teen' }).click();
    await form.getByRole('button', { name: 'Add child' }).click();
    await page.getByText('Dara was added.').waitFor();
    await page.getByTestId('child-row').filter({ hasText: 'Dara' }).getByText('Teen').waitFor();

    // Nothing is wider than the phone.
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= PHONE.width, `page is ${width}px wide on a ${PHONE.width}px phone`);
    await screenshot(page, 'children-phone.png');

    await page.getByTestId('child-row').filter({ hasText: 'Dara' }).click();
    await page.getByRole('heading', { level: 1, name: 'Dara' }).waitFor();
    const childWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(childWidth <= PHONE.width, `child page is ${childWidth}px wide on a ${PHONE.width}px phone`);
    await closePage(handle);
  });

  test('when the server cannot be reached the page says so and recovers on retry', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/`);
    await page.getByRole('heading', { level: 1, name: 'The Rivera family' }).waitFor();
    await page.route('**/api/users', (route) => route.abort('connectionrefused'));
    await page.getByRole('navigation').getByRole('link', { name: 'Children' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText("Hearth can't be reached right now.").waitFor();
    assert.doesNotMatch((await alert.textContent()) ?? '', /\{|TypeError|Failed to fetch|stack/);

    await page.unroute('**/api/users');
    await alert.getByRole('button', { name: 'Try again' }).click();
    await page.getByText('No children yet').or(page.getByTestId('child-row').first()).waitFor();
    // The aborted request is the one console error this test expects.
    handle.problems.splice(0);
    await closePage(handle);
  });
});
