import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { SimAgent } from '../../bench/src/simulator.ts';
import type { TestServer } from '../../server/test/helpers.ts';
import {
  assertFitsPhone,
  assertNotReloaded,
  browserSkipReason,
  closeHousehold,
  closePage,
  createAnnAndBen,
  gotoLive,
  markPage,
  type Owner,
  openHousehold,
  openPage,
  PHONE,
  pairAgent,
  screenshot,
  WITHIN_LIVE,
} from './support.ts';

const skip = browserSkipReason();

describe('the Linux agent in the admin UI', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let owner: Owner;
  let ann: { id: string };
  let ben: { id: string };
  const agents: SimAgent[] = [];

  before(async () => {
    ({ server, browser, owner } = await openHousehold());
    ({ ann, ben } = await createAnnAndBen(owner));
  });
  after(() => closeHousehold({ server, browser }, agents));

  for (const viewport of [undefined, PHONE]) {
    const width = viewport ? 'phone' : 'desktop';

    test(`Add device shows this server's install and enroll commands, each with a copy button (${width})`, async () => {
      const config = (await owner.client.get('/api/pairing/config')).body;
      const { version } = (await owner.client.get('/healthz')).body;
      // The agent is pointed at the address the QR carries, as the agent itself reads it.
      const serverUrl = config.ws_url.replace(/^ws/, 'http').replace(/\/ws$/, '');
      assert.equal(serverUrl, server.url);
      // A base64url token may start with a dash; the command then joins it to its option.
      const token = config.enrollment_token.startsWith('-')
        ? `--token=${config.enrollment_token}`
        : `--token ${config.enrollment_token}`;
      const enroll = `sudo hearth-agent enroll --server ${server.url} ${token}`;
      const handle = await openPage(browser, server, { as: owner.client, viewport });
      const { page, context } = handle;
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
      await page.goto(`${server.url}/devices/add`);
      const linux = page.getByRole('region', { name: 'Linux computer' });
      await linux.waitFor();

      const commands = linux.getByTestId('command');
      await commands.first().waitFor();
      assert.deepEqual(await commands.allTextContents(), [
        `sudo apt install ./hearth-agent_${version}_all.deb`,
        enroll,
        'sudo hearth-agent enroll --qr hearth-pairing.png',
      ]);
      assert.equal(await linux.getByTestId('copy-command').count(), 3);
      await linux.getByText('This server does not offer the package for download yet').waitFor();
      await linux.getByText('npm run package -w agent').waitFor();
      const save = linux.getByRole('link', { name: 'Save the QR code' });
      assert.equal(await save.getAttribute('href'), '/api/pairing/qr.png');
      assert.equal(await save.getAttribute('download'), 'hearth-pairing.png');

      await linux.getByRole('button', { name: 'Copy: 2. Pair it with this household' }).click();
      await page.getByText('Copied', { exact: true }).waitFor();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), enroll);
      // The page's other content stays: the QR code, the pairing details, the Android tab.
      await page.getByRole('img', { name: 'Pairing QR code for The Rivera family' }).waitFor();
      await page.getByRole('textbox', { name: 'Enrollment token' }).waitFor();
      await page.getByRole('tab', { name: 'Android (device owner)' }).waitFor();
      if (viewport) {
        await assertFitsPhone(page);
        await page.mouse.move(0, 0);
        await page.getByText('Copied', { exact: true }).waitFor({ state: 'hidden' });
        await screenshot(page, 'add-device-phone.png');
      }
      await closePage(handle);
    });
  }

  test('a token that starts with a dash is joined to its option, so the agent does not take it for one', async () => {
    await server.services.db.kysely
      .updateTable('household')
      .set({ enrollment_token: '-starts-with-a-dash_0123456789abcdef' })
      .where('id', '=', owner.householdId)
      .execute();
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/devices/add`);
    const linux = page.getByRole('region', { name: 'Linux computer' });
    await linux
      .getByText(
        `sudo hearth-agent enroll --server ${server.url} --token=-starts-with-a-dash_0123456789abcdef`,
      )
      .waitFor();
    await closePage(handle);
  });

  test('the device page shows the agent, its accounts and whether Hearth Space is showing, live', async () => {
    const laptop = await pairAgent(
      { server, owner },
      agents,
      {
        hostname: 'study-pc',
        agentVersion: '0.57.0',
        linuxUsers: [{ username: 'ann', display_name: 'Ann' }, { username: 'ben' }, { username: 'guest' }],
      },
      'Study computer',
      [
        ['ann', ann],
        ['ben', ben],
      ],
    );
    for (const viewport of [undefined, PHONE]) {
      const handle = await openPage(browser, server, { as: owner.client, viewport });
      const { page } = handle;
      await gotoLive(page, `${server.url}/devices/${laptop.systemId}`);
      const details = page.getByTestId('device-details');
      await details.getByText('0.57.0').waitFor();
      await details.getByText('ann (Ann), ben (Ben), guest').waitFor();
      await details.getByTestId('last-usage').getByText('None yet').waitFor();
      const state = page.getByTestId('overlay-state');
      // The desktop pass comes first: then the agent has not sent overlay_status yet; by the phone pass it has.
      await state
        .getByText(
          viewport
            ? 'Hearth Space is not showing on this device.'
            : 'has not said whether Hearth Space is showing',
        )
        .waitFor();
      await markPage(page);

      const since = new Date(Date.now() - 5 * 60_000).toISOString();
      laptop.send({
        type: 'overlay_status',
        overlays: [{ linux_username: 'ann', reason: 'locked', since }],
      });
      const entry = state.getByTestId('overlay-entry');
      await entry.waitFor({ timeout: WITHIN_LIVE });
      assert.match(
        await entry.innerText(),
        /^Hearth Space is showing for ann \(Ann\) \(locked\) since \d+ min ago$/,
      );
      await state.getByText('Showing', { exact: true }).waitFor();
      await assertNotReloaded(page);
      if (viewport) {
        await assertFitsPhone(page);
        await screenshot(page, 'device-phone.png');
      } else {
        await screenshot(page, 'device-hearth-space.png');
      }

      laptop.send({ type: 'overlay_status', overlays: [] });
      await state.getByText('Hearth Space is not showing on this device.').waitFor({ timeout: WITHIN_LIVE });
      await assertNotReloaded(page);
      await closePage(handle);
    }
  });
});
