// A page on another origin against a signed-in parent: it must not frame the admin UI, and its forms
// must not sign the browser in to an account of its choosing (login CSRF).
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../../server/test/helpers.ts';
import {
  assertBuilt,
  browserSkipReason,
  createOwner,
  DESKTOP,
  launchBrowser,
  type Owner,
  PASSWORD,
} from './support.ts';

const skip = browserSkipReason();
if (skip) console.log(`# skipping the cross-site browser tests: ${skip}`);

/** The attacker's pages, served from loopback; reached as http://evil.test:PORT (another site). */
function startEvilSite(hearth: string, attacker: string): Promise<{ server: Server; port: number }> {
  const pages: Record<string, string> = {
    '/frame': `<!doctype html><title>Evil</title><iframe id="victim" src="${hearth}/devices" width="800" height="600"></iframe>`,
    '/sign-in': `<!doctype html><title>Win a prize</title>
      <form method="POST" action="${hearth}/login">
        <input name="username" value="${attacker}"><input name="password" value="${PASSWORD}">
      </form>
      <script>document.forms[0].submit()</script>`,
  };
  const server = createServer((req, res) => {
    const page = pages[req.url ?? ''];
    res.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page ?? 'not here');
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port })),
  );
}

describe('another site against the admin UI', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let evil: { server: Server; port: number };
  let owner: Owner;
  let attacker: Owner;

  before(async () => {
    assertBuilt();
    server = await startTestServer();
    owner = await createOwner(server, 'maria', 'The Rivera family');
    attacker = await createOwner(server, 'mallory', 'Mallory and co');
    evil = await startEvilSite(server.url, attacker.username);
    // Every *.test name is this machine: evil.test is a site of its own, served from loopback.
    browser = await launchBrowser(['--host-resolver-rules=MAP *.test 127.0.0.1']);
  });
  after(async () => {
    await browser?.close();
    evil?.server.close();
    await server?.close();
  });

  /** A browser context signed in as Maria (or not signed in at all). */
  async function context(signedIn: boolean): Promise<{ context: BrowserContext; page: Page }> {
    const ctx = await browser.newContext({ viewport: DESKTOP });
    ctx.setDefaultTimeout(30_000);
    if (signedIn) {
      const [name = '', value = ''] = (owner.client.cookie ?? '').split('=', 2);
      await ctx.addCookies([{ name, value, url: server.url }]);
    }
    return { context: ctx, page: await ctx.newPage() };
  }

  async function signedInAs(ctx: BrowserContext): Promise<string | null> {
    const res = await ctx.request.get(`${server.url}/api/session`);
    return res.status() === 200
      ? ((await res.json()) as { parent: { username: string } }).parent.username
      : null;
  }

  for (const origin of ['evil.test', '127.0.0.1']) {
    test(`a page on http://${origin}:PORT cannot frame the signed-in Devices page`, async () => {
      const { context: ctx, page } = await context(true);
      try {
        // The session itself works: the page opens at the top level.
        await page.goto(`${server.url}/devices`);
        await page.getByRole('heading', { level: 1, name: 'Devices' }).waitFor();

        const refused = page.waitForEvent('console', {
          predicate: (m) => /frame-ancestors 'none'|X-Frame-Options/.test(m.text()),
        });
        await page.goto(`http://${origin}:${evil.port}/frame`);
        await refused;
        const frame = await (await page.locator('#victim').elementHandle())?.contentFrame();
        assert.ok(frame, 'the iframe exists');
        await frame.waitForLoadState('load');
        assert.ok(!frame.url().startsWith(server.url), `the frame shows ${frame.url()}`);
        assert.equal(await frame.getByRole('heading', { name: 'Devices' }).count(), 0);
      } finally {
        await ctx.close();
      }
    });

    test(`a form on http://${origin}:PORT posting to /login does not sign the browser in`, async () => {
      const { context: ctx, page } = await context(false);
      try {
        const answer = page.waitForResponse((r) => r.url() === `${server.url}/login`);
        await page.goto(`http://${origin}:${evil.port}/sign-in`);
        const res = await answer;
        assert.equal(res.status(), 403);
        assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'csrf_failed');
        assert.equal(await signedInAs(ctx), null);
        assert.deepEqual(
          (await ctx.cookies(server.url)).map((c) => c.name),
          [],
          'no session cookie was set',
        );
      } finally {
        await ctx.close();
      }
    });
  }

  test("Hearth's own sign-in page still signs in, and the API docs page renders under its policy", async () => {
    const { context: ctx, page } = await context(false);
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of 401/.test(m.text())) problems.push(m.text());
    });
    try {
      await page.goto(`${server.url}/`);
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.getByLabel('Username').fill(owner.username);
      await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'The Rivera family' }).waitFor();
      assert.equal(await signedInAs(ctx), owner.username);

      await page.goto(`${server.url}/api/docs`);
      await page.locator('.swagger-ui .info .title').waitFor();
      assert.deepEqual(problems, []);
    } finally {
      await ctx.close();
    }
  });
});
