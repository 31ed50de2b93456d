import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type BrowserContext, chromium, type Worker } from 'playwright-core';
import { bounded } from '../../server/test/helpers.ts';
import { CHROMIUM, ensureBuilt, hook, overlayDir, pageFile, skipReason, waitForStatus } from './helpers.ts';

/**
 * A real Manifest V3 extension in Chromium: the page runs at chrome-extension:// and talks to a background
 * service worker with chrome.runtime.sendMessage, as the Hearth extension will.
 */
describe('Hearth Space inside a real MV3 extension', { skip: skipReason }, () => {
  let context: BrowserContext;
  let worker: Worker;
  let id: string;
  const dirs: string[] = [];

  before(async () => {
    ensureBuilt();
    const ext = mkdtempSync(path.join(tmpdir(), 'hearth-ext-'));
    const profile = mkdtempSync(path.join(tmpdir(), 'hearth-profile-'));
    dirs.push(ext, profile);
    cpSync(path.join(overlayDir, 'dist', 'extension'), ext, { recursive: true });
    cpSync(pageFile, path.join(ext, 'inline.html'));
    writeFileSync(
      path.join(ext, 'manifest.json'),
      JSON.stringify({
        manifest_version: 3,
        name: 'Hearth test extension',
        version: '0.57.0',
        background: { service_worker: 'background.js' },
      }),
    );
    writeFileSync(
      path.join(ext, 'background.js'),
      `self.received = [];
chrome.runtime.onMessage.addListener((message, _sender, reply) => {
  self.received.push(message);
  if (message.type === 'CHECK_REGISTRATION') reply({ allowed: false, pending: self.received.some((m) => m.type === 'REQUEST_REGISTRATION') });
  else if (message.type === 'REQUEST_REGISTRATION') reply({ ok: true, status: 'pending' });
  else reply({ ok: true });
});`,
    );
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      ignoreDefaultArgs: ['--disable-extensions'],
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        `--disable-extensions-except=${ext}`,
        `--load-extension=${ext}`,
      ],
    });
    worker =
      context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 15_000 }));
    id = new URL(worker.url()).host;
  });
  after(async () => {
    await context?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** What the worker received. Bounded: Playwright waits for a worker that Chromium stopped to start again. */
  const received = () =>
    bounded(
      worker.evaluate(() => (self as any).received as unknown[]),
      15_000,
      "the extension's worker",
    );

  test('dist/extension/blockedv2.html sends ACCESS_REQUEST to the background worker and shows its answer', async () => {
    const page = await context.newPage();
    const errors: Error[] = [];
    page.on('pageerror', (e) => errors.push(e));
    await page.goto(
      `chrome-extension://${id}/blockedv2.html?reason=locked&age=eight12&device=Family%20laptop`,
    );
    assert.equal(await page.evaluate(() => document.documentElement.dataset.host), 'extension');
    await page.locator(hook('preset')).first().click();
    await waitForStatus(page, /Sent!/);
    assert.deepEqual(await received(), [
      { type: 'ACCESS_REQUEST', reason: 'locked', message: 'Can I have 15 more minutes?' },
    ]);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('sign-up mode checks and requests through the real runtime', async () => {
    const page = await context.newPage();
    const before = (await received()).length;
    await page.goto(
      `chrome-extension://${id}/blockedv2.html?reason=signup&age=teen&device=club.example&url=${encodeURIComponent('https://club.example/join')}`,
    );
    await page.locator(hook('request-signup')).click();
    await waitForStatus(page, /Waiting for a parent/);
    // The page shows "waiting" as soon as the request is answered and checks again right after, so
    // that check may reach the worker a moment later than the status appears.
    const deadline = Date.now() + 5_000;
    while ((await received()).length < before + 3 && Date.now() < deadline) await page.waitForTimeout(50);
    const messages = (await received()).slice(before, before + 3);
    assert.deepEqual(messages, [
      { type: 'CHECK_REGISTRATION', domain: 'club.example' },
      { type: 'REQUEST_REGISTRATION', domain: 'club.example', url: 'https://club.example/join' },
      { type: 'CHECK_REGISTRATION', domain: 'club.example' },
    ]);
    await page.close();
  });

  test('the single-file page is refused there (MV3 runs no inline script), which is why dist/extension exists', async () => {
    const page = await context.newPage();
    await page.goto(`chrome-extension://${id}/inline.html?reason=locked&age=eight12`);
    await page.waitForTimeout(300);
    assert.equal(await page.locator(hook('headline')).count(), 0);
    await page.close();
  });
});
