import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createDevice, type TestServer } from '../../server/test/helpers.ts';
import {
  assertFitsPhone,
  browserSkipReason,
  Client,
  closeHousehold,
  closePage,
  type Owner,
  openHousehold,
  openPage,
  PASSWORD,
  PHONE,
  waitForPath,
} from './support.ts';

const skip = browserSkipReason();

/** No validator wording anywhere on the page: every error is in plain words. */
async function assertNoRawValidatorText(page: Page): Promise<void> {
  const text = await page.locator('body').innerText();
  for (const raw of ['must match format', 'must match pattern', 'must NOT', 'must be equal to', 'body/']) {
    assert.ok(!text.includes(raw), `the page shows "${raw}":\n${text}`);
  }
}

describe('names, links and removal', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let owner: Owner;

  before(async () => {
    ({ server, browser, owner } = await openHousehold());
  });
  after(() => closeHousehold({ server, browser }));

  for (const [label, viewport] of [
    ['desktop', undefined],
    ['phone', PHONE],
  ] as const) {
    test(`links a child to a device from what it reported, shows problems in words, removes the link (${label})`, async () => {
      const child = (await owner.client.post('/api/user/create', { name: `Dora ${label}` })).body;
      const device = await createDevice(server, owner.householdId, {
        hostname: `den-pc-${label}`,
        display_name: `Den computer ${label}`,
        linux_users: JSON.stringify([{ username: 'dora', display_name: 'Dora' }, { username: 'guest' }]),
      });
      // Not offered: a pending device.
      await createDevice(server, owner.householdId, {
        hostname: `waiting-${label}`,
        status: 'pending',
        secure_token_hash: null,
      });
      const handle = await openPage(browser, server, { as: owner.client, viewport });
      const { page } = handle;
      await page.goto(`${server.url}/children/${child.id}`);
      await page.getByRole('heading', { level: 1, name: `Dora ${label}` }).waitFor();
      const form = page.getByRole('form', { name: 'Link a device' });
      const deviceSelect = form.getByRole('combobox', { name: /^Device/ });
      // The devices load after the page: wait for the approved one before reading the choices.
      await deviceSelect
        .locator('option', { hasText: `Den computer ${label} (den-pc-${label})` })
        .waitFor({ state: 'attached' });
      const options = await deviceSelect.locator('option').allInnerTexts();
      assert.ok(options.includes(`Den computer ${label} (den-pc-${label})`), options.join(' | '));
      assert.ok(!options.some((o) => o.includes(`waiting-${label}`)), 'a pending device is not offered');

      // Nothing chosen: plain words under each field.
      await form.getByRole('button', { name: 'Link device' }).click();
      await form.getByText('Choose the device.').waitFor();
      await form.getByText('Choose the account on the device.').waitFor();

      // A typed account the server refuses: the field says why, in words (server message, field detail).
      await deviceSelect.selectOption({ label: `Den computer ${label} (den-pc-${label})` });
      const accountSelect = form.getByRole('combobox', { name: /^Account/ });
      const accounts = await accountSelect.locator('option').allInnerTexts();
      assert.ok(accounts.includes('dora (Dora)') && accounts.includes('guest'), accounts.join(' | '));
      await accountSelect.selectOption({ label: 'Another account (type its name)…' });
      await form.getByLabel('Account name').fill('dora smith');
      await form.getByTestId('unreported-warning').waitFor();
      await form.getByRole('button', { name: 'Link device' }).click();
      await form.getByText('The account name must not contain spaces.').waitFor();
      await form.getByLabel('Account name').fill('d'.repeat(65));
      await form.getByRole('button', { name: 'Link device' }).click();
      await form.getByText('The account name must be at most 64 characters long.').waitFor();
      await assertNoRawValidatorText(page);

      // A reported account: chosen from the list.
      await accountSelect.selectOption({ label: 'dora (Dora)' });
      await form.getByRole('button', { name: 'Link device' }).click();
      const row = page.getByTestId('mapping-row').filter({ hasText: `Den computer ${label}` });
      await row.getByText('Ready').waitFor();
      const mapped = (await owner.client.get(`/api/user/${child.id}`)).body.mappings;
      assert.deepEqual(
        mapped.map((m: { system_id: string; linux_username: string }) => [m.system_id, m.linux_username]),
        [[device.system_id, 'dora']],
      );

      // Unenrolled: the problem is told next to the link, in words.
      assert.equal((await owner.client.post(`/api/device/${device.system_id}/unenroll`)).status, 200);
      await page.reload();
      await row.getByText('This device was unenrolled, so Hearth no longer looks after it.').waitFor();
      await page.getByText('Some devices need attention').waitFor();
      await page.getByText(`Dora ${label}`).first().waitFor();
      await page.getByText('0 devices').waitFor();
      if (viewport) await assertFitsPhone(page);

      // Remove the link, after a confirmation.
      await row.getByRole('button', { name: `Remove dora on Den computer ${label}` }).click();
      const dialog = page.getByRole('dialog', { name: `Remove dora on Den computer ${label}?` });
      await dialog.getByRole('button', { name: 'Remove link' }).click();
      await page.getByText('No devices yet').waitFor();
      assert.deepEqual((await owner.client.get(`/api/user/${child.id}`)).body.mappings, []);
      await assertNoRawValidatorText(page);
      await closePage(handle);
    });
  }

  test('renames a device: the new name shows on the child page and in alerts; removes it once unenrolled', async () => {
    const child = (await owner.client.post('/api/user/create', { name: 'Eli' })).body;
    const device = await createDevice(server, owner.householdId, {
      hostname: 'desktop-7f3k2',
      linux_users: JSON.stringify([{ username: 'eli' }]),
    });
    await owner.client.post(`/managed-users/${child.id}/mappings/add`, {
      system_id: device.system_id,
      linux_username: 'eli',
    });
    await server.services.alerts.agentEvent(
      { systemId: device.system_id, householdId: owner.householdId, linuxUsers: new Set(['eli']) },
      { type: 'alert_event', event_type: 'clock_tamper', linux_username: 'eli', detail: {} },
    );
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/devices/${device.system_id}`);
    await page.getByRole('heading', { level: 1, name: 'desktop-7f3k2' }).waitFor();

    await page.getByRole('button', { name: 'Rename' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rename desktop-7f3k2' });
    await dialog.getByLabel('Device name').fill('   ');
    await dialog.getByRole('button', { name: 'Save name' }).click();
    await dialog.getByText('Type a device name.').waitFor();
    await dialog.getByLabel('Device name').fill('  Eli’s desk  ');
    await dialog.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('heading', { level: 1, name: 'Eli’s desk' }).waitFor();
    assert.equal(
      (await owner.client.get(`/api/devices/${device.system_id}`)).body.display_name,
      'Eli’s desk',
    );

    await page.goto(`${server.url}/children/${child.id}`);
    await page.getByTestId('mapping-row').getByRole('link', { name: 'Eli’s desk' }).waitFor();
    await page.goto(`${server.url}/alerts`);
    await page.getByRole('link', { name: 'Eli’s desk' }).first().waitFor();
    assert.equal(
      await page.getByText('desktop-7f3k2').count(),
      0,
      'the hostname is not shown for the device',
    );

    // Removing needs it unenrolled first; then a confirmation removes it and its link.
    await page.goto(`${server.url}/devices/${device.system_id}`);
    assert.equal(await page.getByRole('button', { name: 'Remove device' }).count(), 0);
    assert.equal((await owner.client.post(`/api/device/${device.system_id}/unenroll`)).status, 200);
    await page.reload();
    await page.getByRole('button', { name: 'Remove device' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove Eli’s desk?' });
    await confirm.getByRole('button', { name: 'Remove device' }).click();
    await waitForPath(page, '/devices');
    assert.equal((await owner.client.get(`/api/devices/${device.system_id}`)).status, 404);
    assert.deepEqual((await owner.client.get(`/api/user/${child.id}`)).body.mappings, []);
    await closePage(handle);
  });

  for (const [label, viewport] of [
    ['desktop', undefined],
    ['phone', PHONE],
  ] as const) {
    test(`renames and removes a child, and removes a parent, each after a confirmation (${label})`, async () => {
      const child = (await owner.client.post('/api/user/create', { name: `Finn ${label}` })).body;
      const handle = await openPage(browser, server, { as: owner.client, viewport });
      const { page } = handle;
      await page.goto(`${server.url}/children/${child.id}`);
      await page.getByRole('heading', { level: 1, name: `Finn ${label}` }).waitFor();
      if (viewport) await assertFitsPhone(page);

      await page.getByRole('button', { name: 'Rename' }).click();
      const rename = page.getByRole('dialog', { name: `Rename Finn ${label}` });
      await rename.getByRole('textbox', { name: /^Name/ }).fill(`Finnegan ${label}`);
      await rename.getByRole('button', { name: 'Save name' }).click();
      await page.getByRole('heading', { level: 1, name: `Finnegan ${label}` }).waitFor();

      await page.getByRole('button', { name: 'Remove child' }).click();
      const remove = page.getByRole('dialog', { name: `Remove Finnegan ${label}?` });
      await remove.getByText('This cannot be undone.').waitFor();
      await remove.getByRole('button', { name: 'Cancel' }).click();
      assert.equal((await owner.client.get(`/api/user/${child.id}`)).status, 200);
      await page.getByRole('button', { name: 'Remove child' }).click();
      await remove.getByRole('button', { name: `Remove Finnegan ${label}` }).click();
      await waitForPath(page, '/children');
      assert.equal((await owner.client.get(`/api/user/${child.id}`)).status, 404);

      // A carer goes from Settings; they are signed out at once. Yourself: no Remove button.
      const username = `grandpa-${label}`;
      await owner.client.post('/api/household/parents', { username, password: PASSWORD, role: 'member' });
      const carer = new Client(server.url);
      assert.equal((await carer.signIn(username, PASSWORD)).status, 200);
      await page.goto(`${server.url}/settings`);
      const carerRow = page.getByTestId('parent-row').filter({ hasText: username });
      await carerRow.waitFor();
      assert.equal(
        await page
          .getByTestId('parent-row')
          .filter({ hasText: 'You' })
          .getByRole('button', { name: /^Remove/ })
          .count(),
        0,
      );
      if (viewport) await assertFitsPhone(page);
      await carerRow.getByRole('button', { name: `Remove ${username}` }).click();
      await page
        .getByRole('dialog', { name: `Remove ${username}?` })
        .getByRole('button', { name: `Remove ${username}` })
        .click();
      await carerRow.waitFor({ state: 'detached' });
      assert.equal((await carer.get('/api/session')).status, 401);
      await closePage(handle);
    });
  }

  test('renames a parent from Settings; a taken or spaced name is refused in words', async () => {
    const username = 'auntie-may';
    await owner.client.post('/api/household/parents', { username, password: PASSWORD, role: 'member' });
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/settings`);
    await page.getByRole('button', { name: `Change ${username}` }).click();
    const dialog = page.getByRole('dialog', { name: `Change ${username}` });
    const field = dialog.getByRole('textbox', { name: /^Username/ });
    await field.fill('Maria');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.getByText('That username is already taken.').waitFor();
    await field.fill('may smith');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.getByText('A username cannot contain spaces.').waitFor();
    await field.fill('aunt-may');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await page.getByTestId('parent-row').filter({ hasText: 'aunt-may' }).waitFor();
    assert.equal((await new Client(server.url).signIn('aunt-may', PASSWORD)).status, 200);
    await assertNoRawValidatorText(page);
    await closePage(handle);
  });
});
