import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { createSecureContext, createServer as createTlsServer } from 'node:tls';
import { brotliCompressSync, createGzip, deflateSync, gzipSync } from 'node:zlib';
import { HttpError } from '../src/platform/errors.js';
import { SafeFetcher } from '../src/platform/safe-fetch.js';
import { CountingListener, guardLoopbackOnly, TEST_TLS, TestDns } from './fetch-fixture.js';
import { startTestServer } from './helpers.js';

/** The HttpError a promise rejects with (fails the test if it resolves or throws anything else). */
async function failure(work: Promise<unknown>): Promise<HttpError> {
  try {
    await work;
  } catch (err) {
    assert.ok(err instanceof HttpError, `expected an HttpError, got ${err}`);
    return err;
  }
  assert.fail('expected the fetch to fail');
}

async function expectRefused(work: Promise<unknown>): Promise<HttpError> {
  const err = await failure(work);
  assert.equal(err.statusCode, 400, err.message);
  assert.equal(err.code, 'url_not_allowed');
  return err;
}

async function expectUpstreamFailed(work: Promise<unknown>): Promise<HttpError> {
  const err = await failure(work);
  assert.equal(err.statusCode, 502, err.message);
  assert.equal(err.code, 'upstream_failed');
  return err;
}

async function mustListen(host: string, port = 0): Promise<CountingListener> {
  const listener = await CountingListener.start(host, port);
  assert.ok(listener, `${host}:${port} can be bound`);
  return listener;
}

/** An HTTP server on a loopback address that records what it was asked. */
interface TestHttp {
  port: number;
  url(path?: string): string;
  requests: IncomingMessage[];
  server: Server;
}

async function serve(
  handler: (req: IncomingMessage, res: ServerResponse, server: TestHttp) => void,
  host = '127.0.0.1',
  port = 0,
): Promise<TestHttp> {
  const server = createServer();
  const test: TestHttp = {
    port: 0,
    url: (path = '/') => `http://${host.includes(':') ? `[${host}]` : host}:${test.port}${path}`,
    requests: [],
    server,
  };
  server.on('request', (req, res) => {
    test.requests.push(req);
    handler(req, res, test);
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  test.port = (server.address() as { port: number }).port;
  return test;
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections?.();
    server.close(() => resolve());
  });

/** The fixture zone: each test name and what it resolves to. */
const ZONE: Record<string, { A?: string[]; AAAA?: string[] }> = {
  'lists.fixture.test': { A: ['127.0.0.1'] },
  'loopback.fixture.test': { A: ['127.0.0.1'] },
  'loopback6.fixture.test': { AAAA: ['::1'] },
  'private.fixture.test': { A: ['10.1.2.3'] },
  'lan.fixture.test': { A: ['192.168.0.10'] },
  'cgnat.fixture.test': { A: ['100.100.100.100'] },
  'metadata.fixture.test': { A: ['169.254.169.254'] },
  'mixed.fixture.test': { A: ['8.8.8.8', '10.0.0.5'] },
  'mixed6.fixture.test': { A: ['8.8.8.8'], AAAA: ['fd00::1'] },
  'mapped.fixture.test': { AAAA: ['::ffff:7f00:1'] },
  'nat64.fixture.test': { AAAA: ['64:ff9b::a00:1'] },
  'ula.fixture.test': { AAAA: ['fd12:3456::1'] },
  'linklocal6.fixture.test': { AAAA: ['fe80::1'] },
};

describe('SSRF-safe fetch', () => {
  const guard = guardLoopbackOnly();
  let dns: TestDns;
  /** Answers for names a test sets up itself (rebinding), before the fixture zone. */
  const dynamic = new Map<string, (type: string, asked: number) => string[]>();
  let listener4: CountingListener;
  let listener6: CountingListener | null;
  /** Listeners on loopback addresses that must never be reached. */
  let listener3: CountingListener;

  before(async () => {
    dns = await TestDns.start((name, type, asked) => {
      const changing = dynamic.get(name);
      if (changing) return changing(type, asked);
      const entry = ZONE[name];
      return entry ? (entry[type] ?? []) : null;
    });
    listener4 = await mustListen('127.0.0.1');
    listener6 = await CountingListener.start('::1', listener4.port);
    listener3 = await mustListen('127.0.0.3', listener4.port);
  });

  after(async () => {
    await dns.close();
    await listener4.close();
    await listener6?.close();
    await listener3.close();
    guard.remove();
    assert.deepEqual(guard.refused, [], 'no connection left loopback');
  });

  /** The fetcher of the vectors: nothing opened, names resolved only by the fixture DNS. */
  const closed = () => new SafeFetcher({ allowCidrs: [], dnsServers: [dns.server], timeoutMs: 2000 });
  /** A fetcher that may reach the loopback test servers. */
  const opened = (options: { allowCidrs?: string[]; timeoutMs?: number; maxBytes?: number } = {}) =>
    new SafeFetcher({ allowCidrs: ['127.0.0.0/8'], dnsServers: [dns.server], ...options });

  describe('every SSRF vector is refused before any connection', () => {
    // `{p}` is the port of the loopback listeners (127.0.0.1, ::1 and 127.0.0.3), so a vector that
    // slipped through would knock on one of them; the guard sees every other connection attempt.
    const vectors: [name: string, url: string, expect?: 'upstream_failed'][] = [
      ['decimal IPv4', 'http://2130706433:{p}/'],
      ['hex short IPv4', 'http://0x7f.1:{p}/'],
      ['hex IPv4', 'http://0x7f000001:{p}/'],
      ['octal IPv4', 'http://0177.0.0.1:{p}/'],
      ['octal whole IPv4', 'http://017700000001:{p}/'],
      ['short IPv4', 'http://127.1:{p}/'],
      ['zero-padded IPv4', 'http://127.000.000.001:{p}/'],
      ['full-width digits', 'http://１２７.０.０.１:{p}/'],
      ['ideographic full stops', 'http://127。0。0。1:{p}/'],
      ['percent-encoded host', 'http://%31%32%37.0.0.1:{p}/'],
      ['tab and newline inside the host', 'http://12\t7.0.0\n.1:{p}/'],
      ['plain loopback', 'http://127.0.0.1:{p}/'],
      ['another loopback address', 'http://127.0.0.3:{p}/'],
      ['IPv6 loopback', 'http://[::1]:{p}/'],
      ['IPv6 unspecified', 'http://[::]:{p}/'],
      ['IPv4-mapped long form', 'http://[0:0:0:0:0:ffff:127.0.0.1]:{p}/'],
      ['IPv4-mapped hex form', 'http://[::ffff:7f00:1]:{p}/'],
      ['IPv4-compatible', 'http://[::127.0.0.1]:{p}/'],
      ['NAT64 of loopback', 'http://[64:ff9b::7f00:1]:{p}/'],
      ['local-use NAT64', 'http://[64:ff9b:1::808:808]:{p}/'],
      ['6to4 of loopback', 'http://[2002:7f00:1::]:{p}/'],
      ['6to4 of a private address', 'http://[2002:c0a8:101::1]/'],
      ['Teredo', 'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/'],
      ['IPv6 scope id', 'http://[fe80::1%25eth0]:{p}/'],
      ['IPv6 link-local', 'http://[fe80::1]:{p}/'],
      ['IPv6 unique local', 'http://[fd00::1]/'],
      ['IPv6 site-local', 'http://[fec0::1]/'],
      ['IPv6 multicast', 'http://[ff02::1]/'],
      ['IPv6 documentation', 'http://[2001:db8::1]/'],
      ['IPv4-mapped metadata address', 'http://[::ffff:a9fe:a9fe]/'],
      ['0.0.0.0', 'http://0.0.0.0:{p}/'],
      ['0 (all zeros shorthand)', 'http://0:{p}/'],
      ['10/8', 'http://10.0.0.1/'],
      ['172.16/12', 'http://172.16.0.1/'],
      ['172.16/12 top', 'http://172.31.255.254/'],
      ['192.168/16', 'http://192.168.1.1/'],
      ['CGNAT 100.64/10', 'http://100.64.0.1/'],
      ['cloud metadata 169.254.169.254', 'http://169.254.169.254/latest/meta-data/'],
      ['multicast', 'http://224.0.0.1/'],
      ['reserved 240/4', 'http://240.0.0.1/'],
      ['broadcast', 'http://255.255.255.255/'],
      ['benchmarking 198.18/15', 'http://198.18.0.1/'],
      ['documentation 192.0.2/24', 'http://192.0.2.1/'],
      ['documentation 203.0.113/24', 'http://203.0.113.9/'],
      ['IETF 192.0.0/24', 'http://192.0.0.8/'],
      ['localhost', 'http://localhost:{p}/'],
      ['LOCALHOST with a trailing dot', 'http://LOCALHOST.:{p}/'],
      ['a .localhost name', 'http://foo.localhost:{p}/'],
      ['localhost.localdomain', 'http://localhost.localdomain:{p}/'],
      ['metadata.google.internal', 'http://metadata.google.internal/computeMetadata/v1/'],
      ['bare metadata', 'http://metadata/'],
      ['an mDNS .local name', 'http://printer.local/'],
      ['a home.arpa name', 'http://nas.home.arpa/'],
      ['userinfo before a loopback host', 'http://user@127.0.0.1:{p}/'],
      ['public-looking userinfo before a loopback host', 'http://example.com@127.0.0.1:{p}/'],
      ['credentials with a public-looking host', 'https://user:secret@lists.example.org/hosts'],
      ['fragment pretending to be a host', 'http://127.0.0.1:{p}#@example.com/'],
      ['backslash pretending to end the host', 'http://127.0.0.1:{p}\\@example.com/'],
      ['file:', 'file:///etc/passwd'],
      ['ftp:', 'ftp://127.0.0.1:{p}/list.txt'],
      ['gopher:', 'gopher://127.0.0.1:{p}/_GET%20/'],
      ['data:', 'data:text/plain,0.0.0.0%20ads.example'],
      ['javascript:', 'javascript:alert(1)'],
      ['ws:', 'ws://127.0.0.1:{p}/'],
      ['not a URL', 'lists.example.org/hosts'],
      ['over-long URL', `http://lists.example.org/${'a'.repeat(2100)}`],
      ['a name resolving to loopback', 'http://loopback.fixture.test:{p}/'],
      ['a name resolving to IPv6 loopback', 'http://loopback6.fixture.test:{p}/'],
      ['a name resolving to a private address', 'http://private.fixture.test/'],
      ['a name resolving to a LAN address', 'http://lan.fixture.test/'],
      ['a name resolving to CGNAT', 'http://cgnat.fixture.test/'],
      ['a name resolving to the metadata address', 'http://metadata.fixture.test/'],
      ['a name resolving to one public and one private address', 'http://mixed.fixture.test/'],
      ['a name with a public A and a unique-local AAAA', 'http://mixed6.fixture.test/'],
      ['a name resolving to IPv4-mapped loopback', 'http://mapped.fixture.test:{p}/'],
      ['a name resolving to NAT64 of a private address', 'http://nat64.fixture.test/'],
      ['a name resolving to a unique-local address', 'http://ula.fixture.test/'],
      ['a name resolving to a link-local address', 'http://linklocal6.fixture.test/'],
      ['a name that does not exist', 'http://nowhere.fixture.test:{p}/', 'upstream_failed'],
    ];

    test(`the table holds at least 40 vectors (${vectors.length})`, () => {
      assert.ok(vectors.length >= 40);
    });

    for (const [name, template, expect] of vectors) {
      test(`${name}: ${template.slice(0, 60)}`, async () => {
        const url = template.replaceAll('{p}', String(listener4.port));
        const attemptsBefore = guard.attempts.length;
        const fetcher = closed();
        const outcome = await fetcher.fetch(url).then(
          () => null,
          (err: unknown) => err,
        );
        assert.deepEqual(guard.attempts.slice(attemptsBefore), [], 'no connection attempted');
        assert.equal(listener4.connections, 0);
        assert.equal(listener6?.connections ?? 0, 0);
        assert.equal(listener3.connections, 0);
        const check = expect ? expectUpstreamFailed : expectRefused;
        const err = await check(Promise.reject(outcome ?? new Error('the fetch succeeded')));
        assert.match(err.message, /^[A-Z].*\.$/s, 'a sentence for people');
        await check(fetcher.check(url));
      });
    }
  });

  test('says in words why a URL is refused', async () => {
    const fetcher = closed();
    const loopback = await expectRefused(fetcher.fetch('http://127.0.0.1/'));
    assert.match(loopback.message, /127\.0\.0\.1: it is a loopback address/);
    assert.match(loopback.message, /HEARTH_FETCH_ALLOW_CIDRS/);
    const resolved = await expectRefused(fetcher.fetch('http://private.fixture.test/'));
    assert.match(resolved.message, /private\.fixture\.test \(10\.1\.2\.3\): it is a private network address/);
    const scheme = await expectRefused(fetcher.fetch('ftp://lists.example.org/'));
    assert.match(scheme.message, /^Only http:\/\/ and https:\/\/ addresses/);
    const nat64 = await expectRefused(fetcher.fetch('http://[64:ff9b::7f00:1]/'));
    assert.match(nat64.message, /the NAT64 form of a loopback address/);
  });

  test('HEARTH_FETCH_ALLOW_CIDRS opens its addresses only: not local names, credentials or other networks', async () => {
    const site = await serve((_req, res) => res.end('0.0.0.0 ads.example\n'));
    try {
      const fetcher = new SafeFetcher({ allowCidrs: ['127.0.0.1/32'], dnsServers: [dns.server] });
      assert.equal((await fetcher.fetch(site.url('/list'))).status, 200);
      assert.equal((await fetcher.check(site.url('/list'))).hostname, '127.0.0.1');
      for (const url of [
        `http://localhost:${site.port}/`,
        `http://user@127.0.0.1:${site.port}/`,
        `http://127.0.0.3:${site.port}/`,
        `http://[::1]:${site.port}/`,
        `http://[::ffff:127.0.0.3]:${site.port}/`,
      ]) {
        await expectRefused(fetcher.fetch(url));
      }
      assert.equal(site.requests.length, 1);
      assert.equal(listener3.connections, 0);
    } finally {
      await close(site.server);
    }
  });

  test('an IPv4-mapped address counts as its IPv4 address for HEARTH_FETCH_ALLOW_CIDRS', async () => {
    const fetcher = new SafeFetcher({ allowCidrs: ['127.0.0.1/32'], dnsServers: [dns.server] });
    assert.equal((await fetcher.check('http://[::ffff:127.0.0.1]/')).hostname, '[::ffff:7f00:1]');
    await expectRefused(fetcher.check('http://[::ffff:127.0.0.2]/'));
  });

  test('the server builds services.safeFetcher from HEARTH_FETCH_ALLOW_CIDRS and HEARTH_FETCH_DNS_SERVERS', async () => {
    const site = await serve((_req, res) => res.end('||ads.example^\n'));
    const server = await startTestServer(undefined, {
      HEARTH_FETCH_ALLOW_CIDRS: '127.0.0.1/32',
      HEARTH_FETCH_DNS_SERVERS: dns.server,
    });
    try {
      const { safeFetcher } = server.services;
      const answer = await safeFetcher.fetch(`http://lists.fixture.test:${site.port}/`);
      assert.equal(answer.body.toString(), '||ads.example^\n');
      await expectRefused(safeFetcher.fetch('http://private.fixture.test/'));
      await expectRefused(safeFetcher.fetch(`http://127.0.0.3:${listener3.port}/`));
      assert.equal(listener3.connections, 0);
    } finally {
      await server.close();
      await close(site.server);
    }
  });

  describe('answers', () => {
    test('200 with its ETag, the body and the headers, the Host header naming the host', async () => {
      const site = await serve((_req, res) => {
        res.writeHead(200, { etag: '"v1"', 'last-modified': 'Tue, 01 Jul 2025 10:00:00 GMT' });
        res.end('0.0.0.0 ads.example\n0.0.0.0 tracker.example\n');
      });
      try {
        const questionsBefore = dns.asked('lists.fixture.test', 'A');
        const url = `http://lists.fixture.test:${site.port}/hosts.txt`;
        const answer = await opened().fetch(url);
        assert.equal(answer.status, 200);
        assert.equal(answer.url, url);
        assert.equal(answer.headers.etag, '"v1"');
        assert.equal(answer.headers['last-modified'], 'Tue, 01 Jul 2025 10:00:00 GMT');
        assert.equal(answer.body.toString(), '0.0.0.0 ads.example\n0.0.0.0 tracker.example\n');
        assert.equal(site.requests[0]?.headers.host, `lists.fixture.test:${site.port}`);
        assert.equal(dns.asked('lists.fixture.test', 'A') - questionsBefore, 1, 'resolved once');
      } finally {
        await close(site.server);
      }
    });

    test('304 passes through with the conditional headers sent', async () => {
      const site = await serve((req, res) => {
        if (req.headers['if-none-match'] === '"v1"') {
          res.writeHead(304, { etag: '"v1"', 'content-encoding': 'gzip' });
          res.end();
        } else res.end('fresh');
      });
      try {
        const answer = await opened().fetch(site.url('/'), {
          'If-None-Match': '"v1"',
          'If-Modified-Since': 'Tue, 01 Jul 2025 10:00:00 GMT',
        });
        assert.equal(answer.status, 304);
        assert.equal(answer.headers.etag, '"v1"');
        assert.equal(answer.body.length, 0);
        assert.equal(site.requests[0]?.headers['if-modified-since'], 'Tue, 01 Jul 2025 10:00:00 GMT');
      } finally {
        await close(site.server);
      }
    });

    test('500 and 404 are 502 upstream_failed naming the status', async () => {
      const site = await serve((req, res) => {
        res.statusCode = req.url === '/gone' ? 404 : 500;
        res.end('oops');
      });
      try {
        const err = await expectUpstreamFailed(opened().fetch(site.url('/')));
        assert.match(err.message, /status 500/);
        assert.match((await expectUpstreamFailed(opened().fetch(site.url('/gone')))).message, /status 404/);
      } finally {
        await close(site.server);
      }
    });

    test('gzip, deflate and br bodies are decoded', async () => {
      const text = '||ads.example^\n'.repeat(1000);
      const encoded: Record<string, Buffer> = {
        gzip: gzipSync(text),
        deflate: deflateSync(text),
        br: brotliCompressSync(text),
      };
      const site = await serve((req, res) => {
        const coding = (req.url ?? '').slice(1);
        res.writeHead(200, { 'content-encoding': coding });
        res.end(encoded[coding]);
      });
      try {
        for (const coding of Object.keys(encoded)) {
          const answer = await opened().fetch(site.url(`/${coding}`));
          assert.equal(answer.body.toString(), text, coding);
        }
        assert.match(site.requests[0]?.headers['accept-encoding'] ?? '', /gzip/);
      } finally {
        await close(site.server);
      }
    });

    test('a refused connection is 502 in words', async () => {
      const spare = await mustListen('127.0.0.1');
      const port = spare.port;
      await spare.close();
      const err = await expectUpstreamFailed(opened().fetch(`http://127.0.0.1:${port}/`));
      assert.match(err.message, /refused the connection/);
    });
  });

  describe('redirects', () => {
    test('a relative redirect is followed and the final URL reported', async () => {
      const site = await serve((req, res) => {
        if (req.url === '/old') {
          res.writeHead(302, { location: '/new/list.txt' });
          res.end();
        } else res.end(`at ${req.url}`);
      });
      try {
        const answer = await opened().fetch(`http://lists.fixture.test:${site.port}/old`);
        assert.equal(answer.status, 200);
        assert.equal(answer.body.toString(), 'at /new/list.txt');
        assert.equal(answer.url, `http://lists.fixture.test:${site.port}/new/list.txt`);
      } finally {
        await close(site.server);
      }
    });

    test('each hop is checked again: a redirect to a refused URL is 400 and opens nothing there', async () => {
      const targets = [
        `http://127.0.0.3:${listener3.port}/`,
        `http://localhost:${listener4.port}/`,
        `http://private.fixture.test:${listener4.port}/`,
        `http://user@127.0.0.1:${listener4.port}/`,
        'file:///etc/passwd',
        `http://[::1]:${listener4.port}/`,
      ];
      const site = await serve((req, res) => {
        res.writeHead(301, { location: targets[Number((req.url ?? '').slice(1))] ?? '' });
        res.end();
      });
      try {
        // Only the first hop's own address is opened.
        const fetcher = opened({ allowCidrs: ['127.0.0.1/32'] });
        for (const [index, target] of targets.entries()) {
          const err = await expectRefused(fetcher.fetch(site.url(`/${index}`)));
          assert.match(err.message, /redirected to/, target);
        }
        assert.equal(site.requests.length, targets.length);
        assert.equal(listener3.connections, 0);
        assert.equal(listener4.connections, 0);
        assert.equal(listener6?.connections ?? 0, 0);
      } finally {
        await close(site.server);
      }
    });

    test('five redirects are followed, a sixth is 502', async () => {
      const site = await serve((req, res) => {
        const left = Number((req.url ?? '').slice(1));
        if (left > 0) {
          res.writeHead(307, { location: `/${left - 1}` });
          res.end();
        } else res.end('arrived');
      });
      try {
        assert.equal((await opened().fetch(site.url('/5'))).body.toString(), 'arrived');
        const before = site.requests.length;
        const err = await expectUpstreamFailed(opened().fetch(site.url('/6')));
        assert.match(err.message, /redirected more than 5 times/);
        assert.equal(site.requests.length - before, 6, 'the sixth redirect is not followed');
      } finally {
        await close(site.server);
      }
    });

    test('a redirect loop is 502', async () => {
      const site = await serve((req, res) => {
        res.writeHead(302, { location: req.url === '/a' ? '/b' : '/a' });
        res.end();
      });
      try {
        await expectUpstreamFailed(opened().fetch(site.url('/a')));
        assert.equal(site.requests.length, 6);
      } finally {
        await close(site.server);
      }
    });
  });

  describe('limits', () => {
    test('a body over the cap is 502, announced or not', async () => {
      const site = await serve((req, res) => {
        if (req.url === '/announced') res.setHeader('content-length', '5000');
        res.end('x'.repeat(5000));
      });
      try {
        for (const path of ['/announced', '/chunked']) {
          const err = await expectUpstreamFailed(opened({ maxBytes: 1000 }).fetch(site.url(path)));
          assert.match(err.message, /larger than 1000 bytes/);
        }
        assert.equal((await opened({ maxBytes: 5000 }).fetch(site.url('/chunked'))).body.length, 5000);
      } finally {
        await close(site.server);
      }
    });

    test('a slow drip hits the deadline: 502', async () => {
      const drips = new Set<NodeJS.Timeout>();
      const site = await serve((_req, res) => {
        res.writeHead(200);
        const drip = setInterval(() => res.write('0.0.0.0 slow.example\n'), 20);
        drips.add(drip);
        res.on('close', () => clearInterval(drip));
      });
      try {
        const started = Date.now();
        const err = await expectUpstreamFailed(opened({ timeoutMs: 300 }).fetch(site.url('/')));
        assert.match(err.message, /took longer than 300 ms/);
        assert.ok(Date.now() - started < 30_000, 'the deadline ended the endless drip');
      } finally {
        for (const drip of drips) clearInterval(drip);
        await close(site.server);
      }
    });

    test('a gzip bomb stops at the cap on the decoded side: 502 long before the stream ends', async () => {
      let sent = 0;
      let responseClosed!: () => void;
      const closed = new Promise<void>((resolve) => {
        responseClosed = resolve;
      });
      const site = await serve((_req, res) => {
        const zeros = Buffer.alloc(64 * 1024);
        // Endless: only a cap counted while decoding can end this fetch before its deadline.
        const endless = new Readable({
          read() {
            this.push(zeros);
          },
        });
        const gzip = createGzip();
        res.writeHead(200, { 'content-encoding': 'gzip' });
        gzip.on('data', (chunk: Buffer) => {
          sent += chunk.length;
        });
        res.on('close', () => {
          responseClosed();
          endless.destroy();
          gzip.destroy();
        });
        endless.pipe(gzip).pipe(res);
      });
      try {
        const err = await expectUpstreamFailed(opened({ timeoutMs: 10_000 }).fetch(site.url('/')));
        assert.match(err.message, /larger than 20 MiB/);
        assert.ok(sent < 2 * 1024 * 1024, `only a small compressed prefix was needed (${sent} bytes)`);
        await closed;
      } finally {
        await close(site.server);
      }
    });

    test('damaged gzip and unknown encodings are 502', async () => {
      const site = await serve((req, res) => {
        res.writeHead(200, { 'content-encoding': req.url === '/damaged' ? 'gzip' : 'compress' });
        res.end(req.url === '/damaged' ? gzipSync('0.0.0.0 a.example\n').subarray(0, 12) : 'x');
      });
      try {
        assert.match((await expectUpstreamFailed(opened().fetch(site.url('/damaged')))).message, /damaged/);
        assert.match(
          (await expectUpstreamFailed(opened().fetch(site.url('/compress')))).message,
          /unknown encoding/,
        );
      } finally {
        await close(site.server);
      }
    });
  });

  describe('the connection goes to the address that was checked', () => {
    /** Servers on 127.0.0.2 and 127.0.0.3, one port, counting what reaches each. */
    async function twoHosts() {
      const good = await serve((_req, res) => res.end('from 127.0.0.2'), '127.0.0.2');
      const bad = await CountingListener.start('127.0.0.3', good.port);
      assert.ok(bad, '127.0.0.3 can be bound on the same port');
      return { good, bad };
    }

    test('DNS rebinding: allowed on the first answer, private on later ones — only the checked address is reached', async () => {
      const { good, bad } = await twoHosts();
      dynamic.set('rebind.fixture.test', (type, asked) =>
        type === 'A' ? [asked === 0 ? '127.0.0.2' : '127.0.0.3'] : [],
      );
      try {
        const fetcher = opened({ allowCidrs: ['127.0.0.2/32'] });
        const url = `http://rebind.fixture.test:${good.port}/hosts`;
        const answer = await fetcher.fetch(url);
        assert.equal(answer.body.toString(), 'from 127.0.0.2');
        assert.equal(good.requests.length, 1);
        assert.equal(dns.asked('rebind.fixture.test', 'A'), 1, 'one lookup for the fetch');
        // The next fetch hears the new answer, checks it and refuses it.
        await expectRefused(fetcher.fetch(url));
        assert.equal(bad.connections, 0);
        assert.equal(good.requests.length, 1);
      } finally {
        dynamic.delete('rebind.fixture.test');
        await close(good.server);
        await bad.close();
      }
    });

    test('DNS rebinding the other way: a refused first answer opens nothing, even when a later one is allowed', async () => {
      const { good, bad } = await twoHosts();
      dynamic.set('rebind-back.fixture.test', (type, asked) =>
        type === 'A' ? [asked === 0 ? '127.0.0.3' : '127.0.0.2'] : [],
      );
      try {
        const fetcher = opened({ allowCidrs: ['127.0.0.2/32'] });
        await expectRefused(fetcher.fetch(`http://rebind-back.fixture.test:${good.port}/hosts`));
        assert.equal(dns.asked('rebind-back.fixture.test', 'A'), 1);
        assert.equal(bad.connections, 0);
        assert.equal(good.requests.length, 0);
      } finally {
        dynamic.delete('rebind-back.fixture.test');
        await close(good.server);
        await bad.close();
      }
    });

    test('an IPv6-only name reaches ::1 when ::1 is allowed', async (t) => {
      if (!listener6) return t.skip('no IPv6 loopback here');
      const site = await serve((_req, res) => res.end('over IPv6'), '::1');
      try {
        const fetcher = new SafeFetcher({ allowCidrs: ['::1/128'], dnsServers: [dns.server] });
        const answer = await fetcher.fetch(`http://loopback6.fixture.test:${site.port}/`);
        assert.equal(answer.body.toString(), 'over IPv6');
      } finally {
        await close(site.server);
      }
    });

    test('HTTPS keeps the host name for SNI and the certificate check while connecting to the checked address', async () => {
      const names: string[] = [];
      const context = createSecureContext({ key: TEST_TLS.key, cert: TEST_TLS.cert });
      const server = createTlsServer({
        ...TEST_TLS,
        SNICallback: (servername, done) => {
          names.push(servername);
          done(null, context);
        },
      });
      server.on('tlsClientError', () => {});
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as { port: number }).port;
      dynamic.set(TEST_TLS.name, (type) => (type === 'A' ? ['127.0.0.1'] : []));
      try {
        // The certificate is self-signed, so the fetch fails on trust, after SNI named the host.
        const err = await expectUpstreamFailed(opened().fetch(`https://${TEST_TLS.name}:${port}/list`));
        assert.match(err.message, /certificate/);
        assert.deepEqual(names, [TEST_TLS.name]);
      } finally {
        dynamic.delete(TEST_TLS.name);
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });
  });
});
