import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { hook, launch, openPage, overlayUrl, skipReason, text, waitForStatus } from './helpers.ts';

/** A stand-in extension runtime that records every message and answers with `reply`. */
async function fakeExtension(page: Page, reply: unknown = { ok: true }): Promise<void> {
  await page.addInitScript((answer) => {
    const w = window as any;
    w.__sent = [];
    w.chrome = {
      runtime: {
        sendMessage(message: unknown, callback: (r: unknown) => void) {
          w.__sent.push(message);
          setTimeout(() => callback(answer), 20);
        },
      },
    };
  }, reply);
}

const sent = (page: Page) => page.evaluate(() => (window as any).__sent as unknown[]);

describe('Hearth Space: talking to the parent', { skip: skipReason }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('under8 and eight12 get preset buttons and no text field; teen gets the text field and no presets', async () => {
    const { page, close } = await openPage(browser);
    for (const age of ['under8', 'eight12']) {
      for (const reason of ['sleep', 'filtered', 'locked', 'clock_tamper']) {
        await page.goto(overlayUrl({ reason, age }));
        assert.ok((await page.locator(hook('preset')).count()) >= 2, `${reason}/${age}`);
        assert.equal(await page.locator(hook('message-input')).count(), 0);
        assert.equal(await page.locator(hook('send')).count(), 0);
      }
    }
    await page.goto(overlayUrl({ reason: 'sleep', age: 'under8' }));
    const under8 = await page.locator(hook('preset')).allTextContents();
    await page.goto(overlayUrl({ reason: 'filtered', age: 'under8' }));
    assert.notDeepEqual(
      await page.locator(hook('preset')).allTextContents(),
      under8,
      'presets suit the reason',
    );
    await page.goto(overlayUrl({ reason: 'locked', age: 'teen' }));
    assert.equal(await page.locator(hook('preset')).count(), 0);
    assert.equal(await page.locator(hook('message-input')).count(), 1);
    assert.equal(await page.locator(hook('send')).count(), 1);
    assert.equal(
      await page.locator(hook('message-input')).getAttribute('id'),
      await page.locator('label.field-label').getAttribute('for'),
    );
    await close();
  });

  test('a preset sends at once with one tap, and the status confirms it', async () => {
    const { page, close } = await openPage(browser);
    await fakeExtension(page);
    await page.goto(overlayUrl({ reason: 'locked', age: 'eight12' }));
    const first = page.locator(hook('preset')).first();
    const label = ((await first.locator('span').first().textContent()) ?? '').trim();
    await first.click();
    assert.match(await waitForStatus(page, /Sent!/), /Your parent will see your message/);
    assert.deepEqual(await sent(page), [{ type: 'ACCESS_REQUEST', reason: 'locked', message: label }]);
    assert.equal(await first.getAttribute('data-sent'), 'true');
    assert.equal(await first.getAttribute('aria-disabled'), 'true');
    await first.click({ force: true });
    await page.waitForTimeout(100);
    assert.equal((await sent(page)).length, 1, 'the same preset is not sent twice');
    await close();
  });

  test('the free-text field counts characters, refuses empty and over-long messages, and sends the trimmed text', async () => {
    const { page, close } = await openPage(browser);
    await fakeExtension(page);
    await page.goto(overlayUrl({ reason: 'filtered', age: 'teen' }));
    const input = page.locator(hook('message-input'));
    assert.equal(await page.locator('.counter').textContent(), '0 / 500');

    await page.locator(hook('send')).click();
    assert.equal(await text(page, 'status'), 'Please write a message first.');
    await input.fill('    ');
    await page.locator(hook('send')).click();
    assert.equal(await text(page, 'status'), 'Please write a message first.');

    await input.fill('x'.repeat(501));
    assert.equal(await page.locator('.counter').textContent(), '501 / 500: too long');
    assert.equal(await input.getAttribute('aria-invalid'), 'true');
    await page.locator(hook('send')).click();
    assert.equal(await text(page, 'status'), 'Please keep your message to 500 characters.');
    assert.deepEqual(await sent(page), []);

    const exactly500 = `  ${'y'.repeat(500)}  `;
    await input.fill(exactly500);
    assert.equal(await page.locator('.counter').textContent(), '500 / 500');
    await page.locator(hook('send')).click();
    await waitForStatus(page, /Message sent/);
    assert.deepEqual(await sent(page), [
      { type: 'ACCESS_REQUEST', reason: 'filtered', message: 'y'.repeat(500) },
    ]);
    assert.equal(await input.inputValue(), '', 'the field empties after a send');
    assert.equal(await page.locator('.counter').textContent(), '0 / 500');
    await close();
  });

  test('a failed send shows a friendly retry message and the child can try again', async () => {
    const { page, close } = await openPage(browser);
    await fakeExtension(page, { ok: false, error: 'agent_unreachable' });
    await page.goto(overlayUrl({ reason: 'sleep', age: 'under8' }));
    await page.locator(hook('preset')).first().click();
    assert.match(await waitForStatus(page, /try again/), /Oops/);
    assert.equal(await page.locator(hook('status')).getAttribute('role'), 'status');
    assert.equal(await page.locator(hook('preset')).first().getAttribute('data-sent'), null);
    await page.locator(hook('preset')).first().click();
    await page.waitForFunction(() => (window as any).__sent.length === 2);
    await close();
  });

  test('without a host the page says politely that messages cannot be sent from this preview', async () => {
    const { page, close } = await openPage(browser);
    await page.goto(overlayUrl({ reason: 'locked', age: 'teen' }));
    assert.equal(await page.evaluate(() => document.documentElement.dataset.host), 'preview');
    await page.locator(hook('message-input')).fill('Can I finish my essay?');
    await page.locator(hook('send')).click();
    assert.equal(await waitForStatus(page, /preview/), 'Messages can’t be sent from this preview.');
    await page.goto(overlayUrl({ reason: 'locked', age: 'eight12' }));
    await page.locator(hook('preset')).first().click();
    await waitForStatus(page, /preview/);
    await close();
  });

  test('keyboard only: Tab reaches the controls with a visible focus ring, Enter and Space send', async () => {
    const { page, close } = await openPage(browser);
    await fakeExtension(page);
    await page.goto(overlayUrl({ reason: 'locked', age: 'teen' }));
    await page.keyboard.press('Tab');
    assert.equal(
      await page.evaluate(() => document.activeElement?.getAttribute('data-hearth')),
      'message-input',
    );
    await page.keyboard.type('I need twenty minutes to finish my homework.');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-hearth')), 'send');
    const outline = await page.evaluate(
      () => getComputedStyle(document.activeElement as Element).outlineStyle,
    );
    assert.equal(outline, 'solid', 'focus is visible');
    await page.keyboard.press('Enter');
    await waitForStatus(page, /Message sent/);
    assert.deepEqual(await sent(page), [
      { type: 'ACCESS_REQUEST', reason: 'locked', message: 'I need twenty minutes to finish my homework.' },
    ]);
    // Ctrl+Enter sends from inside the field too.
    await page.locator(hook('message-input')).focus();
    await page.keyboard.type('And a glass of water.');
    await page.keyboard.press('Control+Enter');
    await page.waitForFunction(() => (window as any).__sent.length === 2);

    await page.goto(overlayUrl({ reason: 'sleep', age: 'under8' }));
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    const second = await page.evaluate(() => document.activeElement?.querySelector('span')?.textContent);
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-hearth')), 'preset');
    await page.keyboard.press('Space');
    await waitForStatus(page, /Sent!/);
    assert.deepEqual((await sent(page)).at(-1), { type: 'ACCESS_REQUEST', reason: 'sleep', message: second });
    assert.equal(
      await page.evaluate(() => document.activeElement?.getAttribute('data-hearth')),
      'preset',
      'focus stays on the button that was used',
    );
    await close();
  });
});
