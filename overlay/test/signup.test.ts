import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { hook, launch, openPage, overlayUrl, skipReason, text, waitForStatus } from './helpers.ts';

const SIGNUP_URL = 'https://accounts.example.com/signup?ref=home';

/**
 * A fake extension that answers like the real one: CHECK_REGISTRATION reports the parent's decision,
 * REQUEST_REGISTRATION creates a pending request. Tests flip `__approve()` to play the parent.
 */
async function fakeRegistration(page: Page, initial = { allowed: false, pending: false }): Promise<void> {
  await page.addInitScript((start) => {
    const w = window as any;
    w.__log = [];
    w.__state = { ...start };
    w.__approve = () => {
      w.__state = { allowed: true, pending: false };
    };
    w.chrome = {
      runtime: {
        sendMessage(message: any, callback: (r: unknown) => void) {
          w.__log.push(message);
          if (message.type === 'REQUEST_REGISTRATION') {
            w.__state = { allowed: false, pending: true };
            callback({ ok: true, status: 'pending' });
          } else if (message.type === 'CHECK_REGISTRATION') {
            callback({ ...w.__state });
          } else callback({ ok: true });
        },
      },
    };
  }, initial);
  // The sign-up page the child is sent back to; nothing leaves the machine.
  await page.route('https://accounts.example.com/**', (route) =>
    route.fulfill({
      status: 200,
      contentType: 'text/html',
      body: '<title>Sign up</title><h1>Create your account</h1>',
    }),
  );
}

const checks = (page: Page) =>
  page.evaluate(
    () => (window as any).__log.filter((m: any) => m.type === 'CHECK_REGISTRATION').length as number,
  );

const signupPage = (extra: Record<string, string> = {}) =>
  overlayUrl({ reason: 'signup', age: 'eight12', device: 'accounts.example.com', url: SIGNUP_URL, ...extra });

describe('Hearth Space sign-up mode', { skip: skipReason }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('shows the domain and the request button, and no preset or free-text field', async () => {
    const { page, close } = await openPage(browser);
    await fakeRegistration(page);
    await page.goto(signupPage());
    assert.match((await page.locator('.site').textContent()) ?? '', /accounts\.example\.com/);
    assert.match((await page.locator('.chip').textContent()) ?? '', /Website:\s*accounts\.example\.com/);
    assert.equal(await text(page, 'request-signup'), 'Request Sign-up Approval');
    assert.equal(await page.locator(hook('preset')).count(), 0);
    assert.equal(await page.locator(hook('message-input')).count(), 0);
    await close();
  });

  test('request, wait, poll every 10 s, and go back to the sign-up URL within 10 s of the approval', async () => {
    const { page, errors, close } = await openPage(browser);
    await page.clock.install();
    await fakeRegistration(page);
    await page.goto(signupPage());
    await page.waitForFunction(() => (window as any).__log.length === 1);
    assert.deepEqual(await page.evaluate(() => (window as any).__log), [
      { type: 'CHECK_REGISTRATION', domain: 'accounts.example.com' },
    ]);

    await page.locator(hook('request-signup')).click();
    assert.match(await waitForStatus(page, /Waiting for a parent/), /approve/);
    const log = await page.evaluate(() => (window as any).__log);
    assert.deepEqual(log[1], {
      type: 'REQUEST_REGISTRATION',
      domain: 'accounts.example.com',
      url: SIGNUP_URL,
    });
    assert.equal(await page.locator(hook('request-signup')).getAttribute('aria-disabled'), 'true');

    const before = await checks(page);
    await page.clock.fastForward(10_000);
    await page.waitForFunction(
      (n) => (window as any).__log.filter((m: any) => m.type === 'CHECK_REGISTRATION').length > n,
      before,
    );
    await page.clock.fastForward(10_000);
    assert.equal(await checks(page), before + 2, 'one check per 10 seconds');
    assert.equal(await text(page, 'status'), 'Waiting for a parent to approve…');

    // The parent approves; the next poll, at most 10 s later, takes the child back.
    await page.evaluate(() => (window as any).__approve());
    const navigation = page.waitForURL(SIGNUP_URL);
    await page.clock.fastForward(10_000);
    await navigation;
    assert.equal(await page.locator('h1').textContent(), 'Create your account');
    assert.deepEqual(errors, []);
    await close();
  });

  test('already pending at load: shows the waiting state straight away', async () => {
    const { page, close } = await openPage(browser);
    await fakeRegistration(page, { allowed: false, pending: true });
    await page.goto(signupPage({ age: 'under8' }));
    assert.equal(await waitForStatus(page, /Waiting/), 'Waiting for a parent to say yes…');
    assert.equal(await page.locator(hook('request-signup')).getAttribute('aria-disabled'), 'true');
    await close();
  });

  test('already allowed at load: goes back to the sign-up page at once', async () => {
    const { page, close } = await openPage(browser);
    await fakeRegistration(page, { allowed: true, pending: false });
    await page.goto(signupPage());
    await page.waitForURL(SIGNUP_URL);
    await close();
  });

  test('checks again when the window regains focus and when the tab becomes visible', async () => {
    const { page, close } = await openPage(browser);
    await page.clock.install();
    await fakeRegistration(page, { allowed: false, pending: true });
    await page.goto(signupPage());
    await waitForStatus(page, /Waiting/);
    const start = await checks(page);
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await page.waitForFunction((n) => (window as any).__log.length > n, start);
    assert.equal(await checks(page), start + 1, 'visibilitychange to visible re-checks');

    await page.evaluate(() => (window as any).__approve());
    const navigation = page.waitForURL(SIGNUP_URL);
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await navigation;
    await close();
  });

  test('a parent declining is said kindly, and the child may ask again', async () => {
    const { page, close } = await openPage(browser);
    await page.clock.install();
    await fakeRegistration(page, { allowed: false, pending: true });
    await page.goto(signupPage());
    await waitForStatus(page, /Waiting/);
    await page.evaluate(() => {
      (window as any).__state = { allowed: false, pending: false };
    });
    await page.clock.fastForward(10_000);
    await page.waitForFunction(
      () => !document.querySelector('[data-hearth="request-signup"]')?.hasAttribute('aria-disabled'),
    );
    assert.equal(
      await text(page, 'status'),
      'Your parent said no this time. You can ask again or talk to them.',
    );
    await close();
  });

  test('a sign-up held back because Hearth could not be asked says so, and still lets the child ask', async () => {
    const { page, close } = await openPage(browser);
    await fakeRegistration(page, { allowed: false, pending: false });
    await page.goto(
      overlayUrl({ reason: 'signup', age: 'teen', device: 'chat.example', context: 'unreachable' }),
    );
    const held = await page.waitForSelector('[data-hearth-context="unreachable"]');
    assert.match((await held.textContent()) ?? '', /can’t be reached/);
    assert.equal(
      await page.$eval('[data-hearth="request-signup"]', (b) => b.hasAttribute('aria-disabled')),
      false,
    );
    await page.goto(signupPage());
    assert.equal(await page.$('[data-hearth-context="unreachable"]'), null, 'only with the context');
    await close();
  });

  test('never follows a url that is not http(s)', async () => {
    const { page, close } = await openPage(browser);
    await fakeRegistration(page, { allowed: true, pending: false });
    const target = overlayUrl({
      reason: 'signup',
      age: 'teen',
      device: 'evil.example',
      url: 'javascript:alert(1)',
    });
    await page.goto(target);
    assert.equal(await waitForStatus(page, /Approved/), 'Approved! You can go back and sign up now.');
    await page.waitForTimeout(300);
    assert.equal(page.url(), target);
    const log = await page.evaluate(() => (window as any).__log);
    assert.deepEqual(log[0], { type: 'CHECK_REGISTRATION', domain: 'evil.example' });
    await close();
  });

  test('without a host the button explains that requests cannot be sent from here', async () => {
    const { page, close } = await openPage(browser);
    await page.goto(signupPage());
    await page.locator(hook('request-signup')).click();
    assert.equal(await waitForStatus(page, /can’t/), 'Sign-up requests can’t be sent from this screen.');
    await close();
  });
});
