import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  Client,
  createHousehold,
  type Household,
  PASSWORD,
  startTestServer,
  type TestServer,
} from './helpers.js';

function assertGuarded(res: Response, label: string, framing: 'none' | 'self' = 'none') {
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff', label);
  assert.equal(res.headers.get('x-frame-options'), framing === 'none' ? 'DENY' : 'SAMEORIGIN', label);
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, new RegExp(`frame-ancestors '${framing}'`), `${label}: ${csp}`);
  assert.match(csp, /object-src 'none'/, label);
}

describe('security headers and cross-site sign-in', () => {
  let server: TestServer;
  let home: Household;
  before(async () => {
    server = await startTestServer(undefined, {
      HEARTH_OPEN_SIGNUP: 'true',
      HEARTH_PUBLIC_URL: 'https://hearth.example.org',
    });
    home = await createHousehold(server, 'Headers home');
  });
  after(() => server?.close());

  test('API answers, errors included, carry CSP, frame-ancestors, X-Frame-Options and nosniff', async () => {
    const cookie = home.client.cookie ?? '';
    for (const [url, status] of [
      ['/api/users', 200],
      ['/api/session', 200],
      ['/healthz', 200],
      ['/api/nothing-here', 404],
      ['/api/openapi.json', 200],
    ] as const) {
      const res = await fetch(`${server.url}${url}`, { headers: { cookie } });
      assert.equal(res.status, status, url);
      assertGuarded(res, url);
      await res.arrayBuffer();
    }
    const unauthenticated = await fetch(`${server.url}/api/users`);
    assert.equal(unauthenticated.status, 401);
    assertGuarded(unauthenticated, '401');
  });

  test('the admin UI allows only its own scripts and no framing', async () => {
    const index = await fetch(`${server.url}/devices`, { headers: { accept: 'text/html' } });
    assert.equal(index.status, 200);
    assertGuarded(index, 'UI page');
    const csp = index.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /script-src[^;]*unsafe-inline/);
    // The built page has no inline script for the policy to block.
    const html = await index.text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/);
    const asset = /\/assets\/[^"]+\.js/.exec(html)?.[0] ?? '';
    const script = await fetch(`${server.url}${asset}`);
    assert.equal(script.status, 200);
    assertGuarded(script, 'asset');
    await script.arrayBuffer();
  });

  test('Hearth Space may be framed by Hearth itself only, and keeps its own script policy', async () => {
    const res = await fetch(`${server.url}/overlay/blockedv2.html?reason=locked`);
    assert.equal(res.status, 200);
    assertGuarded(res, 'overlay', 'self');
    // Its inline script and styles are allowed by the page's own <meta> policy (hashes), not the header.
    assert.doesNotMatch(res.headers.get('content-security-policy') ?? '', /script-src|style-src|default-src/);
    assert.match(await res.text(), /http-equiv="Content-Security-Policy"/);
  });

  test('the API docs page keeps its own policy, over plain http, not framed', async () => {
    const res = await fetch(`${server.url}/api/docs/`, { redirect: 'follow' });
    assert.equal(res.status, 200);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /upgrade-insecure-requests/);
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    await res.arrayBuffer();
  });

  test('a sign-in posted from another site is refused; same origin and non-browser clients pass', async () => {
    const form = new URLSearchParams({ username: home.username, password: PASSWORD }).toString();
    const post = (url: string, headers: Record<string, string>) =>
      fetch(`${server.url}${url}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: form,
      });
    const own = new URL(server.url).host;
    for (const url of ['/login', '/api/session', '/api/setup', '/api/signup']) {
      for (const headers of [
        { origin: 'http://evil.test:8000', 'sec-fetch-site': 'cross-site' } as Record<string, string>,
        { origin: 'http://127.0.0.1:1', 'sec-fetch-site': 'same-site' },
        { origin: 'http://evil.test:8000' },
        { origin: 'null' },
        { 'sec-fetch-site': 'cross-site' },
      ]) {
        const res = await post(url, headers);
        assert.equal(res.status, 403, `${url} ${JSON.stringify(headers)}`);
        const body = (await res.json()) as { error: { code: string; message: string } };
        assert.equal(body.error.code, 'csrf_failed');
        assert.match(body.error.message, /another site/);
        assert.equal(res.headers.get('set-cookie'), null);
      }
    }
    for (const headers of [
      {} as Record<string, string>,
      { origin: `http://${own}`, 'sec-fetch-site': 'same-origin' },
      { origin: `http://${own}` },
      { 'sec-fetch-site': 'none' },
      // The public address, as seen through a proxy that rewrites Host.
      { origin: 'https://hearth.example.org' },
    ]) {
      const res = await post('/login', headers);
      assert.equal(res.status, 303, JSON.stringify(headers));
      assert.match(res.headers.get('set-cookie') ?? '', /^hearth_session=/);
      const json = await new Client(server.url).request('POST', '/api/session', {
        json: { username: home.username, password: PASSWORD },
        headers,
      });
      assert.equal(json.status, 200, `JSON ${JSON.stringify(headers)}`);
    }
  });
});
