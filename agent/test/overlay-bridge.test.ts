import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../src/log.js';
import { BRIDGE_BODY_MAX, OverlayServer } from '../src/overlay/server.js';

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function request(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => {
        body += d.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    // The server may close early on an oversized body; the answer it already sent is what counts.
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('the overlay loopback server: page, one-time launch and bridge', () => {
  let dir: string;
  let server: OverlayServer;
  const calls: { username: string; message: Record<string, unknown> }[] = [];
  let token = '';

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'hearth-overlay-'));
    const page = path.join(dir, 'blockedv2.html');
    writeFileSync(page, '<!doctype html><title>Hearth Space</title>');
    server = new OverlayServer(
      createLogger('error'),
      () => page,
      async (username, message) => {
        calls.push({ username, message });
        return { ok: true };
      },
    );
    await server.start();
    token = server.newToken('ann');
    server.newToken('ben');
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const bridge = (headers: Record<string, string>, body: string | Buffer) =>
    request(server.bridgeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });

  test('the page is served with strict headers, only to our own Host', async () => {
    const page = await request(`${server.origin}/blockedv2.html?reason=locked`);
    assert.equal(page.status, 200);
    assert.match(page.body, /Hearth Space/);
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
    assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.equal(page.headers['access-control-allow-origin'], undefined);
    const rebound = await request(`${server.origin}/blockedv2.html`, {
      headers: { host: 'evil.example:80' },
    });
    assert.equal(rebound.status, 421);
  });

  test('a launch address works once and hands the window the page with its token', async () => {
    let loaded = 0;
    const query = new URLSearchParams({ reason: 'sleep', bridge: server.bridgeUrl, bridge_token: token });
    const launch = server.launchUrl('ann', query, () => {
      loaded += 1;
    });
    assert.ok(!launch.includes(token), 'the token is not in the address a command line shows');
    const first = await request(launch);
    assert.equal(first.status, 302);
    assert.equal(first.headers.location, `/blockedv2.html?${query}`);
    assert.equal(loaded, 1);
    assert.equal((await request(launch)).status, 404);
  });

  test('the bridge: 401 without the right token, 413 over 16 KB, 400 on bad JSON, else the account’s answer', async () => {
    const good = JSON.stringify({ type: 'ACCESS_REQUEST', reason: 'locked', message: 'Five more minutes?' });
    assert.equal((await bridge({}, good)).status, 401);
    assert.equal((await bridge({ authorization: 'Bearer wrong-token' }, good)).status, 401);
    assert.equal((await bridge({ authorization: `Basic ${token}` }, good)).status, 401);
    assert.equal(calls.length, 0);

    const big = JSON.stringify({
      type: 'ACCESS_REQUEST',
      reason: 'locked',
      message: 'x'.repeat(BRIDGE_BODY_MAX),
    });
    assert.equal((await bridge({ authorization: `Bearer ${token}` }, big)).status, 413);
    assert.equal((await bridge({ authorization: `Bearer ${token}` }, '{nope')).status, 400);
    assert.equal(
      (await request(server.bridgeUrl, { headers: { authorization: `Bearer ${token}` } })).status,
      405,
    );
    assert.equal(calls.length, 0);

    const answer = await bridge({ authorization: `Bearer ${token}` }, good);
    assert.equal(answer.status, 200);
    assert.deepEqual(JSON.parse(answer.body), { ok: true });
    assert.equal(answer.headers['access-control-allow-origin'], undefined);
    assert.deepEqual(calls, [{ username: 'ann', message: JSON.parse(good) }]);

    // A preflight from another origin is never granted: the page is same-origin and needs none.
    const preflight = await request(server.bridgeUrl, {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
    });
    assert.notEqual(preflight.status, 200);
    assert.equal(preflight.headers['access-control-allow-origin'], undefined);

    server.revoke('ann');
    assert.equal((await bridge({ authorization: `Bearer ${token}` }, good)).status, 401);
  });
});
