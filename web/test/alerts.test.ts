import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { SimAgent } from '../../bench/src/simulator.ts';
import type { TestServer } from '../../server/test/helpers.ts';
import {
  browserSkipReason,
  closeHousehold,
  closePage,
  createAnnAndBen,
  eventually,
  gotoLive,
  type Owner,
  openHousehold,
  openPage,
  pairFamilyLaptop,
  screenshot,
  sendAccessRequest,
  sendClockAlerts,
} from './support.ts';

const skip = browserSkipReason();

const unreadBadge = (page: Page) =>
  page.getByRole('navigation').getByRole('link', { name: 'Alerts' }).getByTestId('unread-badge');

describe('the Alerts page', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let owner: Owner;
  let ben: { id: string };
  let laptop: SimAgent;
  const agents: SimAgent[] = [];

  const agentAlerts = (agent: SimAgent, events: { linux_username?: string; detail: object }[]) =>
    sendClockAlerts(owner, agent, events);

  before(async () => {
    const household = await openHousehold();
    ({ server, browser, owner } = household);
    const children = await createAnnAndBen(owner);
    ben = children.ben;
    laptop = await pairFamilyLaptop(household, agents, children.ann, ben);
    // The alerts a day of the dashboard's stories leaves: clock changes and requests, some read.
    const request = async (account: string, reason: string, message: string, read = false) => {
      const res = await sendAccessRequest(server, laptop, account, reason, message);
      assert.equal(res.status, 201);
      if (read) assert.equal((await owner.client.post(`/api/alerts/${res.body.id}/acknowledge`)).status, 200);
    };
    await agentAlerts(laptop, [{ linux_username: 'ben', detail: { skew_seconds: 5400 } }]);
    await request('ann', 'locked', 'Can I finish my game?', true);
    await request('ben', 'sleep', 'Five more minutes, please!', true);
    await request('ann', 'filtered', 'I need this site for my school project.');
    await request('ben', 'locked', 'Ben asks again');
    await agentAlerts(laptop, [{ detail: { skew_seconds: 60 } }]);
    await request('ann', 'sleep', 'Ann would like to read a bit longer');
    await request('ann', 'locked', 'Can I call grandma on video?', true);
  });
  after(() => closeHousehold({ server, browser }, agents));

  test('the Alerts page filters by kind and child, pages with Load more, and clears old alerts', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await gotoLive(page, `${server.url}/alerts`);
    const list = page.getByRole('list', { name: 'Alerts' });
    const items = list.getByTestId('alert-item');
    const all = (await owner.client.get('/api/alerts?limit=200')).body.items;
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid="alert-item"]').length === n,
      all.length,
    );
    assert.equal(await page.getByRole('button', { name: 'Load more' }).count(), 0);
    await screenshot(page, 'alerts.png');

    // Enough alerts for three pages (20 a page).
    await agentAlerts(
      laptop,
      Array.from({ length: 36 }, (_, i) => ({
        linux_username: i % 3 ? 'ann' : 'ben',
        detail: { skew_seconds: 100 + i },
      })),
    );
    const total = (await owner.client.get('/api/alerts?limit=200')).body.items.length;
    assert.ok(total > 40, `${total} alerts make three pages`);
    await page.reload();
    await items.nth(19).waitFor();
    assert.equal(await items.count(), 20);
    const loadMore = page.getByRole('button', { name: 'Load more' });
    await loadMore.click();
    await items.nth(39).waitFor();
    assert.equal(await items.count(), 40);
    await loadMore.click();
    await loadMore.waitFor({ state: 'detached' });
    assert.equal(await items.count(), total);
    // Newest first, each alert once.
    const shown = await items.evaluateAll((els) =>
      els.map((el) => el.querySelector('time')?.getAttribute('datetime') ?? ''),
    );
    assert.deepEqual(shown, [...shown].sort().reverse());
    assert.equal(new Set(await items.allTextContents()).size, total);

    // Kind: only access requests.
    await page.getByRole('combobox', { name: 'Kind' }).click();
    await page.getByRole('option', { name: 'Access requests' }).click();
    const requests = (await owner.client.get('/api/alerts?kind=access_requested&limit=200')).body.items;
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid="alert-item"]').length === n,
      requests.length,
    );
    for (const text of await items.allTextContents()) assert.match(text, /Access request/);
    assert.match(page.url(), /kind=access_requested/);

    // Kind and child: Ben's requests only.
    await page.getByRole('combobox', { name: 'Child' }).click();
    await page.getByRole('option', { name: 'Ben' }).click();
    const bens = requests.filter((a: { managed_user_id: string }) => a.managed_user_id === ben.id);
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid="alert-item"]').length === n,
      bens.length,
    );
    for (const text of await items.allTextContents()) {
      assert.match(text, /Ben/);
      assert.doesNotMatch(text, /Ann/);
    }
    assert.match(page.url(), new RegExp(`child=${ben.id}`));

    // Child alone: all of Ben's alerts, clock changes too.
    await page.getByRole('combobox', { name: 'Kind' }).click();
    await page.getByRole('option', { name: 'All kinds' }).click();
    const benAll = (await owner.client.get(`/api/alerts?managed_user_id=${ben.id}&limit=200`)).body.items;
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid="alert-item"]').length === n,
      Math.min(20, benAll.length),
    );
    await items.filter({ hasText: 'Clock changed' }).first().waitFor();

    // A new alert for Ben slips in on top, one for Ann does not.
    await agentAlerts(laptop, [
      { linux_username: 'ann', detail: { skew_seconds: 7 } },
      { linux_username: 'ben', detail: { skew_seconds: 8 } },
    ]);
    await items.first().getByText('skew seconds: 8').waitFor();
    assert.equal(await items.filter({ hasText: 'skew seconds: 7' }).count(), 0);

    // Unread only, then read one.
    await page.getByRole('switch', { name: 'Unread only' }).check();
    const unreadBen = (
      await owner.client.get(`/api/alerts?managed_user_id=${ben.id}&unacknowledged=true&limit=200`)
    ).body.items;
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid="alert-item"]').length === n,
      Math.min(20, unreadBen.length),
    );
    assert.equal(await items.getByTestId('alert-unread').count(), Math.min(20, unreadBen.length));

    // Clear old alerts: Cancel keeps them; 0 days deletes them all and says how many.
    await page.getByRole('button', { name: 'Clear old alerts' }).click();
    const dialog = page.getByRole('dialog', { name: 'Clear old alerts?' });
    await dialog.getByText('older than 30 days will be deleted').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    const before = (await owner.client.get('/api/alerts?limit=200')).body.items.length;
    assert.ok(before > 40);

    await page.getByRole('button', { name: 'Clear old alerts' }).click();
    const days = dialog.getByRole('textbox', { name: 'Delete alerts older than (days)' });
    await days.fill('');
    await dialog.getByRole('button', { name: 'Delete old alerts' }).click();
    await dialog.getByText('Enter a whole number of days from 0 to 3650.').waitFor();
    await days.fill('0');
    await dialog.getByText('Every alert and access request, including today’s,').waitFor();
    await dialog.getByRole('button', { name: 'Delete old alerts' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByTestId('prune-result').getByText(`Deleted ${before} alerts`).waitFor();
    await page.getByText('No alerts match').waitFor();
    assert.equal((await owner.client.get('/api/alerts?limit=200')).body.items.length, 0);
    await unreadBadge(page).waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByText('All quiet').waitFor();
    await closePage(handle);
  });

  test('the Kind filter offers every kind, also one an agent reports while the page is open', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    const kindsNow = async () => (await owner.client.get('/api/alerts/kinds')).body.kinds as string[];
    laptop.send({
      type: 'alert_event',
      event_type: 'usb_inserted',
      linux_username: 'ann',
      detail: { port: 2 },
    });
    await eventually(kindsNow, (kinds) => kinds.includes('usb_inserted'), 'the usb_inserted alert stored');
    await gotoLive(page, `${server.url}/alerts`);
    const kind = page.getByRole('combobox', { name: 'Kind' });
    await kind.click();
    const listbox = page.getByRole('listbox');
    for (const name of ['All kinds', 'Access requests', 'Clock changes', 'Alerts held back', 'Usb inserted'])
      await listbox.getByRole('option', { name, exact: true }).waitFor();
    await page.keyboard.press('Escape');

    // A kind first reported now joins the filter without a reload.
    laptop.send({ type: 'alert_event', event_type: 'battery_low', linux_username: 'ben', detail: {} });
    await page.getByRole('list', { name: 'Alerts' }).getByText('Battery low').first().waitFor();
    await kind.click();
    await listbox.getByRole('option', { name: 'Battery low', exact: true }).waitFor();
    await listbox.getByRole('option', { name: 'Usb inserted', exact: true }).click();
    const items = page.getByRole('list', { name: 'Alerts' }).getByTestId('alert-item');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="alert-item"]').length === 1);
    assert.match((await items.first().textContent()) ?? '', /Usb inserted/);
    assert.match(page.url(), /kind=usb_inserted/);
    await closePage(handle);
  });
});
