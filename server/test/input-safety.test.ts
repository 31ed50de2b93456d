import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { SimAgent } from '../../bench/src/simulator.js';
import { createDevice, describeWithServer, enrollmentToken, type Reply } from './helpers.js';

const NUL = '\u0000';

/** One route of the route table with every `:param` (and `*`) filled in. */
const fill = (url: string, value: string) =>
  url.replace(/:[A-Za-z_]+/g, encodeURIComponent(value)).replace('*', encodeURIComponent(value));

const expect400 = (res: Reply, label: string) => {
  assert.equal(res.status, 400, `${label}: ${res.status} ${res.text.slice(0, 300)}`);
  assert.equal(res.body.error.code, 'invalid_request', label);
  assert.match(res.body.error.message, /NUL character/, label);
};

/** Sends raw bytes on a fresh connection and reads the whole answer until the server closes. */
function rawHttp(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(bytes));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (d) => {
      text += d;
    });
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

function envelopeOf(raw: string): { status: number; body: { error: { code: string; message: string } } } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);
  const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  return { status, body: JSON.parse(body) };
}

describeWithServer(
  'U+0000, deep JSON and Fastify errors',
  { household: 'Input home', env: { HEARTH_OPEN_SIGNUP: 'true' } },
  (ctx) => {
    test('every route of the route table refuses U+0000 in a path parameter, the query and the body', async () => {
      const device = await createDevice(ctx.server, ctx.home.householdId);
      const client = ctx.home.client;
      const routes = ctx.server.app.routeTable.filter((r) => r.url !== '/ws');
      assert.ok(routes.length > 40, `only ${routes.length} routes`);
      for (const route of routes) {
        const headers: Record<string, string> =
          route.access === 'bearer' ? { authorization: `Bearer ${device.secure_token}` } : {};
        const label = `${route.method} ${route.url}`;
        const url = fill(route.url, 'ok');
        const send = (target: string, options: Parameters<typeof client.request>[2] = {}) =>
          client.request(route.method, target, { ...options, headers: { ...headers, ...options.headers } });

        expect400(await send(`${url}${url.includes('?') ? '&' : '?'}q=a%00b`), `${label} query`);
        if (/[:*]/.test(route.url)) expect400(await send(fill(route.url, `a${NUL}b`)), `${label} path`);
        if (route.method !== 'GET' && route.method !== 'DELETE') {
          // Every string the route knows of, and one it does not, carries the character.
          const body = {
            username: `mum${NUL}`,
            password: `correct horse${NUL} battery`,
            name: `Ann${NUL}`,
            household_name: `Home${NUL}`,
            system_id: `x${NUL}`,
            linux_username: `ann${NUL}`,
            reason: `x${NUL}`,
            message: `please${NUL}`,
            note: `n${NUL}`,
          };
          expect400(await send(url, { json: body }), `${label} JSON body`);
          expect400(await send(url, { json: { nested: [{ deep: `x${NUL}` }] } }), `${label} nested JSON`);
          expect400(await send(url, { json: { [`key${NUL}`]: 'value' } }), `${label} JSON key`);
          expect400(
            await send(url, { form: Object.fromEntries(Object.entries(body)) }),
            `${label} form body`,
          );
        }
      }
    });

    test('sign-in, setup and sign-up answer 400 (not 500) for U+0000, without a session', async () => {
      for (const [url, body] of [
        ['/api/session', { username: `mum${NUL}`, password: 'whatever it is' }],
        ['/api/setup', { username: `mum${NUL}`, password: 'long enough password', household_name: 'H' }],
        ['/api/signup', { username: `new${NUL}`, password: 'long enough password', household_name: 'H' }],
      ] as const) {
        const res = await fetch(`${ctx.server.url}${url}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const answer = (await res.json()) as { error: { code: string; message: string } };
        assert.equal(res.status, 400, url);
        assert.equal(answer.error.code, 'invalid_request');
        assert.equal(
          answer.error.message,
          'Invalid request: body/username contains a NUL character (U+0000), which Hearth does not accept in any text.',
        );
      }
    });

    test('JSON nested 100,000 levels deep is a 400, in a body and in a field', async () => {
      const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
      for (const raw of [deep, `{"username":${deep},"password":"x"}`]) {
        const res = await ctx.home.client.request('POST', '/api/session', {
          raw,
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(res.status, 400);
        assert.equal(res.body.error.code, 'invalid_request');
        assert.match(res.body.error.message, /nests deeper than 64 levels/);
      }
      // 64 levels are still JSON like any other (here the wrong shape: 400 from the schema).
      const ok = await ctx.home.client.request('POST', '/api/session', {
        raw: `${'['.repeat(64)}${']'.repeat(64)}`,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(ok.status, 400);
      assert.doesNotMatch(ok.body.error.message, /nests deeper/);
      // Brackets inside strings do not count.
      const inString = await ctx.home.client.request('POST', '/api/session', {
        raw: JSON.stringify({ username: '['.repeat(200), password: '{"'.repeat(400) }),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(inString.status, 401);
    });

    test('the agent channel closes with 4400 on a frame with U+0000 or nested too deep', async () => {
      const token = await enrollmentToken(ctx.home);
      const hello = new SimAgent({ url: ctx.server.wsUrl, enrollmentToken: token, hostname: `pc${NUL}` });
      const refused = await hello.connect();
      assert.equal(refused.type, 'closed');
      assert.equal(refused.code, 4400);
      assert.match(String(refused.reason), /NUL character/);
      assert.equal(
        (await ctx.home.client.get('/api/devices/pending')).body.items.some(
          (d: { system_id: string }) => d.system_id === hello.systemId,
        ),
        false,
      );

      // A paired agent's report with the character: the same refusal, nothing stored.
      const agent = new SimAgent({ url: ctx.server.wsUrl, enrollmentToken: token });
      await agent.connect();
      const approved = agent.waitFor('pairing_approved');
      assert.equal((await ctx.home.client.post(`/api/device/approve/${agent.systemId}`)).status, 200);
      await approved;
      const closed = agent.waitForClose();
      agent.send({ type: 'usage_report', linux_username: `kid${NUL}`, date: '2026-01-01', seconds_used: 60 });
      assert.equal((await closed).code, 4400);
      await agent.stop();

      const deep = new SimAgent({ url: ctx.server.wsUrl, enrollmentToken: token });
      await deep.connect();
      const deepClosed = deep.waitForClose();
      deep.socket?.send(`{"type":"usage_report","x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
      const info = await deepClosed;
      assert.equal(info.code, 4400);
      assert.match(info.reason, /nest at most 64 levels/);
      await deep.stop();
      await hello.stop();
    });

    test("Fastify's own errors answer in the envelope: 414, bad URL encoding, malformed HTTP", async () => {
      const long = envelopeOf(
        await rawHttp(
          ctx.server.url,
          `GET /api/user/${'a'.repeat(300)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        ),
      );
      assert.equal(long.status, 414);
      assert.deepEqual(long.body, {
        error: { code: 'invalid_request', message: 'The address is too long.' },
      });

      const badEncoding = envelopeOf(
        await rawHttp(
          ctx.server.url,
          'GET /api/user/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
        ),
      );
      assert.equal(badEncoding.status, 400);
      assert.equal(badEncoding.body.error.code, 'invalid_request');
      assert.match(badEncoding.body.error.message, /malformed/);

      for (const garbage of [
        'GARBAGE\r\n\r\n',
        'GET / HTTP/9.9\r\nHost: x\r\n\r\n',
        'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n',
      ]) {
        const malformed = envelopeOf(await rawHttp(ctx.server.url, garbage));
        assert.equal(malformed.status, 400, JSON.stringify(garbage));
        assert.deepEqual(malformed.body, {
          error: { code: 'invalid_request', message: 'The request is not valid HTTP.' },
        });
      }
      const huge = envelopeOf(
        await rawHttp(
          ctx.server.url,
          `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
        ),
      );
      assert.equal(huge.status, 431);
      assert.equal(huge.body.error.code, 'invalid_request');
    });
  },
);
