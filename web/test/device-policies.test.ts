import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import axe from 'axe-core';
import type { Browser, Locator, Page } from 'playwright-core';
import type { Frame, SimAgent } from '../../bench/src/simulator.ts';
import { addParent, type TestServer } from '../../server/test/helpers.ts';
import {
  assertFitsPhone,
  assertNotReloaded,
  browserSkipReason,
  closeHousehold,
  closePage,
  createAnnAndBen,
  DESKTOP,
  gotoLive,
  isCommand,
  markPage,
  type Owner,
  openHousehold,
  openPage,
  PHONE,
  pairAgent,
  pairFamilyLaptop,
  SCREENSHOTS,
  screenshot,
  timeUntil,
  WITHIN_LIVE,
  waitForOffline,
} from './support.ts';

const skip = browserSkipReason();

const EXTENSION = 'cjpalhdlnbpafiamejdnhcphjbkeiagm';
const NO_RFKILL = 'rfkill is not installed on this computer';
const READ_ONLY = 'Chromium’s policy folder /etc/chromium/policies is read-only';

/** A child's desktop with homework open, rendered by the browser: the PNG the agent uploads. */
const DESKTOP_HTML = `<!doctype html><html><body style="margin:0;font-family:sans-serif;background:linear-gradient(135deg,#2b5876,#4e4376);height:800px">
<div style="position:absolute;left:120px;top:70px;width:1040px;height:620px;background:#fff;border-radius:10px;box-shadow:0 12px 40px #0006;overflow:hidden">
<div style="height:44px;background:#e8eaed;display:flex;align-items:center;padding:0 16px;gap:8px">
<span style="width:12px;height:12px;border-radius:6px;background:#ff5f57"></span><span style="width:12px;height:12px;border-radius:6px;background:#febc2e"></span><span style="width:12px;height:12px;border-radius:6px;background:#28c840"></span>
<span style="margin-left:24px;background:#fff;border-radius:14px;padding:6px 16px;color:#555;width:600px">mathsgarden.example/fractions</span></div>
<div style="padding:40px 56px"><h1 style="color:#2b5876;margin:0 0 16px">Fractions: adding halves and quarters</h1>
<p style="font-size:22px;color:#333">1. &frac12; + &frac14; = <b style="color:#28a745">&frac34;</b></p>
<p style="font-size:22px;color:#333">2. &frac14; + &frac14; = <b style="color:#28a745">&frac12;</b></p>
<p style="font-size:22px;color:#333">3. &frac12; + &frac12; = <span style="border-bottom:2px solid #999;display:inline-block;width:60px">&nbsp;</span></p>
</div></div>
<div style="position:absolute;bottom:0;left:0;right:0;height:48px;background:#111a;display:flex;align-items:center;gap:18px;padding:0 20px;color:#fff">Activities <span style="margin-left:auto">16:42</span></div>
</body></html>`;

/** A dialog over the page, as the window shows it (a full-page picture would stretch the page behind). */
async function dialogScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.mouse.move(0, 0);
  await page.screenshot({
    path: path.join(SCREENSHOTS, name),
    animations: 'disabled',
    style: '.mantine-Notifications-root { display: none !important; }',
  });
}

/** axe-core's serious and critical findings (WCAG A/AA) in what the page shows now, with where. */
async function assertAccessible(page: Page, what: string): Promise<void> {
  await page.evaluate(axe.source);
  const found: string[] = await page.evaluate(async () => {
    const w = window as unknown as { axe: typeof axe };
    const result = await w.axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] },
      resultTypes: ['violations'],
    });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`);
  });
  assert.deepEqual(found, [], `axe found problems in ${what}`);
}

describe('device policies and screenshots in the admin UI', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let owner: Owner;
  let ann: { id: string };
  let ben: { id: string };
  let laptop: SimAgent;
  let png: Buffer;
  const agents: SimAgent[] = [];

  before(async () => {
    ({ server, browser, owner } = await openHousehold());
    ({ ann, ben } = await createAnnAndBen(owner));
    laptop = await pairFamilyLaptop({ server, owner }, agents, ann, ben);
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.setContent(DESKTOP_HTML);
    png = await page.screenshot({ type: 'png' });
    await context.close();
  });
  after(() => closeHousehold({ server, browser }, agents));

  const mappingOf = async (child: { id: string }, account: string): Promise<string> => {
    const user = (await owner.client.get(`/api/user/${child.id}`)).body;
    const mapping = user.mappings.find((m: { linux_username: string }) => m.linux_username === account);
    assert.ok(mapping, `${account} is mapped to the child`);
    return mapping.id;
  };

  /** The agent's upload, as the Linux agent sends it with the device's token. */
  async function upload(account: string, requestId: string | null): Promise<{ id: string }> {
    const res = await fetch(`${server.url}/api/agent/screenshots`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${laptop.secureToken}`,
        'content-type': 'image/png',
        'x-hearth-linux-username': account,
        ...(requestId ? { 'x-hearth-request-id': requestId } : {}),
      },
      body: new Uint8Array(png),
    });
    const text = await res.text();
    assert.equal(res.status, 201, text);
    return JSON.parse(text);
  }

  const applyPolicy = (frame: Frame, rules: Record<string, { status: string; reason?: string }>) => {
    const args = frame.args as { linux_username: string; version: number };
    laptop.send({
      type: 'policy_applied',
      kind: 'linux',
      linux_username: args.linux_username,
      version: args.version,
      rules,
    });
  };

  const ruleState = (panel: Locator, rule: string, state: string) =>
    panel.locator(`[data-testid="rule-state-${rule}"][data-state="${state}"]`);

  async function toggle(panel: Locator, label: string): Promise<void> {
    await panel.getByRole('switch', { name: label }).click();
  }

  test('restrictions: switched on and saved, they wait for the device, then show applied, not possible (with the agent’s reason) or failed, live', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await gotoLive(page, `${server.url}/devices/${laptop.systemId}`);
    await markPage(page);
    const panel = page.locator('[data-testid="restrictions-panel"][data-account="ann"]');
    await panel.getByRole('heading', { name: 'Restrictions for Ann' }).waitFor();
    await panel.getByTestId('restrictions-summary').getByText('Nothing is restricted yet').waitFor();
    // Ben has his own panel on the shared laptop, behind his tab.
    await page.getByRole('tab', { name: 'Ben' }).click();
    await page.locator('[data-testid="restrictions-panel"][data-account="ben"]').waitFor();
    await page.getByRole('tab', { name: 'Ann' }).click();
    assert.equal(await panel.getByTestId('restrictions-save').isDisabled(), true, 'nothing to save yet');

    for (const label of [
      'No installing or removing software',
      'No terminal',
      'Bluetooth off',
      'No private or incognito windows',
      'Only allowed browser extensions',
    ])
      await toggle(panel, label);
    await ruleState(panel, 'block_terminal', 'changed').waitFor();
    await ruleState(panel, 'youtube_restricted', 'unset').waitFor();

    // The allowed extensions: a wrong id is explained, a Web Store address gives its id.
    const extensions = panel.getByTestId('extension-list');
    await extensions.getByTestId('extension-input').fill('not-an-extension');
    await extensions.getByTestId('extension-add').click();
    await extensions.getByText('An extension ID is 32 letters from a to p').waitFor();
    await extensions
      .getByTestId('extension-input')
      .fill(`https://chromewebstore.google.com/detail/ublock-origin/${EXTENSION}`);
    await extensions.getByTestId('extension-add').click();
    await extensions.getByTestId('extension-item').getByText(EXTENSION).waitFor();

    const pushed = laptop.waitFor(isCommand('set_device_policy'), WITHIN_LIVE);
    await panel.getByTestId('restrictions-save').click();
    const command = await pushed;
    const args = command.args as { kind: string; linux_username: string; version: number; policy: any };
    assert.equal(args.kind, 'linux');
    assert.equal(args.linux_username, 'ann');
    assert.deepEqual(args.policy, {
      block_software_install: true,
      block_removable_media: false,
      block_account_changes: false,
      block_power_actions: false,
      block_terminal: true,
      disable_bluetooth: true,
      block_incognito: true,
      block_other_extensions: true,
      allowed_extension_ids: [EXTENSION],
      youtube_restricted: false,
    });
    // Until the device says so, the rules switched on wait for it; those left off say Off.
    await ruleState(panel, 'block_terminal', 'pending').waitFor();
    await ruleState(panel, 'disable_bluetooth', 'pending').waitFor();
    await ruleState(panel, 'youtube_restricted', 'unset').waitFor();
    await panel.getByTestId('restrictions-status').getByText('Waiting for the device').waitFor();
    await screenshot(page, 'device-policies-pending.png');
    await assertAccessible(page, 'the restrictions waiting for the device');

    const applied = Object.fromEntries(
      [
        'block_software_install',
        'block_removable_media',
        'block_account_changes',
        'block_power_actions',
        'block_terminal',
        'block_incognito',
        'block_other_extensions',
        'youtube_restricted',
      ].map((rule) => [rule, { status: 'applied' }]),
    );
    applyPolicy(command, { ...applied, disable_bluetooth: { status: 'unsupported', reason: NO_RFKILL } });
    const took = await timeUntil(ruleState(panel, 'block_terminal', 'applied'));
    console.log(`restrictions applied on the page ${took} ms after the agent's policy_applied`);
    await ruleState(panel, 'block_software_install', 'applied').waitFor();
    await ruleState(panel, 'disable_bluetooth', 'unsupported').waitFor();
    await panel.getByTestId('rule-reason-disable_bluetooth').getByText(NO_RFKILL).waitFor();
    await panel.getByTestId('restrictions-status').getByText('Applied').waitFor();
    await screenshot(page, 'device-policies-restrictions.png');

    // A rule the device fails shows why, and the panel says not everything was applied.
    const again = laptop.waitFor(isCommand('set_device_policy'), WITHIN_LIVE);
    await toggle(panel, 'YouTube restricted mode');
    await panel.getByTestId('restrictions-save').click();
    const second = await again;
    assert.equal((second.args as { version: number }).version, args.version + 1);
    await ruleState(panel, 'youtube_restricted', 'pending').waitFor();
    applyPolicy(second, {
      ...applied,
      disable_bluetooth: { status: 'unsupported', reason: NO_RFKILL },
      youtube_restricted: { status: 'failed', reason: READ_ONLY },
    });
    await ruleState(panel, 'youtube_restricted', 'failed').waitFor({ timeout: WITHIN_LIVE });
    await panel.getByTestId('rule-reason-youtube_restricted').getByText(READ_ONLY).waitFor();
    await panel.getByTestId('restrictions-status').getByText('Not all applied').waitFor();
    await assertAccessible(page, 'the restrictions with a failed and an impossible rule');
    await assertNotReloaded(page);

    // What the server keeps is what the panel showed.
    const stored = (
      await owner.client.get(`/api/mappings/${await mappingOf(ann, 'ann')}/linux-device-policy`)
    ).body;
    assert.equal(stored.block_terminal, true);
    assert.equal(stored.youtube_restricted, true);
    assert.deepEqual(stored.allowed_extension_ids, [EXTENSION]);
    assert.equal(stored.sync.rules.disable_bluetooth.reason, NO_RFKILL);
    await closePage(handle);
  });

  test('the child’s page links to the restrictions on the device page, with how many are on', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/children/${ann.id}`);
    const row = page.getByTestId('mapping-row').filter({ hasText: 'Living room laptop' });
    await row.getByText('6 restrictions on').waitFor();
    await row.getByTestId('restrictions-link').click();
    await page.waitForURL((url) => url.pathname === `/devices/${laptop.systemId}`);
    const panel = page.locator('[data-testid="restrictions-panel"][data-account="ann"]');
    await ruleState(panel, 'block_terminal', 'applied').waitFor();
    assert.ok(await panel.isVisible(), 'the panel is in view');

    // Ben's link opens the device page at Ben's tab.
    await page.goto(`${server.url}/children/${ben.id}`);
    const benRow = page.getByTestId('mapping-row').filter({ hasText: 'Living room laptop' });
    await benRow.getByText('none on').waitFor();
    await benRow.getByTestId('restrictions-link').click();
    await page.locator('[data-testid="restrictions-panel"][data-account="ben"]').waitFor();
    assert.equal(await page.getByRole('tab', { name: 'Ben' }).getAttribute('aria-selected'), 'true');
    await closePage(handle);
  });

  test('screenshots: Capture now waits for the picture, which opens full size and is deleted after a confirmation', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await gotoLive(page, `${server.url}/devices/${laptop.systemId}`);
    await markPage(page);
    const gallery = page.getByTestId('screenshots-gallery');
    await gallery.getByTestId('screenshots-note').getByText('Use it sparingly').waitFor();
    await gallery.getByTestId('screenshots-none').waitFor();

    // The automatic interval, per account, saved at once.
    const annRow = gallery.locator('[data-testid="screenshot-account"][data-account="ann"]');
    await annRow.getByTestId('screenshot-interval').selectOption('30');
    await page.getByText('Hearth takes a screenshot of Ann (ann) every 30 min.').waitFor();
    const settings = (
      await owner.client.get(`/api/mappings/${await mappingOf(ann, 'ann')}/approval-settings`)
    ).body;
    assert.equal(settings.screenshot_interval_minutes, 30);

    const asked = laptop.waitFor(isCommand('capture_screenshot'), WITHIN_LIVE);
    await annRow.getByTestId('screenshot-capture').click();
    const capture = await asked;
    const requestId = (capture.args as { request_id: string; linux_username: string }).request_id;
    assert.equal((capture.args as { linux_username: string }).linux_username, 'ann');
    await annRow.locator('[data-testid="screenshot-capture-state"] [data-state="waiting"]').waitFor();
    assert.equal(await annRow.getByTestId('screenshot-capture').isDisabled(), true, 'one capture at a time');

    const uploaded = await upload('ann', requestId);
    const item = gallery.getByTestId(`screenshot-item-${uploaded.id}`);
    const took = await timeUntil(item);
    console.log(`the screenshot showed in the gallery ${took} ms after its upload`);
    await annRow.locator('[data-testid="screenshot-capture-state"] [data-state="done"]').waitFor();
    await item.getByText('New').waitFor();
    await item.getByText('Ann (ann)').waitFor();
    const thumb = item.locator('img');
    assert.equal(await thumb.getAttribute('loading'), 'lazy');
    await page.waitForFunction(
      (el) => (el as HTMLImageElement).naturalWidth > 0,
      await thumb.elementHandle(),
    );
    await assertNotReloaded(page);
    await screenshot(page, 'device-policies-screenshots.png');

    // Full size.
    await item.getByTestId('screenshot-open').click();
    const view = page.getByRole('dialog');
    const full = view.getByTestId('screenshot-full');
    await full.waitFor();
    await page.waitForFunction(
      (el) => (el as HTMLImageElement).naturalWidth === 1280,
      await full.elementHandle(),
    );
    await view.getByText('1280 × 800').waitFor();
    await dialogScreenshot(page, 'device-policies-screenshot-view.png');
    await assertAccessible(page, 'the full-size screenshot');

    // Delete asks first; Cancel keeps it.
    await view.getByTestId('screenshot-delete').click();
    const confirm = page.getByRole('dialog', { name: 'Delete this screenshot?' });
    await confirm.getByText('is deleted from Hearth for good').waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    await item.waitFor();
    await item.getByTestId('screenshot-delete').click();
    await confirm.getByRole('button', { name: 'Delete screenshot' }).click();
    await item.waitFor({ state: 'detached' });
    await gallery.getByTestId('screenshots-none').waitFor();
    const image = await owner.client.get(`/api/screenshots/${uploaded.id}/image`);
    assert.equal(image.status, 404, 'the deleted image is gone');
    await closePage(handle);
  });

  test('a capture asked while the device is offline waits in its queue and arrives after it reconnects', async () => {
    await laptop.stop();
    await waitForOffline(owner, laptop.systemId);
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await gotoLive(page, `${server.url}/devices/${laptop.systemId}`);
    const benRow = page.locator('[data-testid="screenshot-account"][data-account="ben"]');
    await benRow.getByTestId('screenshot-capture').click();
    await benRow
      .getByTestId('screenshot-capture-state')
      .getByText('Living room laptop is offline; it takes the picture when it reconnects.')
      .waitFor();

    const delivered = laptop.waitFor(isCommand('capture_screenshot'), WITHIN_LIVE);
    await laptop.connect();
    const capture = await delivered;
    const args = capture.args as { linux_username: string; request_id: string };
    assert.equal(args.linux_username, 'ben');
    const uploaded = await upload('ben', args.request_id);
    await page
      .getByTestId(`screenshot-item-${uploaded.id}`)
      .getByText('Ben (ben)')
      .waitFor({ timeout: WITHIN_LIVE });
    await benRow.locator('[data-testid="screenshot-capture-state"] [data-state="done"]').waitFor();
    await closePage(handle);
  });

  test('a member parent who may only look at Ann gets no restrictions or screenshots; one who manages Ann gets only Ann’s', async () => {
    const viewer = await addParent(server, owner, 'member', [
      { managed_user_id: ann.id, can_view: true, can_manage_policies: false },
    ]);
    const refused = await viewer.request(
      'PUT',
      `/api/mappings/${await mappingOf(ann, 'ann')}/linux-device-policy`,
      {
        json: {
          block_software_install: false,
          block_removable_media: false,
          block_account_changes: false,
          block_power_actions: false,
          block_terminal: false,
          disable_bluetooth: false,
          block_incognito: false,
          block_other_extensions: false,
          allowed_extension_ids: [],
          youtube_restricted: false,
        },
      },
    );
    assert.equal(refused.status, 403);
    const seen = await openPage(browser, server, { as: viewer });
    await seen.page.goto(`${server.url}/devices/${laptop.systemId}`);
    await seen.page
      .getByTestId('policies-not-allowed')
      .getByText('parents who may manage Ann’s rules')
      .waitFor();
    assert.equal(await seen.page.getByTestId('restrictions-panel').count(), 0);
    assert.equal(await seen.page.getByTestId('screenshots-gallery').count(), 0);
    assert.equal(await seen.page.getByRole('switch').count(), 0);
    await seen.page.goto(`${server.url}/children/${ann.id}`);
    await seen.page.getByTestId('mapping-row').first().waitFor();
    assert.equal(await seen.page.getByTestId('restrictions-link').count(), 0);
    await closePage(seen);

    const manager = await addParent(server, owner, 'member', [
      { managed_user_id: ann.id, can_view: true, can_manage_policies: true },
      { managed_user_id: ben.id, can_view: true, can_manage_policies: false },
    ]);
    const managing = await openPage(browser, server, { as: manager });
    await managing.page.goto(`${server.url}/devices/${laptop.systemId}`);
    await managing.page.locator('[data-testid="restrictions-panel"][data-account="ann"]').waitFor();
    assert.equal(await managing.page.getByTestId('restrictions-panel').count(), 1);
    const gallery = managing.page.getByTestId('screenshots-gallery');
    await gallery.locator('[data-testid="screenshot-account"][data-account="ann"]').waitFor();
    assert.equal(await gallery.getByTestId('screenshot-capture').count(), 1, 'a capture button for Ann only');
    await managing.page.getByTestId('policies-not-allowed').getByText('Ben').waitFor();
    await closePage(managing);
  });

  test('an Android phone shows its phone-wide policy and the child’s, saved and applied through the agent', async () => {
    const phone = await pairAgent(
      { server, owner },
      agents,
      { hostname: 'pixel-7', platform: 'android', linuxUsers: [{ username: 'ann', display_name: 'Ann' }] },
      'Ann’s phone',
      [['ann', ann]],
    );
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await gotoLive(page, `${server.url}/devices/${phone.systemId}`);
    const wide = page.getByRole('region', { name: 'Phone-wide policy' });
    const annPolicy = page.getByRole('region', { name: 'Policy for Ann' });
    await annPolicy.waitFor();
    assert.equal(await page.getByTestId('restrictions-panel').count(), 0, 'no Linux restrictions on a phone');
    assert.equal(await page.getByTestId('screenshots-gallery').count(), 0, 'no screenshots on a phone');

    await wide.getByRole('switch', { name: 'No factory reset' }).click();
    await wide.getByRole('combobox', { name: 'Location' }).selectOption('on');
    const pushed = phone.waitFor(isCommand('set_device_policy'), WITHIN_LIVE);
    await wide.getByRole('button', { name: 'Save policy' }).click();
    const command = await pushed;
    const args = command.args as { kind: string; linux_username?: string; version: number; policy: any };
    assert.equal(args.kind, 'android');
    assert.equal(args.linux_username, undefined, 'the phone-wide policy names no account');
    assert.equal(args.policy.factory_reset_disabled, true);
    assert.equal(args.policy.location_mode, 'on');
    await ruleState(wide, 'factory_reset_disabled', 'pending').waitFor();
    phone.send({
      type: 'policy_applied',
      kind: 'android',
      version: args.version,
      rules: { factory_reset_disabled: { status: 'applied' } },
    });
    await ruleState(wide, 'factory_reset_disabled', 'applied').waitFor({ timeout: WITHIN_LIVE });
    await closePage(handle);
  });

  test('the device page with restrictions and screenshots fits a phone', async () => {
    const shot = await upload('ann', null);
    const handle = await openPage(browser, server, { as: owner.client, viewport: PHONE });
    const { page } = handle;
    await page.goto(`${server.url}/devices/${laptop.systemId}`);
    const panel = page.locator('[data-testid="restrictions-panel"][data-account="ann"]');
    await ruleState(panel, 'block_terminal', 'applied').waitFor();
    const thumb = page.getByTestId(`screenshot-item-${shot.id}`).locator('img');
    await thumb.scrollIntoViewIfNeeded();
    await page.waitForFunction(
      (el) => (el as HTMLImageElement).naturalWidth > 0,
      await thumb.elementHandle(),
    );
    await assertFitsPhone(page);
    await screenshot(page, 'device-policies-phone.png');
    await page.getByTestId(`screenshot-item-${shot.id}`).getByTestId('screenshot-open').click();
    await page.getByRole('dialog').getByTestId('screenshot-full').waitFor();
    await assertFitsPhone(page);
    await dialogScreenshot(page, 'device-policies-screenshot-phone.png');
    await closePage(handle);
  });
});
