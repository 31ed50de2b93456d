// Closing a tab while it commits a navigation: Chromium may acknowledge the close and never do it
// (crbug.com/536385539), and Playwright's page.close() then waits for ever. The extension's tests close tabs
// that Hearth Space or a sent form is moving, so they close through closePage (stack.ts), which asks again.
// Here a form is sent and the tab closed a moment later, over a sweep of server delays and moments, so
// that some closes land on the commit: every one of them must end.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { within } from '../../server/test/helpers.ts';
import { launchBrowser } from './corpus-runner.ts';
import { closePage, skipReason } from './stack.ts';

let browser: Browser;
let server: http.Server;
let base = '';

before(async () => {
  if (skipReason) return;
  server = http.createServer((req, res) => {
    const delay = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('delay') ?? 0);
    req.resume();
    if (req.method === 'POST') {
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>Sent</p>'), delay);
      return;
    }
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<form method="post" action="/sent?delay=${delay}"><button id="send">Send</button></form>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  server?.closeAllConnections();
  server?.close();
});

test('a tab closed while a sent form commits is closed, however the close and the commit meet', {
  skip: skipReason,
}, async (t) => {
  const context = await browser.newContext();
  // Sweeps the server's delay and the moment of the close until Chromium has dropped two closes (about
  // one close in fifteen here), or gives up after 300 tries.
  let tries = 0;
  let dropped = 0;
  for (let i = 0; i < 300 && dropped < 2; i++) {
    const delay = 4 + ((i * 4) % 48);
    const pause = (i * 7) % 30;
    const page = await context.newPage();
    await page.goto(`${base}/?delay=${delay}`);
    await page.click('#send', { noWaitAfter: true });
    await new Promise((resolve) => setTimeout(resolve, pause));
    tries += 1;
    if ((await within(page.close(), 3_000)) !== 'timed out') continue;
    // The close Chromium dropped: closePage must end the tab that page.close() alone left open.
    dropped += 1;
    assert.notEqual(
      await within(closePage(page), 30_000),
      'timed out',
      `delay ${delay} ms, pause ${pause} ms`,
    );
    assert.ok(page.isClosed());
  }
  await context.close();
  if (dropped === 0) t.skip(`Chromium closed all ${tries} tabs at once: no dropped close to end here`);
  else t.diagnostic(`${dropped} of ${tries} closes were dropped by Chromium and ended by asking again`);
});
