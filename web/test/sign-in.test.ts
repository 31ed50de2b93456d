import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestServer, type TestServer } from '../../server/test/helpers.ts';
import {
  assertBuilt,
  browserSkipReason,
  Client,
  closePage,
  createOwner,
  launchBrowser,
  openPage,
  PASSWORD,
  screenshot,
  waitForPath,
} from './support.ts';

const skip = browserSkipReason();
if (skip) console.log(`# skipping the admin UI browser tests: ${skip}`);

describe('first run and signing in', { skip }, () => {
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    assertBuilt();
    server = await startTestServer();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('first-run setup creates the household and lands on the dashboard', async () => {
    const handle = await openPage(browser, server);
    const { page } = handle;
    await page.goto(`${server.url}/`);
    await waitForPath(page, '/setup');
    await page.getByRole('heading', { name: 'Welcome to Hearth' }).waitFor();
    await screenshot(page, 'setup.png');

    await page.getByLabel('Household name').fill('The Rivera family');
    await page.getByLabel('Your username').fill('maria');
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('too short');
    await page.getByLabel('Confirm password').fill('too short');
    await page.getByRole('button', { name: 'Create household' }).click();
    await page.getByText('The password needs at least 12 characters.').waitFor();

    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
    await page.getByLabel('Confirm password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create household' }).click();
    await waitForPath(page, '/');
    await page.getByRole('heading', { level: 1, name: 'The Rivera family' }).waitFor();
    await page.getByText('Add your first child').first().waitFor();
    await page.getByText('maria', { exact: true }).first().waitFor();

    // The household exists on the server and the owner can sign in with what was typed.
    const client = new Client(server.url);
    const signed = await client.signIn('maria', PASSWORD);
    assert.equal(signed.status, 200);
    assert.equal(signed.body.household.name, 'The Rivera family');
    assert.equal(signed.body.role, 'owner');
    assert.equal((await client.get('/api/setup')).body.setup_required, false);
    await closePage(handle);
  });

  test('a wrong password shows the message, the right one signs in, and sign out returns to sign-in', async () => {
    const owner = await createOwner(server, 'sam', 'The Okafor household');
    const handle = await openPage(browser, server);
    const { page } = handle;
    await page.goto(`${server.url}/children`);
    await waitForPath(page, '/login');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await screenshot(page, 'login.png');

    await page.getByLabel('Username').fill(owner.username);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('not the right password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('The username or password is not right.').waitFor();
    await waitForPath(page, '/login');

    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Back to the page that asked for sign-in.
    await waitForPath(page, '/children');
    await page.getByRole('heading', { level: 1, name: 'Children' }).waitFor();
    await page.getByText('The Okafor household').waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await waitForPath(page, '/login');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // Signed out for real: the UI's own session is gone from the server.
    const probe = await page.evaluate(async () => (await fetch('/api/session')).status);
    assert.equal(probe, 401);
    await page.goto(`${server.url}/settings`);
    await waitForPath(page, '/login');
    await closePage(handle);
  });

  test('a session that ends on the server sends the browser back to sign-in', async () => {
    const owner = await createOwner(server, 'lee', 'The Lee home');
    const handle = await openPage(browser, server, { as: owner.client });
    const { page } = handle;
    await page.goto(`${server.url}/`);
    await page.getByRole('heading', { level: 1, name: 'The Lee home' }).waitFor();

    assert.equal((await owner.client.delete('/api/session')).status, 200);
    // The next request finds the session gone: this click's, unless the live updates asked first.
    await page
      .getByRole('link', { name: 'Children' })
      .click({ timeout: 3000 })
      .catch(() => {});
    await waitForPath(page, '/login');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await closePage(handle);
  });

  test('too many wrong passwords ask the parent to wait', async () => {
    const owner = await createOwner(server, 'kim', 'The Kim family');
    const attacker = new Client(server.url);
    for (let i = 0; i < 10; i++) await attacker.signIn(owner.username, 'wrong password again');

    const handle = await openPage(browser, server);
    const { page } = handle;
    await page.goto(`${server.url}/login`);
    await page.getByLabel('Username').fill(owner.username);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('Please wait a moment').waitFor();
    await alert.getByText('Too many failed sign-ins; please wait a minute and try again.').waitFor();
    await alert.getByText(/Try again in about \d+ seconds/).waitFor();
    await closePage(handle);
  });
});

describe('open sign-up', { skip }, () => {
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    assertBuilt();
    server = await startTestServer(undefined, { HEARTH_OPEN_SIGNUP: 'true' });
    browser = await launchBrowser();
    await createOwner(server, 'first', 'The first household');
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('the sign-in page links to sign-up, which creates a new household', async () => {
    const handle = await openPage(browser, server);
    const { page } = handle;
    await page.goto(`${server.url}/login`);
    await page.getByRole('link', { name: 'Create a household' }).click();
    await waitForPath(page, '/signup');
    await page.getByLabel('Household name').fill('The Novak home');
    await page.getByLabel('Your username').fill('petra');
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
    await page.getByLabel('Confirm password').fill(`${PASSWORD}!`);
    await page.getByRole('button', { name: 'Create household' }).click();
    await page.getByText('The two passwords are not the same.').waitFor();
    await page.getByLabel('Confirm password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create household' }).click();
    await waitForPath(page, '/');
    await page.getByRole('heading', { level: 1, name: 'The Novak home' }).waitFor();

    const client = new Client(server.url);
    const signed = await client.signIn('petra', PASSWORD);
    assert.equal(signed.status, 200);
    assert.equal(signed.body.household.name, 'The Novak home');
    await closePage(handle);
  });
});
