import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { hook, launch, openPage, overlayUrl, pageFile, skipReason, text, waitForStatus } from './helpers.ts';

const log = (page: Page) => page.evaluate(() => (window as any).__log as unknown[]);

describe('Hearth Space hosts', { skip: skipReason }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('extension (callback form): ACCESS_REQUEST, REQUEST_REGISTRATION and CHECK_REGISTRATION go through chrome.runtime.sendMessage', async () => {
    const { page, errors, close } = await openPage(browser);
    await page.addInitScript(() => {
      const w = window as any;
      w.__log = [];
      w.chrome = {
        runtime: {
          sendMessage(message: any, callback: (r: unknown) => void) {
            w.__log.push(message);
            const reply =
              message.type === 'ACCESS_REQUEST'
                ? { ok: true }
                : message.type === 'REQUEST_REGISTRATION'
                  ? { ok: true, status: 'pending' }
                  : { allowed: false, pending: false };
            setTimeout(() => callback(reply), 5);
          },
        },
      };
    });
    await page.goto(overlayUrl({ reason: 'filtered', age: 'teen', device: 'Study laptop' }));
    assert.equal(await page.evaluate(() => document.documentElement.dataset.host), 'extension');
    await page.locator(hook('message-input')).fill('  It is for my biology project.  ');
    await page.locator(hook('send')).click();
    await waitForStatus(page, /Message sent to your parent/);
    assert.deepEqual(await log(page), [
      { type: 'ACCESS_REQUEST', reason: 'filtered', message: 'It is for my biology project.' },
    ]);

    await page.goto(
      overlayUrl({
        reason: 'signup',
        age: 'eight12',
        device: 'games.example',
        url: 'https://games.example/join',
      }),
    );
    await page.waitForFunction(() => (window as any).__log.length === 1);
    await page.locator(hook('request-signup')).click();
    await waitForStatus(page, /Waiting for a parent/);
    const messages = await log(page);
    assert.deepEqual(messages.slice(0, 2), [
      { type: 'CHECK_REGISTRATION', domain: 'games.example' },
      { type: 'REQUEST_REGISTRATION', domain: 'games.example', url: 'https://games.example/join' },
    ]);
    assert.deepEqual(errors, []);
    await close();
  });

  test('extension (promise form): a runtime that answers with a promise works too, and lastError counts as a failure', async () => {
    const { page, close } = await openPage(browser);
    await page.addInitScript(() => {
      const w = window as any;
      w.__log = [];
      w.chrome = {
        runtime: {
          sendMessage(message: unknown) {
            w.__log.push(message);
            return Promise.resolve({ ok: true });
          },
        },
      };
    });
    await page.goto(overlayUrl({ reason: 'sleep', age: 'eight12' }));
    const preset = page.locator(hook('preset')).nth(1);
    const message = await preset.locator('span').first().textContent();
    await preset.click();
    await waitForStatus(page, /Sent!/);
    assert.deepEqual(await log(page), [{ type: 'ACCESS_REQUEST', reason: 'sleep', message }]);
    await close();

    const failing = await openPage(browser);
    await failing.page.addInitScript(() => {
      const runtime: any = {
        sendMessage(_message: unknown, callback: (r: unknown) => void) {
          runtime.lastError = { message: 'Could not establish connection. Receiving end does not exist.' };
          callback(undefined);
          runtime.lastError = undefined;
        },
      };
      (window as any).chrome = { runtime };
    });
    await failing.page.goto(overlayUrl({ reason: 'sleep', age: 'teen' }));
    await failing.page.locator(hook('message-input')).fill('Five more minutes?');
    await failing.page.locator(hook('send')).click();
    await waitForStatus(failing.page, /Couldn’t send your message/);
    await failing.close();
  });

  test('Android: hearthBridge.sendAccessRequest, and setAge / setReason / setDeviceInfo re-render the page', async () => {
    const { page, errors, close } = await openPage(browser, {
      viewport: { width: 390, height: 844 },
      hasTouch: true,
    });
    await page.addInitScript(() => {
      const w = window as any;
      w.__log = [];
      w.hearthBridge = {
        sendAccessRequest(reason: string, message: string) {
          w.__log.push([reason, message]);
          return JSON.stringify({ ok: true });
        },
      };
    });
    // The activity loads the bundled page without parameters, then tells it who and why.
    await page.goto(overlayUrl());
    assert.equal(await page.evaluate(() => document.documentElement.dataset.host), 'android');
    await page.evaluate(() => {
      const w = window as any;
      w.setAge('under8');
      w.setReason('locked');
      w.setDeviceInfo('Pixel 8', 'Dinner is at six! <b>Love</b>, Mum');
    });
    assert.equal(await text(page, 'headline'), 'All done for today!');
    assert.equal(await page.locator('.brand-name').textContent(), 'Cozy Corner');
    assert.equal(await text(page, 'note'), 'Dinner is at six! <b>Love</b>, Mum');
    assert.equal(await page.locator('.chip-value').textContent(), 'Pixel 8');
    const preset = page.locator(hook('preset')).first();
    await preset.tap();
    await waitForStatus(page, /Sent!/);
    assert.deepEqual(await log(page), [['locked', 'Can I have more time?']]);

    await page.evaluate(() => {
      const w = window as any;
      w.setAge('teen');
      w.setReason('sleep');
      w.setDeviceInfo('Pixel 8', null);
    });
    assert.equal(await text(page, 'headline'), 'Sleep mode is on');
    assert.equal(await page.locator(hook('preset')).count(), 0);
    assert.equal(await page.locator(hook('note')).isVisible(), false);
    await page.locator(hook('message-input')).fill('Can I finish this episode?');
    await page.locator(hook('send')).tap();
    await waitForStatus(page, /Message sent/);
    assert.deepEqual((await log(page)).at(-1), ['sleep', 'Can I finish this episode?']);

    await page.evaluate(() => (window as any).setAge('nonsense'));
    assert.equal(await page.evaluate(() => document.documentElement.dataset.tier), 'eight12');
    assert.deepEqual(errors, []);
    await close();
  });

  test('Android: a bridge answering {ok:false} or garbage shows the retry message', async () => {
    const { page, close } = await openPage(browser);
    await page.addInitScript(() => {
      (window as any).hearthBridge = {
        sendAccessRequest() {
          return 'not json';
        },
      };
    });
    await page.goto(overlayUrl({ reason: 'locked', age: 'eight12' }));
    await page.locator(hook('preset')).first().click();
    await waitForStatus(page, /didn’t go through/);
    await close();
  });

  describe('Linux kiosk', () => {
    let server: Server;
    let origin: string;
    const seen: { headers: IncomingHttpHeaders; body: unknown }[] = [];
    let registration = { allowed: false, pending: false };

    before(async () => {
      // Plays the Linux agent: it serves the page from loopback and answers the bridge beside it.
      server = createServer((req, res) => {
        if (req.method === 'GET' && req.url?.startsWith('/overlay')) {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          res.end(readFileSync(pageFile));
          return;
        }
        if (req.method === 'POST' && req.url === '/bridge') {
          let raw = '';
          req.on('data', (chunk) => {
            raw += chunk;
          });
          req.on('end', () => {
            const body = JSON.parse(raw);
            seen.push({ headers: req.headers, body });
            if (req.headers.authorization !== 'Bearer one-time-7f3a') {
              res.writeHead(401, { 'content-type': 'application/json' });
              res.end('{"ok":false}');
              return;
            }
            let reply: unknown = { ok: true };
            if (body.type === 'REQUEST_REGISTRATION') {
              registration = { allowed: false, pending: true };
              reply = { ok: true, status: 'pending' };
            }
            if (body.type === 'CHECK_REGISTRATION') reply = registration;
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify(reply));
          });
          return;
        }
        res.writeHead(404).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => {
      server?.close();
    });

    test('posts ACCESS_REQUEST to the loopback bridge with the bearer token and a JSON body', async () => {
      const { page, errors, close } = await openPage(browser);
      await page.goto(
        overlayUrl(
          {
            reason: 'clock_tamper',
            age: 'eight12',
            bridge: `${origin}/bridge`,
            bridge_token: 'one-time-7f3a',
          },
          `${origin}/overlay/blockedv2.html`,
        ),
      );
      assert.equal(await page.evaluate(() => document.documentElement.dataset.host), 'kiosk');
      await page.locator(hook('preset')).first().click();
      await waitForStatus(page, /Sent!/);
      assert.equal(seen.length, 1);
      assert.equal(seen[0]?.headers.authorization, 'Bearer one-time-7f3a');
      assert.equal(seen[0]?.headers['content-type'], 'application/json');
      assert.deepEqual(seen[0]?.body, {
        type: 'ACCESS_REQUEST',
        reason: 'clock_tamper',
        message: 'Please check the clock',
      });
      assert.deepEqual(errors, []);
      await close();
    });

    test('a wrong token is answered 401 and the child sees the retry message', async () => {
      const { page, close } = await openPage(browser);
      await page.goto(
        overlayUrl(
          { reason: 'locked', age: 'teen', bridge: `${origin}/bridge`, bridge_token: 'stale' },
          `${origin}/overlay/blockedv2.html`,
        ),
      );
      await page.locator(hook('message-input')).fill('Hello');
      await page.locator(hook('send')).click();
      await waitForStatus(page, /Couldn’t send/);
      assert.equal(seen.at(-1)?.headers.authorization, 'Bearer stale');
      await close();
    });

    test('sign-up messages go over the same bridge', async () => {
      seen.length = 0;
      const { page, close } = await openPage(browser);
      await page.goto(
        overlayUrl(
          {
            reason: 'signup',
            age: 'teen',
            device: 'forum.example',
            url: 'https://forum.example/register',
            bridge: `${origin}/bridge`,
            bridge_token: 'one-time-7f3a',
          },
          `${origin}/overlay/blockedv2.html`,
        ),
      );
      await page.locator(hook('request-signup')).click();
      await waitForStatus(page, /Waiting for a parent/);
      // The check that follows the request is sent right after "waiting" shows.
      const deadline = Date.now() + 5_000;
      while (seen.length < 3 && Date.now() < deadline) await page.waitForTimeout(50);
      const bodies = seen.map((s) => s.body);
      assert.deepEqual(bodies.slice(0, 3), [
        { type: 'CHECK_REGISTRATION', domain: 'forum.example' },
        { type: 'REQUEST_REGISTRATION', domain: 'forum.example', url: 'https://forum.example/register' },
        { type: 'CHECK_REGISTRATION', domain: 'forum.example' },
      ]);
      assert.ok(seen.every((s) => s.headers.authorization === 'Bearer one-time-7f3a'));
      await close();
    });

    test('a bridge that is not loopback http, or has no token, is ignored', async () => {
      const { page, close } = await openPage(browser);
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      for (const bridge of [
        'http://192.168.1.20:8080/bridge',
        'https://127.0.0.1/bridge',
        'http://user:pw@127.0.0.1/',
      ]) {
        await page.goto(overlayUrl({ reason: 'locked', age: 'eight12', bridge, bridge_token: 'x' }));
        assert.equal(await page.evaluate(() => document.documentElement.dataset.host), 'preview', bridge);
      }
      await page.goto(overlayUrl({ reason: 'locked', age: 'eight12', bridge: `${origin}/bridge` }));
      assert.equal(await page.evaluate(() => document.documentElement.dataset.host), 'preview');
      await page.locator(hook('preset')).first().click();
      await waitForStatus(page, /preview/);
      assert.deepEqual(
        requests.filter((url) => !url.startsWith('file:')),
        [],
      );
      await close();
    });
  });
});
