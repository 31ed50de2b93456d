import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from './helpers.js';

/**
 * A reverse proxy as nginx or Caddy behaves: forwards to `target` from `localAddress` and appends the
 * address it was reached from to X-Forwarded-For, keeping whatever the caller put there before it.
 */
async function startProxy(
  target: string,
  localAddress = '127.0.0.1',
): Promise<{ url: string; server: Server }> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const before = req.headers['x-forwarded-for'];
    const forwardedFor = [before, req.socket.remoteAddress].filter(Boolean).join(', ');
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        localAddress,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, 'x-forwarded-for': forwardedFor, 'x-forwarded-proto': 'http' },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** One request from a chosen loopback address (127.0.0.x), with a forged X-Forwarded-For. */
function send(
  base: string,
  path: string,
  options: { from: string; forged: string; json: unknown },
): Promise<{ status: number; retryAfter: string | undefined }> {
  const url = new URL(path, base);
  const body = JSON.stringify(options.json);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress: options.from,
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-forwarded-for': options.forged,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'] as string | undefined,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

let run = 0;
/**
 * Eleven wrong sign-ins from `from`, each naming another address in X-Forwarded-For: the limit keys
 * on the real client, so the eleventh answers 429; a second client behind the same proxy is unaffected.
 */
async function assertSignInLimitKeysOnRealClient(entry: string) {
  const username = `proxied${++run}_${Math.random().toString(36).slice(2, 7)}`;
  for (let i = 0; i < 10; i++) {
    const res = await send(entry, '/api/session', {
      from: '127.0.0.2',
      forged: `203.0.113.${i + 1}`,
      json: { username, password: `wrong password ${i}` },
    });
    assert.equal(res.status, 401, `attempt ${i + 1}`);
  }
  const locked = await send(entry, '/api/session', {
    from: '127.0.0.2',
    forged: '198.51.100.77',
    json: { username, password: 'eleventh try' },
  });
  assert.equal(locked.status, 429, 'the forged X-Forwarded-For escaped the limit');
  assert.ok(Number(locked.retryAfter) >= 1);
  // Another client behind the same proxies is its own pair: the proxy's address is not the key.
  const neighbour = await send(entry, '/api/session', {
    from: '127.0.0.3',
    forged: '203.0.113.1',
    json: { username, password: 'neighbour' },
  });
  assert.equal(neighbour.status, 401);
}

describe('HEARTH_TRUST_PROXY=1 behind one proxy', () => {
  let server: TestServer;
  let proxy: { url: string; server: Server };
  before(async () => {
    server = await startTestServer(undefined, { HEARTH_TRUST_PROXY: '1' });
    proxy = await startProxy(server.url);
  });
  after(async () => {
    proxy?.server.close();
    await server?.close();
  });

  test('a client-chosen X-Forwarded-For does not escape the sign-in limit', async () => {
    await assertSignInLimitKeysOnRealClient(proxy.url);
  });

  test('nor the access-request limit (30 a minute per address, refused requests counted)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) {
      const res = await send(proxy.url, '/api/access-request', {
        from: '127.0.0.4',
        forged: `203.0.113.${i + 1}`,
        json: { reason: 'more time', message: 'please' },
      });
      statuses.push(res.status);
    }
    assert.deepEqual(new Set(statuses.slice(0, 30)), new Set([401]));
    assert.equal(statuses[30], 429);
  });
});

describe('HEARTH_TRUST_PROXY=2 behind a chain of two proxies', () => {
  let server: TestServer;
  let inner: { url: string; server: Server };
  let outer: { url: string; server: Server };
  before(async () => {
    server = await startTestServer(undefined, { HEARTH_TRUST_PROXY: '2' });
    inner = await startProxy(server.url);
    // The outer proxy reaches the inner one from its own address, as a separate machine would.
    outer = await startProxy(inner.url, '127.0.0.9');
  });
  after(async () => {
    outer?.server.close();
    inner?.server.close();
    await server?.close();
  });

  test('the limit keys on the client that reached the outer proxy', async () => {
    await assertSignInLimitKeysOnRealClient(outer.url);
  });
});

describe('HEARTH_TRUST_PROXY as a list of proxy addresses', () => {
  let server: TestServer;
  let proxy: { url: string; server: Server };
  before(async () => {
    server = await startTestServer(undefined, { HEARTH_TRUST_PROXY: '127.0.0.1,10.0.0.0/8' });
    proxy = await startProxy(server.url);
  });
  after(async () => {
    proxy?.server.close();
    await server?.close();
  });

  test('through the listed proxy the limit keys on the real client', async () => {
    await assertSignInLimitKeysOnRealClient(proxy.url);
  });

  test('a client reaching Hearth directly cannot pose as a proxy', async () => {
    await assertSignInLimitKeysOnRealClient(server.url);
  });
});
