import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { type Frame, SimAgent, type SimAgentOptions } from '../../bench/src/simulator.ts';
import { addParent, enrollmentToken, type TestServer } from '../../server/test/helpers.ts';
import {
  assertFitsPhone,
  assertNotReloaded,
  browserSkipReason,
  closeHousehold,
  closePage,
  createAnnAndBen,
  eventually,
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

describe('devices', { skip }, () => {
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
  // The devices the tests share, in the order they arrive.
  let laptop: SimAgent;
  let study: SimAgent;
  let tablet: SimAgent;

  before(async () => {
    ({ server, browser, owner } = await openHousehold());
    token = await enrollmentToken(owner);
    ({ ann, ben } = await createAnnAndBen(owner));
  });
  after(() => closeHousehold({ server, browser }, agents));

  const map = async (child: { id: string }, systemId: string, account: string) => {
    const res = await owner.client.post(`/managed-users/${child.id}/mappings/add`, {
      system_id: systemId,
      linux_username: account,
    });
    assert.equal(res.status, 201);
  };

  test('a device asking to join appears without a reload; approving it with a name brings it online', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/devices`);
    await page.getByText('No devices yet').waitFor();
    await markPage(page);

    laptop = agent({
      hostname: 'family-laptop',
      linuxUsers: [{ username: 'ann', display_name: 'Ann' }, { username: 'ben' }],
    });
    const answer = (await laptop.connect()) as Frame;
    assert.deepEqual(answer, { type: 'pairing_status', status: 'pending' });

    const waiting = page.getByRole('region', { name: 'Waiting for approval' });
    const card = waiting.getByTestId('pending-device').filter({ hasText: 'family-laptop' });
    const appeared = await timeUntil(card);
    console.log(`# the pending device appeared after ${appeared} ms`);
    await card.getByText('ann (Ann), ben').waitFor();
    await card.getByText('Linux').waitFor();
    await card.getByText('Asked just now').waitFor();
    await assertNotReloaded(page);

    const approved = laptop.waitFor('pairing_approved');
    await card.getByRole('button', { name: 'Approve family-laptop' }).click();
    const dialog = page.getByRole('dialog', { name: 'Approve family-laptop?' });
    await dialog.getByLabel('Friendly name').fill('Living room laptop');
    await dialog.getByRole('button', { name: 'Approve device' }).click();
    const frame = await approved;
    assert.equal(frame.system_id, laptop.systemId);
    assert.match(String(frame.secure_token), /^[0-9a-f]{64}$/);

    const row = page
      .getByRole('region', { name: 'All devices' })
      .getByTestId('device-row')
      .filter({ hasText: 'Living room laptop' });
    await row.getByTestId('device-online').getByText('Online', { exact: true }).waitFor();
    await row.getByTestId('device-status').getByText('Approved').waitFor();
    await row.getByText('family-laptop').waitFor();
    await waiting.waitFor({ state: 'detached' });
    await dialog.waitFor({ state: 'detached' });
    await assertNotReloaded(page);

    const saved = await owner.client.get(`/api/devices/${laptop.systemId}`);
    assert.equal(saved.body.status, 'approved');
    assert.equal(saved.body.display_name, 'Living room laptop');
    assert.equal(saved.body.online, true);

    // The children mapped to it show on its row, without a reload either. No event announces a
    // mapping, so the page picks it up when the parent comes back to the tab (or within a minute).
    await map(ann, laptop.systemId, 'ann');
    await map(ben, laptop.systemId, 'ben');
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await timeUntil(row.getByText('Used by Ann and Ben'));
    await assertNotReloaded(page);
    await closePage(handle);
  });

  test('a stopped agent turns Offline at once, without a reload', async () => {
    study = agent({ hostname: 'study-pc', platform: 'windows', linuxUsers: [{ username: 'ann' }] });
    await study.connect();
    const approved = study.waitFor('pairing_approved');
    await owner.client.post(`/api/device/approve/${study.systemId}`, { display_name: 'Study PC' });
    await approved;
    await map(ann, study.systemId, 'ann');

    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/devices`);
    const row = page.getByTestId('device-row').filter({ hasText: 'Study PC' });
    await row.getByTestId('device-online').getByText('Online', { exact: true }).waitFor();
    await row.getByText('Windows').waitFor();
    await markPage(page);

    await study.stop();
    const offline = await timeUntil(row.getByTestId('device-online').getByText('Offline', { exact: true }));
    console.log(`# the stopped device showed as offline after ${offline} ms`);
    const lastSeen = row.getByTestId('last-seen');
    await lastSeen.getByText('Last seen just now').waitFor();
    // The exact time is one hover away.
    const exact = await lastSeen.locator('time').getAttribute('title');
    assert.match(exact ?? '', /\d{4}/);
    await assertNotReloaded(page);

    // A tablet asks to join too: one waiting, one approved online, one approved offline.
    tablet = agent({ hostname: 'ann-tablet', platform: 'android', linuxUsers: [{ username: 'ann' }] });
    await tablet.connect();
    await timeUntil(page.getByTestId('pending-device').filter({ hasText: 'ann-tablet' }));
    await page.getByText('1 device online').waitFor();
    await screenshot(page, 'devices.png');
    await closePage(handle);

    const phone = await openPage(browser, server, { as: owner.client, viewport: PHONE });
    await phone.page.goto(`${server.url}/devices`);
    await phone.page.getByTestId('pending-device').filter({ hasText: 'ann-tablet' }).waitFor();
    await phone.page.getByTestId('device-row').filter({ hasText: 'Study PC' }).waitFor();
    await assertFitsPhone(phone.page);
    await screenshot(phone.page, 'devices-phone.png');
    await closePage(phone);
  });

  test('rejecting a device closes its connection with 4403', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/devices`);
    const card = page.getByTestId('pending-device').filter({ hasText: 'ann-tablet' });
    await card.getByRole('button', { name: 'Reject ann-tablet' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reject ann-tablet?' });
    // Cancel leaves it waiting.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    assert.equal(tablet.state, 'pending');

    await card.getByRole('button', { name: 'Reject ann-tablet' }).click();
    await dialog.getByRole('button', { name: 'Reject device' }).click();
    const closed = await tablet.waitForClose();
    assert.equal(closed.code, 4403);
    assert.ok(
      tablet.frames.some((f) => f.type === 'pairing_status' && f.status === 'rejected'),
      'the agent was told it is rejected',
    );
    await page.getByRole('region', { name: 'Waiting for approval' }).waitFor({ state: 'detached' });
    const row = page.getByTestId('device-row').filter({ hasText: 'ann-tablet' });
    await row.getByTestId('device-status').getByText('Rejected').waitFor();
    await row.getByTestId('device-online').getByText('Offline', { exact: true }).waitFor();
    assert.equal((await owner.client.get(`/api/devices/${tablet.systemId}`)).body.status, 'rejected');
    await closePage(handle);
  });

  test('Pause now on a device pauses the child on all their devices through the agent; while it is offline the pause waits for it', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/devices`);
    await page.getByTestId('device-row').filter({ hasText: 'Living room laptop' }).click();
    await waitForPath(page, `/devices/${laptop.systemId}`);
    await page.getByRole('heading', { level: 1, name: 'Living room laptop' }).waitFor();
    const nav = page.getByRole('navigation').getByRole('link', { name: 'Devices' });
    assert.equal(await nav.getAttribute('aria-current'), 'page');
    assert.equal(await page.title(), 'Living room laptop · Hearth');

    const details = page.getByTestId('device-details');
    await details.getByText('family-laptop').waitFor();
    await details.getByText('0.57.0').waitFor();
    await details.getByText('ann (Ann), ben').waitFor();
    await details.getByText('Online now').waitFor();
    assert.equal(await page.getByRole('textbox', { name: 'Device ID' }).inputValue(), laptop.systemId);

    // The manual pause is the child's pause (DESIGN §10): the device gets the child's time policy,
    // paused until resumed, and the child's state says so.
    const pausedPolicy = (account: string, paused: boolean) => (f: Frame) =>
      isCommand('set_time_policy')(f) &&
      (f.args as Record<string, unknown>).linux_username === account &&
      ((f.args as Record<string, unknown>).paused_until != null) === paused;
    const annRow = page.getByTestId('device-account').filter({ hasText: 'Ann' });
    const benRow = page.getByTestId('device-account').filter({ hasText: 'Ben' });
    const show = laptop.waitFor(pausedPolicy('ann', true));
    await annRow.getByRole('button', { name: 'Pause now for Ann' }).click();
    assert.equal(((await show).args as Record<string, unknown>).paused_until, 'indefinite');
    await annRow
      .getByTestId('pause-result')
      .getByText('Ann is paused on all devices until you resume.')
      .waitFor();
    await annRow.getByTestId('time-state').getByText('Paused').waitFor();
    assert.equal((await owner.client.get(`/api/user/${ann.id}/usage`)).body.state, 'paused');
    // The laptop acknowledged the policy (the simulator answers every command with success), and
    // the account's sync badge says so.
    await annRow.getByTestId('sync-status').getByText('Synced').waitFor();

    const dismiss = laptop.waitFor(pausedPolicy('ann', false));
    await annRow.getByRole('button', { name: 'Resume Ann' }).click();
    await dismiss;
    await annRow.getByTestId('pause-result').getByText('Ann can use their devices again.').waitFor();

    // Each child's button pauses that child.
    const showBen = laptop.waitFor(pausedPolicy('ben', true));
    await benRow.getByRole('button', { name: 'Pause now for Ben' }).click();
    await showBen;
    await benRow.getByTestId('time-state').getByText('Paused').waitFor();
    assert.notEqual((await owner.client.get(`/api/user/${ann.id}/usage`)).body.state, 'paused');
    await screenshot(page, 'device.png');
    await benRow.getByRole('button', { name: 'Resume Ben' }).click();
    await benRow.getByRole('button', { name: 'Pause now for Ben' }).waitFor();

    await markPage(page);
    await laptop.stop();
    await timeUntil(
      page.getByRole('main').getByTestId('device-online').getByText('Offline', { exact: true }),
    );
    await details.getByText(/^Offline, last seen just now$/).waitFor();
    await assertNotReloaded(page);
    await annRow.getByRole('button', { name: 'Pause now for Ann' }).click();
    await annRow.getByTestId('time-state').getByText('Paused').waitFor();

    // The queued pause reaches the laptop when it comes back with its token.
    laptop = agent({
      systemId: laptop.systemId,
      secureToken: laptop.secureToken,
      hostname: 'family-laptop',
      linuxUsers: [{ username: 'ann', display_name: 'Ann' }, { username: 'ben' }],
    });
    const queued = laptop.waitFor(pausedPolicy('ann', true));
    await laptop.connect();
    await queued;
    await timeUntil(page.getByRole('main').getByTestId('device-online').getByText('Online', { exact: true }));
    await annRow.getByRole('button', { name: 'Resume Ann' }).click();
    await annRow.getByRole('button', { name: 'Pause now for Ann' }).waitFor();
    await closePage(handle);
  });

  test('Clear clock-tamper lock reaches the agent, marks the clock alert read and says when it waits', async () => {
    const unreadClock = async () =>
      (
        await owner.client.get(
          `/api/alerts?kind=clock_tamper&system_id=${laptop.systemId}&unacknowledged=true&limit=50`,
        )
      ).body.items.length as number;
    laptop.send({
      type: 'alert_event',
      event_type: 'clock_tamper',
      linux_username: 'ann',
      detail: { skew_seconds: 7200 },
    });
    await eventually(unreadClock, (n) => n > 0, 'the clock alert stored');
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/devices/${laptop.systemId}`);
    const card = page.getByRole('region', { name: 'Clock lock' });
    await card.getByTestId('clock-alert').getByText('The clock was changed').waitFor();

    const cleared = laptop.waitFor(isCommand('clear_clock_tamper'));
    await card.getByRole('button', { name: 'Clear clock-tamper lock' }).click();
    assert.deepEqual((await cleared).args, {});
    await card
      .getByTestId('clock-clear-result')
      .getByText('Sent to the device: the clock lock is cleared.')
      .waitFor();
    await card.getByTestId('clock-alert').waitFor({ state: 'detached' });
    assert.equal(await unreadClock(), 0);

    // Offline, the command waits for the device and the page says so.
    await laptop.stop();
    await timeUntil(
      page.getByRole('main').getByTestId('device-online').getByText('Offline', { exact: true }),
    );
    await card.getByRole('button', { name: 'Clear clock-tamper lock' }).click();
    await card
      .getByTestId('clock-clear-result')
      .getByText('The device is offline; the clock lock clears when it reconnects.')
      .waitFor();
    laptop = agent({
      systemId: laptop.systemId,
      secureToken: laptop.secureToken,
      hostname: 'family-laptop',
      linuxUsers: [{ username: 'ann', display_name: 'Ann' }, { username: 'ben' }],
    });
    const queued = laptop.waitFor(isCommand('clear_clock_tamper'));
    await laptop.connect();
    await queued;
    await closePage(handle);

    // A parent who may only look at Ann is told, in words, that they cannot clear it.
    const viewer = await addParent(server, owner, 'member', [
      { managed_user_id: ann.id, can_view: true, can_manage_policies: false },
    ]);
    const seen = await openPage(browser, server, { as: viewer });
    await seen.page.goto(`${server.url}/devices/${laptop.systemId}`);
    const viewerCard = seen.page.getByRole('region', { name: 'Clock lock' });
    await viewerCard.getByRole('button', { name: 'Clear clock-tamper lock' }).click();
    await viewerCard.getByText('The lock was not cleared').waitFor();
    assert.equal(await viewerCard.getByTestId('clock-clear-result').count(), 0);
    await closePage(seen);
  });

  test('unenrolling asks first, then the agent is told, disconnected with 4403 and shown as Unenrolled', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/devices/${laptop.systemId}`);
    await page.getByRole('heading', { level: 1, name: 'Living room laptop' }).waitFor();

    await page.getByRole('button', { name: 'Unenroll device' }).click();
    const dialog = page.getByRole('dialog', { name: 'Unenroll Living room laptop?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(laptop.state, 'authenticated');

    const told = laptop.waitFor(isCommand('unenroll'));
    await page.getByRole('button', { name: 'Unenroll device' }).click();
    await dialog.getByRole('button', { name: 'Unenroll', exact: true }).click();
    await told;
    const closed = await laptop.waitForClose();
    assert.equal(closed.code, 4403);

    await page.getByRole('main').getByTestId('device-status').getByText('Unenrolled').waitFor();
    await page.getByText('This device is unenrolled').waitFor();
    await page.getByRole('button', { name: 'Unenroll device' }).waitFor({ state: 'detached' });
    // Pausing no longer applies to it.
    assert.equal(await page.getByRole('button', { name: /^Pause now for / }).count(), 0);
    assert.equal((await owner.client.get(`/api/devices/${laptop.systemId}`)).body.status, 'unenrolled');
    await closePage(handle);
  });

  test('Add device shows the pairing QR code and the same enrollment token as the server', async () => {
    const config = (await owner.client.get('/api/pairing/config')).body;
    const handle = await openPage(browser, server, { as: owner.client });
    const { page, context } = handle;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await page.goto(`${server.url}/devices`);
    await page.getByRole('main').getByRole('link', { name: 'Add device' }).click();
    await waitForPath(page, '/devices/add');
    await page.getByRole('heading', { level: 1, name: 'Add a device' }).waitFor();
    const nav = page.getByRole('navigation').getByRole('link', { name: 'Devices' });
    assert.equal(await nav.getAttribute('aria-current'), 'page');

    const qr = page.getByRole('img', { name: 'Pairing QR code for The Rivera family' });
    assert.equal(await qr.getAttribute('src'), '/api/pairing/qr.png');
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('img[src="/api/pairing/qr.png"]');
      return !!img && img.complete && img.naturalWidth > 0;
    });
    assert.ok((await qr.evaluate((img: HTMLImageElement) => img.naturalWidth)) > 0);

    const tokenField = page.getByRole('textbox', { name: 'Enrollment token' });
    assert.equal(await tokenField.inputValue(), config.enrollment_token);
    assert.equal(await page.getByRole('textbox', { name: 'Server address' }).inputValue(), config.server_url);
    await page.getByRole('button', { name: 'Copy enrollment token' }).click();
    await page.getByText('Copied', { exact: true }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), config.enrollment_token);

    // No installer on this server: the page says so in the server's words.
    const msi = await owner.client.get('/api/pairing/windows/msi');
    assert.equal(msi.status, 404);
    const installer = page.getByTestId('download').filter({ hasText: 'Windows installer' });
    await installer.getByText('Not uploaded').waitFor();
    await installer.getByTestId('download-missing').getByText(msi.body.error.message).waitFor();
    assert.equal(await installer.getByRole('link').count(), 0);
    await page.mouse.move(0, 0);
    await page.getByText('Copied', { exact: true }).waitFor({ state: 'hidden' });
    await screenshot(page, 'add-device.png');

    await page.getByRole('tab', { name: 'Android (device owner)' }).click();
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('img[src="/api/pairing/provisioning/qr.png"]');
      return !!img && img.complete && img.naturalWidth > 0;
    });
    await page.getByRole('img', { name: 'Android set-up QR code for The Rivera family' }).waitFor();
    const apk = await owner.client.get('/api/pairing/provisioning/apk');
    assert.equal(apk.status, 404);
    const agentApk = page.getByTestId('download').filter({ hasText: 'Android agent (APK)' });
    await agentApk.getByTestId('download-missing').getByText(apk.body.error.message).waitFor();

    // Once an owner places the APK on the server, the page offers it.
    const artifacts = path.join(server.dataDir, 'artifacts');
    mkdirSync(artifacts, { recursive: true });
    writeFileSync(path.join(artifacts, 'hearth-agent.apk'), Buffer.alloc(4096, 7));
    await page.reload();
    await page.getByRole('tab', { name: 'Android (device owner)', selected: true }).waitFor();
    await page.getByText('The Android agent is uploaded').waitFor();
    const download = agentApk.getByRole('link', { name: 'Download Android agent (APK)' });
    assert.equal(await download.getAttribute('href'), '/api/pairing/provisioning/apk');
    await closePage(handle);

    const phone = await openPage(browser, server, { as: owner.client, viewport: PHONE });
    await phone.page.goto(`${server.url}/devices/add`);
    await phone.page.getByRole('textbox', { name: 'Enrollment token' }).waitFor();
    await assertFitsPhone(phone.page);
    await phone.page.goto(`${server.url}/devices/${study.systemId}`);
    await phone.page.getByRole('heading', { level: 1, name: 'Study PC' }).waitFor();
    await assertFitsPhone(phone.page);
    await closePage(phone);
  });

  test('a member parent cannot unenroll and is asked to fetch the owner to add a device', async () => {
    const member = await addParent(server, owner, 'member', [
      { managed_user_id: ann.id, can_view: true, can_manage_policies: true },
    ]);
    assert.equal((await member.get('/api/pairing/config')).status, 403);
    const handle = await openPage(browser, server, { as: member });
    const { page } = handle;
    await page.goto(`${server.url}/devices`);
    await page.getByTestId('device-row').filter({ hasText: 'Study PC' }).click();
    await page.getByRole('heading', { level: 1, name: 'Study PC' }).waitFor();
    await page
      .getByTestId('device-account')
      .filter({ hasText: 'Ann' })
      .getByRole('button', { name: 'Pause now for Ann' })
      .waitFor();
    assert.equal(await page.getByRole('button', { name: 'Unenroll device' }).count(), 0);
    assert.equal(await page.getByRole('heading', { name: 'Unenroll' }).count(), 0);

    await page.goto(`${server.url}/devices/add`);
    await page.getByText('Ask the household owner').waitFor();
    assert.equal(await page.getByRole('img', { name: /QR code/ }).count(), 0);
    await closePage(handle);
  });
});
