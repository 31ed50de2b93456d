import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import {
  axeViolations,
  launch,
  openPage,
  overlayUrl,
  REASONS,
  settle,
  skipReason,
  TIERS,
} from './helpers.ts';

describe('Hearth Space accessibility (axe-core)', { skip: skipReason }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    test(`no axe violations on any of the 15 reason × tier pages (${colorScheme})`, async () => {
      const { page, close } = await openPage(browser, { colorScheme });
      const found: string[] = [];
      for (const reason of REASONS) {
        for (const age of TIERS) {
          await page.goto(
            overlayUrl({
              reason,
              age,
              device: reason === 'signup' ? 'accounts.example.com' : 'Family laptop',
              note: 'Homework first, then games. Love you!',
              url: 'https://accounts.example.com/signup',
            }),
          );
          await settle(page);
          for (const v of await axeViolations(page))
            found.push(`${reason}/${age}: ${v.id} ${v.nodes.join(' | ')}`);
        }
      }
      assert.deepEqual(found, []);
      await close();
    });
  }

  test('no axe violations with a status message showing, on a phone, in German', async () => {
    const { page, close } = await openPage(browser, {
      viewport: { width: 390, height: 844 },
      locale: 'de-DE',
    });
    for (const age of TIERS) {
      await page.goto(overlayUrl({ reason: 'locked', age }));
      await settle(page);
      if (age === 'teen') {
        await page.locator('[data-hearth="send"]').click();
      } else {
        await page.locator('[data-hearth="preset"]').first().click();
      }
      await page.waitForFunction(() => document.querySelector('[data-hearth="status"]')?.textContent);
      assert.deepEqual(await axeViolations(page), [], age);
    }
    await close();
  });
});
