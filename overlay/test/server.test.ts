import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestServer, type TestServer } from '../../server/test/helpers.ts';
import { hook, launch, openPage, overlayUrl, skipReason, text, waitForStatus } from './helpers.ts';

describe('Hearth Space served by the Hearth server', { skip: skipReason }, () => {
  let browser: Browser;
  let server: TestServer;
  before(async () => {
    browser = await launch();
    server = await startTestServer();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('GET /overlay/blockedv2.html works without a session and renders the page over http', async () => {
    const { page, errors, close } = await openPage(browser);
    const response = await page.goto(
      overlayUrl(
        { reason: 'locked', age: 'under8', device: 'Kitchen tablet', note: 'Snack time!' },
        `${server.url}/overlay/blockedv2.html`,
      ),
    );
    assert.equal(response?.status(), 200);
    assert.match(response?.headers()['content-type'] ?? '', /text\/html/);
    assert.equal(await text(page, 'headline'), 'All done for today!');
    assert.equal(await text(page, 'note'), 'Snack time!');
    assert.equal(await page.locator('.brand-name').textContent(), 'Cozy Corner');
    assert.equal(await page.evaluate(() => document.documentElement.dataset.host), 'preview');
    await page.locator(hook('preset')).first().click();
    await waitForStatus(page, /preview/);
    assert.deepEqual(errors, []);
    await close();
  });
});
