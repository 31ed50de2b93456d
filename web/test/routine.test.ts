// The Routine and Usage pages and the time controls of a child (issue 14, DESIGN §10), in Chromium
// against a real server with a simulated agent: painting a week with a mouse, a finger's pointer and
// the keyboard, saving and reading it back, a day with too many periods refused in words, minutes
// added to today, a pause shown on the child's page, the dashboard and the device's, a device's sync
// badge reaching "Synced" when its agent acknowledges the schedule, and the usage charts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { SimAgent } from '../../bench/src/simulator.ts';
import { recordUsage, type TestServer } from '../../server/test/helpers.ts';
import { app, FIREFOX_ICON, GIMP_ICON, report, sendIcon } from './inventory-support.ts';
import {
  assertFitsPhone,
  browserSkipReason,
  closeHousehold,
  closePage,
  createAnnAndBen,
  DESKTOP,
  eventually,
  isCommand,
  type Owner,
  openHousehold,
  openPage,
  PHONE,
  pairAgent,
  screenshot,
} from './support.ts';

const skip = browserSkipReason();

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
const SHORT = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** The grid cell of "HH:MM" (a quarter hour) on the day shown. */
const cell = (page: Page, time: string) => {
  const [h = 0, m = 0] = time.split(':').map(Number);
  const end = h * 60 + m + 15;
  const to = `${String(Math.floor(end / 60)).padStart(2, '0')}:${String(end % 60).padStart(2, '0')}`;
  return page.getByRole('gridcell', { name: `${time} to ${to}`, exact: true });
};

/** Drags a mouse from the middle of one cell to the middle of another. */
/** Scrolls a cell to the middle of the screen, clear of the save bar stuck to the bottom. */
async function centre(page: Page, time: string): Promise<void> {
  await cell(page, time).evaluate((el) => el.scrollIntoView({ block: 'center' }));
}

async function drag(page: Page, from: string, to: string): Promise<void> {
  await centre(page, from);
  const a = await cell(page, from).boundingBox();
  const b = await cell(page, to).boundingBox();
  assert.ok(a && b);
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 6 });
  await page.mouse.up();
}

async function pickDay(page: Page, day: (typeof WEEKDAYS)[number]): Promise<void> {
  await page
    .getByRole('radiogroup', { name: 'Day to edit' })
    .getByText(SHORT[WEEKDAYS.indexOf(day)] ?? '', { exact: true })
    .click();
  await page.getByRole('heading', { level: 2, name: day[0]?.toUpperCase() + day.slice(1) }).waitFor();
}

describe('routine and usage', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let owner: Owner;
  let ann: { id: string };
  let ben: { id: string };
  let laptop: SimAgent;
  const agents: SimAgent[] = [];
  /** The set_time_policy versions the laptop acknowledged. */
  const applied: number[] = [];

  before(async () => {
    ({ server, browser, owner } = await openHousehold());
    ({ ann, ben } = await createAnnAndBen(owner));
    laptop = await pairAgent(
      { server, owner },
      agents,
      {
        hostname: 'family-laptop',
        linuxUsers: [{ username: 'ann', display_name: 'Ann' }, { username: 'ben' }],
        // A current agent applies the schedule and says which version it applied.
        respond: (command, args) => {
          if (command === 'set_time_policy') {
            applied.push(Number(args.version));
            return { success: true, data: { applied_version: args.version } };
          }
          return { success: true, data: command === 'refresh_installed_apps' ? { queued: true } : {} };
        },
      },
      'Living room laptop',
      [
        ['ann', ann],
        ['ben', ben],
      ],
    );
  });
  after(() => closeHousehold({ server, browser }, agents));

  const schedule = async (child: { id: string }) => {
    const res = await owner.client.get(`/api/managed-users/${child.id}/schedule`);
    assert.equal(res.status, 200, res.text);
    return res.body as {
      version: number;
      days: Record<string, { limit_minutes: number | null; windows: { start: string; end: string }[] }>;
    };
  };

  test('a parent paints a week with the mouse and the keyboard at desktop width, saves it, and a reload shows it', async () => {
    const handle = await openPage(browser, server, { as: owner.client, viewport: DESKTOP });
    const { page } = handle;
    await page.goto(`${server.url}/children/${ann.id}`);
    await page.getByRole('link', { name: 'Edit routine' }).click();
    await page.getByRole('heading', { level: 1, name: 'Ann’s routine' }).waitFor();

    await pickDay(page, 'monday');
    // A child never edited may use a device all day: start from nothing.
    await page.getByRole('button', { name: 'No screen time' }).click();
    await cell(page, '07:00').waitFor();
    assert.equal(await cell(page, '07:00').getAttribute('aria-selected'), 'false');
    // The mouse paints 07:00–08:00.
    await drag(page, '07:00', '07:45');
    for (const t of ['07:00', '07:15', '07:30', '07:45'])
      assert.equal(await cell(page, t).getAttribute('aria-selected'), 'true', t);
    assert.equal(await cell(page, '08:00').getAttribute('aria-selected'), 'false');
    // The keyboard paints 15:00–17:00: focus a cell, Space switches it, Shift+Down paints an hour at a time.
    await centre(page, '15:00');
    await cell(page, '15:00').focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('Shift+ArrowRight');
    // The focus moved with the arrows (a roving tab stop): one cell is in the tab order.
    assert.equal(await page.locator('[role="gridcell"][tabindex="0"]').count(), 1);
    assert.equal(
      await page.evaluate(() => document.activeElement?.getAttribute('aria-label')),
      '16:45 to 17:00',
    );
    await page.getByTestId('day-summary').filter({ hasText: '07:00–08:00, 15:00–17:00' }).waitFor();

    // A daily limit of 90 minutes.
    await page.getByRole('switch', { name: 'Daily limit on Monday' }).check();
    await page.getByRole('textbox', { name: 'Minutes a day' }).fill('90');
    // Monday copied to Tuesday.
    await page.getByRole('checkbox', { name: 'Tuesday' }).check();
    await page.getByRole('button', { name: 'Copy Monday' }).click();
    await page
      .getByTestId('week-tuesday')
      .filter({ hasText: '07:00–08:00, 15:00–17:00 · 1 h 30 min a day' })
      .waitFor();
    // Saturday from a preset.
    await pickDay(page, 'saturday');
    await page.getByRole('button', { name: 'Weekend', exact: true }).click();

    const policy = laptop.waitFor(isCommand('set_time_policy'));
    await page.getByRole('button', { name: 'Save routine' }).click();
    await page.getByTestId('save-state').filter({ hasText: 'Everything is saved.' }).waitFor();
    // Read back through the API.
    const saved = await schedule(ann);
    assert.deepEqual(saved.days.monday, {
      limit_minutes: 90,
      windows: [
        { start: '07:00', end: '08:00' },
        { start: '15:00', end: '17:00' },
      ],
    });
    assert.deepEqual(saved.days.tuesday, saved.days.monday);
    assert.deepEqual(saved.days.saturday, {
      limit_minutes: 240,
      windows: [{ start: '08:00', end: '21:00' }],
    });
    assert.deepEqual(saved.days.wednesday, { limit_minutes: null, windows: [] });
    // The device got the new schedule, and its badge says so once it acknowledged it.
    const sent = await policy;
    assert.equal((sent.args as { linux_username: string }).linux_username, 'ann');
    await page
      .getByTestId('sync-item')
      .filter({ hasText: 'Living room laptop (ann)' })
      .getByTestId('sync-status')
      .filter({ hasText: 'Synced' })
      .waitFor();

    // A reload shows the saved week.
    await page.reload();
    await pickDay(page, 'monday');
    assert.equal(await cell(page, '07:15').getAttribute('aria-selected'), 'true');
    assert.equal(await cell(page, '08:00').getAttribute('aria-selected'), 'false');
    assert.equal(await cell(page, '16:45').getAttribute('aria-selected'), 'true');
    assert.equal(await page.getByRole('textbox', { name: 'Minutes a day' }).inputValue(), '90');
    await screenshot(page, 'routine.png');
    await closePage(handle);
  });

  test('at phone width the routine fits the screen, a finger paints, and a day with five periods is refused in words', async () => {
    const before = await schedule(ann);
    const handle = await openPage(browser, server, { as: owner.client, viewport: PHONE });
    const { page } = handle;
    await page.goto(`${server.url}/children/${ann.id}/routine`);
    await pickDay(page, 'wednesday');
    await assertFitsPhone(page);
    await page.getByRole('button', { name: 'No screen time' }).click();
    // A finger's drag (pointer events of type touch) paints 18:00–19:00.
    await centre(page, '18:00');
    const a = await cell(page, '18:00').boundingBox();
    const b = await cell(page, '18:45').boundingBox();
    assert.ok(a && b);
    const finger = (x: number, y: number) => ({
      pointerId: 7,
      pointerType: 'touch',
      isPrimary: true,
      clientX: x,
      clientY: y,
    });
    const [ax, ay, bx, by] = [a.x + a.width / 2, a.y + a.height / 2, b.x + b.width / 2, b.y + b.height / 2];
    await cell(page, '18:00').dispatchEvent('pointerdown', finger(ax, ay));
    // With touch the first cell keeps the pointer: the moves go to it, wherever the finger is.
    await cell(page, '18:00').dispatchEvent('pointermove', finger((ax + bx) / 2, (ay + by) / 2));
    await cell(page, '18:00').dispatchEvent('pointermove', finger(bx, by));
    await cell(page, '18:00').dispatchEvent('pointerup', finger(bx, by));
    for (const t of ['18:00', '18:15', '18:30', '18:45'])
      assert.equal(await cell(page, t).getAttribute('aria-selected'), 'true', t);
    await page.getByTestId('day-summary').filter({ hasText: '18:00–19:00' }).waitFor();
    await screenshot(page, 'routine-phone.png');

    // Four more single quarter hours make five periods: more than a day may have.
    for (const t of ['06:00', '09:00', '12:00', '21:00']) {
      await centre(page, t);
      await cell(page, t).click();
    }
    await page.getByTestId('day-problem').filter({ hasText: 'Wednesday has 5 separate periods' }).waitFor();
    await page.getByRole('button', { name: 'Save routine' }).click();
    await page
      .getByTestId('save-refused')
      .filter({ hasText: 'Not saved: Wednesday needs fixing first.' })
      .waitFor();
    await page.getByTestId('week-problem-wednesday').waitFor();
    await assertFitsPhone(page);
    // Nothing was saved.
    assert.deepEqual(await schedule(ann), before);
    // Clearing one makes it savable again.
    await centre(page, '21:00');
    await cell(page, '21:00').click();
    await page.getByTestId('day-problem').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Save routine' }).click();
    await page.getByTestId('save-state').filter({ hasText: 'Everything is saved.' }).waitFor();
    assert.equal((await schedule(ann)).days.wednesday?.windows.length, 4);
    await closePage(handle);
  });

  test('the server refuses a day with five windows in words, and nothing changes', async () => {
    const before = await schedule(ben);
    const res = await owner.client.post('/weekly-schedule/update', {
      managed_user_id: ben.id,
      days: {
        monday: {
          limit_minutes: null,
          windows: ['06', '08', '10', '12', '14'].map((h) => ({ start: `${h}:00`, end: `${h}:15` })),
        },
      },
    });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'invalid_request');
    assert.match(res.body.error.message, /\w+ \w+/);
    assert.deepEqual(await schedule(ben), before);
  });

  test('+15 minutes shows the new time left at once; pause shows "Paused" on the child page, the dashboard and the device, and resume clears it', async () => {
    // Every day: 2 hours, any time.
    const days = Object.fromEntries(WEEKDAYS.map((d) => [d, { limit_minutes: 120, windows: [] }]));
    const set = await owner.client.post('/weekly-schedule/update', { managed_user_id: ben.id, days });
    assert.equal(set.status, 200, set.text);

    const handle = await openPage(browser, server, { as: owner.client, viewport: DESKTOP });
    const { page } = handle;
    await page.goto(`${server.url}/children/${ben.id}`);
    const today = page.getByRole('region', { name: 'Today' });
    await today.getByTestId('usage-summary').filter({ hasText: '2 h left' }).waitFor();
    await today.getByRole('button', { name: '+15 min today' }).click();
    await today
      .getByTestId('time-result')
      .filter({ hasText: 'Added 15 minutes: 2 h 15 min left today.' })
      .waitFor();
    await today.getByTestId('usage-summary').filter({ hasText: '2 h 15 min left' }).waitFor();
    const usage = await owner.client.get(`/api/user/${ben.id}/usage`);
    assert.equal(usage.body.remaining_seconds, 135 * 60);
    await today.getByRole('button', { name: '−15 min: take 15 minutes away' }).click();
    await today.getByTestId('usage-summary').filter({ hasText: '2 h left' }).waitFor();

    // Pause until resumed.
    await today.getByRole('button', { name: 'Pause now for Ben' }).click();
    await today.getByTestId('time-state').filter({ hasText: 'Paused' }).waitFor();
    await today
      .getByTestId('time-next')
      .filter({ hasText: 'Paused on all devices until you resume.' })
      .waitFor();
    assert.equal((await owner.client.get(`/api/user/${ben.id}/usage`)).body.state, 'paused');
    // It holds across a reload, and shows on the dashboard and the device's page.
    await page.reload();
    await today.getByTestId('time-state').filter({ hasText: 'Paused' }).waitFor();
    await page.goto(`${server.url}/`);
    await page
      .getByTestId('child-card')
      .filter({ hasText: 'Ben' })
      .getByTestId('time-state')
      .filter({ hasText: 'Paused' })
      .waitFor();
    await page.goto(`${server.url}/devices/${laptop.systemId}`);
    const benOnLaptop = page.getByTestId('device-account').filter({ hasText: 'Ben' });
    await benOnLaptop.getByTestId('time-state').filter({ hasText: 'Paused' }).waitFor();
    // Resume from the device's page clears it everywhere.
    await benOnLaptop.getByRole('button', { name: 'Resume Ben' }).click();
    await benOnLaptop.getByTestId('time-state').filter({ hasNotText: 'Paused' }).waitFor();
    assert.notEqual((await owner.client.get(`/api/user/${ben.id}/usage`)).body.state, 'paused');
    await page.goto(`${server.url}/children/${ben.id}`);
    await today.getByTestId('time-state').waitFor();
    assert.notEqual(await today.getByTestId('time-state').textContent(), 'Paused');
    await page.goto(`${server.url}/`);
    const card = page.getByTestId('child-card').filter({ hasText: 'Ben' });
    await card.getByTestId('time-state').waitFor();
    assert.notEqual(await card.getByTestId('time-state').textContent(), 'Paused');

    // Paused for 30 minutes from the menu.
    await page.goto(`${server.url}/children/${ben.id}`);
    await today.getByRole('button', { name: 'Pause for a while (Ben)' }).click();
    await page.getByRole('menuitem', { name: 'For 30 minutes' }).click();
    await today.getByTestId('time-state').filter({ hasText: 'Paused' }).waitFor();
    await today.getByRole('button', { name: 'Resume Ben' }).click();
    await today.getByRole('button', { name: 'Pause now for Ben' }).waitFor();
    await closePage(handle);
  });

  test('the Usage page shows each day against its limit, the apps used most and the devices, at both widths', async () => {
    // Seven days of Ann's use: today from the laptop with its apps, the days before stored.
    await sendIcon(laptop, FIREFOX_ICON);
    await sendIcon(laptop, GIMP_ICON);
    await report(laptop, [app('Firefox', '128.0', FIREFOX_ICON), app('GIMP', '2.10', GIMP_ICON)], 'ann');
    const today = (await owner.client.get(`/api/user/${ann.id}/usage`)).body.date as string;
    const day = (back: number) => {
      const d = new Date(`${today}T12:00:00Z`);
      d.setUTCDate(d.getUTCDate() - back);
      return d.toISOString().slice(0, 10);
    };
    for (const [back, minutes] of [
      [1, 95],
      [2, 40],
      [3, 130],
      [4, 60],
      [5, 20],
      [6, 75],
    ] as const) {
      await recordUsage(server, laptop.systemId, 'ann', day(back), minutes * 60);
    }
    laptop.send({
      type: 'usage_report',
      linux_username: 'ann',
      date: today,
      seconds_used: 50 * 60,
      apps: [
        { identifier: '/usr/bin/firefox', match_type: 'executable', seconds: 35 * 60 },
        { identifier: '/usr/bin/gimp', match_type: 'executable', seconds: 15 * 60 },
      ],
    });
    await eventually(
      async () => (await owner.client.get(`/api/user/${ann.id}/stats?days=7`)).body,
      (stats) =>
        stats.apps?.length === 2 &&
        stats.days?.find((d: { date: string }) => d.date === today)?.used_seconds === 50 * 60,
      'the stats with today’s apps',
    );

    for (const [width, viewport, name] of [
      ['desktop', DESKTOP, 'usage.png'],
      ['phone', PHONE, 'usage-phone.png'],
    ] as const) {
      const handle = await openPage(browser, server, { as: owner.client, viewport });
      const { page } = handle;
      await page.goto(`${server.url}/children/${ann.id}`);
      await page.getByRole('link', { name: 'See usage' }).click();
      await page.getByRole('heading', { level: 1, name: 'Ann’s usage' }).waitFor();
      // The bars are drawn (one per day), with the limit line.
      await page.locator('[data-testid="days-chart"] .recharts-bar-rectangle').nth(6).waitFor();
      const table = page.getByTestId('days-table');
      await table.getByRole('row').filter({ hasText: '2 h 10 min' }).waitFor();
      assert.equal(await table.getByRole('row').count(), 8);
      const apps = page.getByTestId('top-apps').getByTestId('share-item');
      await apps.first().filter({ hasText: 'Firefox' }).filter({ hasText: '35 min' }).waitFor();
      await apps.nth(1).filter({ hasText: 'GIMP' }).filter({ hasText: '15 min' }).waitFor();
      await page.getByTestId('usage-devices').filter({ hasText: 'Living room laptop' }).waitFor();
      // 14 days: the table has fourteen days.
      await page.getByRole('radiogroup', { name: 'Days shown' }).getByText('14 days').click();
      await eventually(
        () => table.getByRole('row').count(),
        (n) => n === 15,
        `14 days at ${width}`,
      );
      await page.getByRole('radiogroup', { name: 'Days shown' }).getByText('7 days').click();
      await eventually(
        () => table.getByRole('row').count(),
        (n) => n === 8,
        `7 days at ${width}`,
      );
      if (width === 'phone') await assertFitsPhone(page);
      await screenshot(page, name);
      await closePage(handle);
    }
  });

  test('a device that cannot apply the routine shows "Not applied" with its reason in words', async () => {
    await pairAgent(
      { server, owner },
      agents,
      {
        hostname: 'study-pc',
        linuxUsers: [{ username: 'ben' }],
        respond: (command) =>
          command === 'set_time_policy'
            ? { success: false, error: 'The disk is full' }
            : { success: true, data: {} },
      },
      'Study PC',
      [['ben', ben]],
    );
    const days = { sunday: { limit_minutes: 90, windows: [{ start: '09:00', end: '18:00' }] } };
    const set = await owner.client.post('/weekly-schedule/update', { managed_user_id: ben.id, days });
    assert.equal(set.status, 200, set.text);
    const handle = await openPage(browser, server, { as: owner.client, viewport: PHONE });
    const { page } = handle;
    await page.goto(`${server.url}/children/${ben.id}`);
    const study = page.getByTestId('sync-item').filter({ hasText: 'Study PC (ben)' });
    await study.getByTestId('sync-status').filter({ hasText: 'Not applied' }).waitFor();
    await study.getByText('The device said: The disk is full').waitFor();
    // The laptop, which applies it, says so beside it.
    await page
      .getByTestId('sync-item')
      .filter({ hasText: 'Living room laptop (ben)' })
      .getByTestId('sync-status')
      .filter({ hasText: 'Synced' })
      .waitFor();
    await assertFitsPhone(page);
    await closePage(handle);
  });
});
