import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { createDevice, type TestServer } from '../../server/test/helpers.ts';
import {
  browserSkipReason,
  closeHousehold,
  closePage,
  type Owner,
  openHousehold,
  openPage,
  screenshot,
  waitForPath,
} from './support.ts';

const skip = browserSkipReason();

describe('children', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let owner: Owner;

  before(async () => {
    ({ server, browser, owner } = await openHousehold());
  });
  after(() => closeHousehold({ server, browser }));

  test('creates a child, sets the Hearth Space card and still sees it after a reload', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/children`);
    await page.getByText('No children yet').waitFor();

    const form = page.getByRole('form', { name: 'Add child' });
    await form.getByLabel('Name').fill('Ann');
    await form.getByRole('button', { name: 'Add child' }).click();
    await page.getByText('Ann was added.').waitFor();
    await form.getByLabel('Name').fill('Ben');
    await form.getByLabel('Age group').click();
    await page.getByRole('option', { name: 'Under 8' }).click();
    await form.getByRole('button', { name: 'Add child' }).click();
    await page.getByText('Ben was added.').waitFor();
    await page.getByTestId('child-row').filter({ hasText: 'Ben' }).getByText('Under 8').waitFor();
    await screenshot(page, 'children.png');

    await page.getByTestId('child-row').filter({ hasText: 'Ann' }).click();
    await page.getByRole('heading', { level: 1, name: 'Ann' }).waitFor();
    const card = page.getByRole('form', { name: 'Hearth Space card' });
    // The preview is the real Hearth Space page in a frame, not a picture of it.
    const frameElement = page.getByTestId('space-preview').locator('iframe');
    await frameElement.waitFor();
    const src = new URL((await frameElement.getAttribute('src')) ?? '', server.url);
    assert.equal(src.pathname, '/overlay/blockedv2.html');
    assert.equal(src.searchParams.get('reason'), 'locked');
    assert.equal(src.searchParams.get('context'), 'paused');
    const preview = page.frameLocator('[data-testid="space-preview"] iframe');
    await preview.locator('html[data-host="preview"][data-context="paused"]').waitFor({ state: 'attached' });
    await preview.locator('.brand-name').getByText('Hearth Space').waitFor();
    await preview.locator('[data-hearth="headline"]').getByText('Your parent paused this device').waitFor();
    assert.equal(await preview.locator('[data-hearth="preset"]').count(), 3);
    await page.getByText('Used 0 min today · no daily limit').waitFor();

    // Under 8 renames the space for the youngest children.
    await card.getByLabel('Age group').click();
    await page.getByRole('option', { name: 'Under 8' }).click();
    await preview.locator('html[data-tier="under8"]').waitFor({ state: 'attached' });
    await preview.locator('.brand-name').getByText('Cozy Corner').waitFor();

    await card.getByLabel('Age group').click();
    await page.getByRole('option', { name: 'Teen' }).click();
    await preview.locator('html[data-tier="teen"]').waitFor({ state: 'attached' });
    await preview.locator('.brand-name').getByText('Hearth Space').waitFor();
    await preview.locator('[data-hearth="message-input"]').waitFor();
    const note = 'Homework first, then games. Love, Mum';
    await card.getByLabel('Parent note').fill(note);
    await card.getByText(`${note.length} / 500 characters`).waitFor();
    await preview.locator('[data-hearth="note"]').getByText(note).waitFor();

    // The other screens a child may see, from the same page.
    await page.locator('input[aria-label="Preview screen"]').click();
    await page.getByRole('option', { name: 'Sleep' }).click();
    await preview.locator('html[data-reason="sleep"]').waitFor({ state: 'attached' });
    await preview.locator('[data-hearth="note"]').getByText(note).waitFor();
    await page.locator('input[aria-label="Preview screen"]').click();
    await page.getByRole('option', { name: 'Paused by a parent' }).click();
    await preview.locator('html[data-context="paused"]').waitFor({ state: 'attached' });

    await card.getByRole('button', { name: 'Save card' }).click();
    await page.getByText('Ann’s Hearth Space card is saved.').waitFor();

    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Ann' }).waitFor();
    assert.equal(await card.getByLabel('Age group').inputValue(), 'Teen');
    assert.equal(await card.getByLabel('Parent note').inputValue(), note);
    await preview.locator('[data-hearth="note"]').getByText(note).waitFor();

    const users = await owner.client.get('/api/users');
    const ann = users.body.items.find((u: { name: string }) => u.name === 'Ann');
    assert.equal(ann.overlay_age_tier, 'teen');
    assert.equal(ann.overlay_parent_note, note);

    // An empty note clears it.
    await card.getByLabel('Parent note').fill('');
    await card.getByText('0 / 500 characters').waitFor();
    await card.getByRole('button', { name: 'Save card' }).click();
    await page.getByText('Ann’s Hearth Space card is saved.').first().waitFor();
    const cleared = await owner.client.get(`/api/user/${ann.id}`);
    assert.equal(cleared.body.overlay_parent_note, null);
    assert.equal(cleared.body.overlay_age_tier, 'teen');
    await closePage(handle);
  });

  test('links a device account, refuses a duplicate and explains what a check finds', async () => {
    const child = (
      await owner.client.post('/api/user/create', {
        name: 'Cleo',
        overlay_age_tier: 'eight12',
        overlay_parent_note: 'Tablet time ends at seven. Sleep tight!',
      })
    ).body;
    const device = await createDevice(server, owner.householdId, {
      hostname: 'family-laptop',
      display_name: 'Family laptop',
      linux_users: JSON.stringify([{ username: 'someone-else' }]),
    });
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/children/${child.id}`);
    await page.getByRole('heading', { level: 1, name: 'Cleo' }).waitFor();
    await page.getByText('No devices yet').waitFor();

    // The device by its name; an account it never reported is allowed, with a warning.
    const form = page.getByRole('form', { name: 'Link a device' });
    await form
      .getByRole('combobox', { name: /^Device/ })
      .selectOption({ label: 'Family laptop (family-laptop)' });
    await form
      .getByRole('combobox', { name: /^Account/ })
      .selectOption({ label: 'Another account (type its name)…' });
    await form.getByLabel('Account name').fill('cleo');
    await form.getByTestId('unreported-warning').getByText('Family laptop has not reported').waitFor();
    await form.getByRole('button', { name: 'Link device' }).click();
    const row = page.getByTestId('mapping-row');
    await row.getByText('Family laptop').waitFor();
    await row.getByText('cleo', { exact: true }).waitFor();
    await row.getByText('Linux').waitFor();

    // What the check finds shows by itself, in words.
    await page.getByText('Some devices need attention').waitFor();
    await row.getByText('The device has not reported an account called cleo.').waitFor();
    await screenshot(page, 'child.png');

    // The same account on the same device again is a conflict, said in words.
    await form
      .getByRole('combobox', { name: /^Device/ })
      .selectOption({ label: 'Family laptop (family-laptop)' });
    await form
      .getByRole('combobox', { name: /^Account/ })
      .selectOption({ label: 'Another account (type its name)…' });
    await form.getByLabel('Account name').fill('cleo');
    await form.getByRole('button', { name: 'Link device' }).click();
    await form.getByText('This account on this device is already mapped to the child.').waitFor();

    const saved = await owner.client.get(`/api/user/${child.id}`);
    assert.equal(saved.body.mappings.length, 1);
    assert.equal(saved.body.mappings[0].system_id, device.system_id);
    assert.equal(saved.body.mappings[0].linux_username, 'cleo');
    await closePage(handle);
  });

  test('the dashboard shows a card per child with its devices', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/`);
    await page.getByRole('heading', { level: 1, name: 'The Rivera family' }).waitFor();
    const cleo = page.getByTestId('child-card').filter({ hasText: 'Cleo' });
    await cleo.getByText('1 device').waitFor();
    await cleo.getByText('8–12').waitFor();
    await page.getByTestId('child-card').filter({ hasText: 'Ann' }).getByText('Teen').waitFor();
    assert.equal(await page.getByTestId('child-card').count(), 3);

    await cleo.getByRole('link', { name: 'Open Cleo' }).click();
    await page.getByRole('heading', { level: 1, name: 'Cleo' }).waitFor();
    await closePage(handle);
  });

  test('a child that does not exist gets a friendly page', async () => {
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/children/no-such-child`);
    await page.getByText('We couldn’t find that child').waitFor();
    await page.getByRole('link', { name: 'Back to children' }).click();
    await waitForPath(page, '/children');
    await closePage(handle);
  });
});
