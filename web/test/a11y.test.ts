// axe-core over every admin page, signed out and signed in, at desktop and phone width, with the
// household's data on them: no serious or critical violation of WCAG 2.2 AA, and every page has its
// main landmark. One server, one browser, one page per width; pages are opened in turn.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import axe from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import { SimAgent } from '../../bench/src/simulator.ts';
import { enrollmentToken, recordUsage, startTestServer, type TestServer } from '../../server/test/helpers.ts';
import { laptopRequests } from './approvals-support.ts';
import { app, FIREFOX_ICON, GIMP_ICON, report, sendIcon } from './inventory-support.ts';
import {
  assertBuilt,
  browserSkipReason,
  closePage,
  createAnnAndBen,
  createOwner,
  DESKTOP,
  gotoLive,
  launchBrowser,
  mapAccount,
  type Owner,
  openPage,
  PASSWORD,
  PHONE,
  pairAgent,
  sendAccessRequest,
  sendClockAlerts,
} from './support.ts';

const skip = browserSkipReason();

/** WCAG 2.0–2.2 A and AA, and axe's best practices (where the main landmark rule lives). */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];
/** What fails the test: anything serious or critical, and these whatever axe rates them. */
const ALWAYS = new Set(['landmark-one-main', 'label-content-name-mismatch', 'page-has-heading-one']);

interface Violation {
  id: string;
  impact: string;
  targets: string[];
}

/** Runs axe-core in the page; its violations that fail the test, each with the offending selectors. */
async function axeViolations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  const found: Violation[] = await page.evaluate(async (tags) => {
    const w = window as unknown as { axe: typeof axe };
    const result = await w.axe.run(document, {
      runOnly: { type: 'tag', values: tags },
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? 'unknown',
      // For contrast, the colours axe measured: the next palette change knows where to look.
      targets: v.nodes.map((n) => {
        const d = n.any[0]?.data as
          | { fgColor?: string; bgColor?: string; contrastRatio?: number }
          | undefined;
        const where = n.target.join(' ');
        return d?.fgColor ? `${where} [${d.fgColor} on ${d.bgColor}, ${d.contrastRatio}:1]` : where;
      }),
    }));
  }, TAGS);
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical' || ALWAYS.has(v.id));
}

/** Waits for the page's content (its heading, no loader left) and for what fades in to finish. */
async function settle(page: Page): Promise<void> {
  await page.locator('h1, main').first().waitFor();
  await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' });
  await page.locator('.mantine-Loader-root').first().waitFor({ state: 'detached' });
  // Half-faded text has half its contrast; axe must see what the parent sees a moment later.
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((a) => a.effect?.getComputedTiming().endTime !== Number.POSITIVE_INFINITY)
        .map((a) => a.finished),
    ),
  );
}

const readable = (found: Map<string, Violation[]>) =>
  [...found]
    .map(
      ([where, violations]) =>
        `${where}:\n${violations.map((v) => `  ${v.id} (${v.impact}): ${v.targets.join(' | ')}`).join('\n')}`,
    )
    .join('\n');

/**
 * Runs `visit` on a fresh page at desktop width, at phone width, and in the dark scheme at desktop
 * width (the pages follow the system's colour scheme).
 */
async function inEachLook(
  browser: Browser,
  server: TestServer,
  options: Omit<Parameters<typeof openPage>[2], 'viewport'>,
  visit: (page: Page, width: 'desktop' | 'phone' | 'dark') => Promise<void>,
): Promise<void> {
  for (const [width, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
    ['dark', DESKTOP],
  ] as const) {
    const handle = await openPage(browser, server, { ...options, viewport });
    if (width === 'dark') await handle.page.emulateMedia({ colorScheme: 'dark' });
    await visit(handle.page, width);
    await closePage(handle);
  }
}

describe('admin UI accessibility (axe-core)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let owner: Owner;
  const agents: SimAgent[] = [];
  const found = new Map<string, Violation[]>();
  /** Records the page's violations under `where`; the test fails at its end, listing them all. */
  const check = async (page: Page, where: string) => {
    const violations = await axeViolations(page);
    found.set(where, violations);
    const count = violations.reduce((n, v) => n + v.targets.length, 0);
    if (count)
      console.log(
        `# ${where}: ${count} (${violations.map((v) => `${v.id} ${v.targets.length}`).join(', ')})`,
      );
  };
  const failures = () => new Map([...found].filter(([, v]) => v.length > 0));
  const verdict = () => {
    console.log(`# axe checked ${found.size} page states; ${failures().size} with violations`);
    assert.equal(failures().size, 0, `axe found violations:\n${readable(failures())}`);
  };

  before(async () => {
    assertBuilt();
    server = await startTestServer(undefined, { HEARTH_OPEN_SIGNUP: 'true' });
    browser = await launchBrowser();
  });
  after(async () => {
    await Promise.all(agents.map((a) => a.stop()));
    await browser?.close();
    await server?.close();
  });

  test('setup, sign-in and sign-up at desktop and phone width, and in the dark scheme', async () => {
    found.clear();
    await inEachLook(browser, server, {}, async (page, width) => {
      await page.goto(`${server.url}/setup`);
      await settle(page);
      await check(page, `setup (${width})`);
      // A form with its errors showing.
      await page.getByRole('button', { name: 'Create household' }).click();
      await page.locator('.mantine-InputWrapper-error').first().waitFor();
      await check(page, `setup with errors (${width})`);
    });
    owner = await createOwner(server, 'maria', 'The Rivera family');
    await inEachLook(browser, server, {}, async (page, width) => {
      await page.goto(`${server.url}/login`);
      await settle(page);
      await check(page, `sign-in (${width})`);
      await page.getByRole('textbox', { name: 'Username' }).fill('maria');
      await page.locator('input[type="password"]').fill(`${PASSWORD}-wrong`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').first().waitFor();
      await check(page, `sign-in refused (${width})`);
      await page.goto(`${server.url}/signup`);
      await settle(page);
      await check(page, `sign-up (${width})`);
    });
    verdict();
  });

  test('every signed-in page, with its data, at desktop and phone width, and in the dark scheme', async () => {
    found.clear();
    owner ??= await createOwner(server, 'maria', 'The Rivera family');
    const { ann, ben } = await createAnnAndBen(owner);
    const household = { server, owner };
    const laptop = await pairAgent(
      household,
      agents,
      {
        hostname: 'family-laptop',
        linuxUsers: [{ username: 'ann', display_name: 'Ann' }, { username: 'ben' }],
      },
      'Living room laptop',
    );
    const annMapping = await mapAccount(owner, ann, laptop.systemId, 'ann');
    await mapAccount(owner, ben, laptop.systemId, 'ben');
    // A device waiting to join.
    const tablet = new SimAgent({
      url: server.wsUrl,
      enrollmentToken: await enrollmentToken(owner),
      hostname: 'ann-tablet',
      linuxUsers: [{ username: 'ann' }],
    });
    agents.push(tablet);
    await tablet.connect();
    // Apps with icons, for the device's and the child's app pages.
    await sendIcon(laptop, FIREFOX_ICON);
    await sendIcon(laptop, GIMP_ICON);
    await report(
      laptop,
      [app('Firefox', '128.0', FIREFOX_ICON), app('GIMP', '2.10', GIMP_ICON), app('Krita', '5.2')],
      'ann',
    );
    await report(laptop, [app('Firefox', '128.0', FIREFOX_ICON), app('Tux Paint', '0.9')], 'ben');
    // App rules, so the pressed rule buttons (filled, in their colours) are on the child's apps page.
    const rules = await owner.client.request('PUT', `/api/managed-users/${ann.id}/app-policy`, {
      json: {
        rules: [
          { identifier: '/usr/bin/firefox', match_type: 'executable', action: 'allow' },
          { identifier: '/usr/bin/gimp', match_type: 'executable', action: 'block' },
          { identifier: '/usr/bin/krita', match_type: 'executable', action: 'limit', daily_minutes: 30 },
        ],
      },
    });
    assert.equal(rules.status, 200, rules.text);
    // Sign-up approvals: one waiting, one approved (an allowed site and an online account), and
    // requests for more time and an app.
    const device = laptopRequests(server, laptop);
    const enforced = await owner.client.post(`/api/mappings/${annMapping.id}/approval-settings`, {
      enforce_signup_approvals: true,
    });
    assert.equal(enforced.status, 200, enforced.text);
    const asked = await device.askSignup('video.example.org', 'https://video.example.org/join');
    assert.equal(asked.status, 201, JSON.stringify(asked.body));
    const approved = await owner.client.post(`/api/approvals/${asked.body.id}/approve`, {
      grant: 'persistent',
    });
    assert.equal(approved.status, 200, approved.text);
    assert.equal((await device.logLogin('video.example.org', 'ann.rivera@example.com')).status, 200);
    assert.equal((await device.askSignup('forum.example.com', 'https://forum.example.com/')).status, 201);
    assert.equal(
      (await device.askOther('time_extension', { minutes: 20, reason: 'Finishing my essay' })).status,
      201,
    );
    assert.equal(
      (
        await device.askOther('app_access', {
          identifier: 'org.minetest.Minetest',
          application_name: 'Minetest',
        })
      ).status,
      201,
    );
    // Alerts: a child's request and the clock set back.
    assert.equal(
      (await sendAccessRequest(server, laptop, 'ann', 'locked', 'Can I finish my level?')).status,
      201,
    );
    await sendClockAlerts(owner, laptop, [{ linux_username: 'ben', detail: { skew_seconds: -3600 } }]);
    // A routine with a limit and some screen time, for the child's Today, Routine and Usage pages.
    const days = Object.fromEntries(
      ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
        d,
        { limit_minutes: 120, windows: [{ start: '07:00', end: '21:00' }] },
      ]),
    );
    const routine = await owner.client.post('/weekly-schedule/update', { managed_user_id: ann.id, days });
    assert.equal(routine.status, 200, routine.text);
    const today = (await owner.client.get(`/api/user/${ann.id}/usage`)).body.date as string;
    await recordUsage(server, laptop.systemId, 'ann', today, 45 * 60);

    // A list of the household's, given to Ann with a site of her own, for Blocklists and Websites.
    const list = await owner.client.post('/blocklists/sources/add', {
      name: 'Our own list',
      kind: 'manual',
      domains: 'games.example.com\nvideo.example.org',
      format: 'auto',
    });
    assert.equal(list.status, 201, list.text);
    const websites = await owner.client.post(`/managed-users/${ann.id}/blocklists/update`, {
      source_ids: [list.body.id],
      block_domains: ['homework-break.example.com'],
      allow_domains: [],
    });
    assert.equal(websites.status, 200, websites.text);

    const pages: [string, string][] = [
      ['dashboard', '/'],
      ['access requests', '/access-requests'],
      ['alerts', '/alerts'],
      ['devices', '/devices'],
      ['device (approved)', `/devices/${laptop.systemId}`],
      ['device (pending)', `/devices/${tablet.systemId}`],
      ['add device', '/devices/add'],
      ['game consoles', '/consoles'],
      ['children', '/children'],
      ['child', `/children/${ann.id}`],
      ['child apps', `/children/${ann.id}/apps`],
      ['routine', `/children/${ann.id}/routine`],
      ['usage', `/children/${ann.id}/usage`],
      ['websites', `/children/${ann.id}/websites`],
      ['blocklists', '/blocklists'],
      ['online accounts', '/online-accounts'],
      ['settings', '/settings'],
      ['not found', '/no-such-page'],
    ];
    await inEachLook(browser, server, { as: owner.client }, async (page, width) => {
      for (const [name, path] of pages) {
        await page.goto(`${server.url}${path}`);
        await settle(page);
        await check(page, `${name} (${width})`);
      }
      // A confirmation open: approving the waiting device.
      await page.goto(`${server.url}/devices/${tablet.systemId}`);
      await settle(page);
      await page.getByRole('button', { name: 'Approve ann-tablet' }).click();
      await page.getByRole('dialog').waitFor();
      await settle(page);
      await check(page, `approve dialog (${width})`);
      // Linking Xbox: the wizard's sign-in step (nothing is asked of Microsoft until the parent opens it).
      await page.goto(`${server.url}/consoles`);
      await settle(page);
      await page.getByTestId('console-link-xbox').click();
      await page.getByRole('dialog').getByRole('button', { name: 'Continue' }).click();
      await page.getByTestId('console-redirect-input').waitFor();
      await settle(page);
      await check(page, `console link wizard (${width})`);
      // Adding a list, from a web address.
      await page.goto(`${server.url}/blocklists`);
      await settle(page);
      await page.getByRole('button', { name: 'Add list' }).first().click();
      await page.getByRole('dialog').getByText('From a web address').click();
      await settle(page);
      await check(page, `add list dialog (${width})`);
      // A website checked on Ann's Websites page.
      await page.goto(`${server.url}/children/${ann.id}/websites`);
      await settle(page);
      await page.getByRole('textbox', { name: 'Website' }).fill('games.example.com');
      // Enter sends the form without leaving the pointer over the button's hover colour.
      await page.getByRole('textbox', { name: 'Website' }).press('Enter');
      await page.getByTestId('check-result').waitFor();
      await settle(page);
      await check(page, `website checked (${width})`);
      // A child's request arriving while the dashboard is open shows a notification.
      await gotoLive(page, `${server.url}/`);
      await settle(page);
      assert.equal(
        (await sendAccessRequest(server, laptop, 'ben', 'locked', 'Five more minutes please')).status,
        201,
      );
      await page.locator('.mantine-Notification-root').first().waitFor();
      await settle(page);
      await check(page, `dashboard with a notification (${width})`);
      if (width === 'phone') {
        await page.getByRole('button', { name: 'Open navigation' }).click();
        await page
          .getByRole('navigation', { name: 'Main navigation' })
          .getByRole('link', { name: 'Settings' })
          .waitFor();
        await settle(page);
        await check(page, 'navigation open (phone)');
      }
    });
    verdict();
  });
});
