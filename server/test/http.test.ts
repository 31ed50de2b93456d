import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HEARTH_VERSION } from '@hearth/protocol';
import { buildApp } from '../src/app.js';
import { Client, createHousehold, describeWithServer, startTestServer } from './helpers.js';

describeWithServer('HTTP core', {}, (ctx) => {
  test('/healthz reports ok and the version', async () => {
    const res = await new Client(ctx.server.url).get('/healthz');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ok', version: HEARTH_VERSION });
    assert.equal(HEARTH_VERSION, '0.57.0');
  });

  test('unknown paths answer 404 and known paths with another method 405, both in the envelope', async () => {
    const c = new Client(ctx.server.url);
    const missing = await c.get('/api/nothing-here');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'not_found');
    assert.equal(typeof missing.body.error.message, 'string');

    const wrongMethod = await c.request('PUT', '/healthz');
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.body.error.code, 'method_not_allowed');
    assert.equal(wrongMethod.headers.get('allow'), 'GET');
    const getOnPost = await c.get('/managed-users/add');
    assert.equal(getOnPost.status, 405);
    assert.equal(getOnPost.headers.get('allow'), 'POST');
    const paramRoute = await c.request('DELETE', '/managed-users/abc/overlay');
    assert.equal(paramRoute.status, 405);
    assert.equal(paramRoute.headers.get('allow'), 'PATCH');
  });

  test('the OpenAPI document describes the routes and the docs page is served', async () => {
    const c = new Client(ctx.server.url);
    const spec = await c.get('/api/openapi.json');
    assert.equal(spec.status, 200);
    assert.equal(spec.body.info.version, HEARTH_VERSION);
    assert.ok(spec.body.paths['/api/users'].get);
    assert.ok(spec.body.paths['/managed-users/{user_id}/overlay'].patch.requestBody);
    assert.deepEqual(spec.body.paths['/api/users'].get.security, [{ session: [], csrf: [] }]);
    const docs = await fetch(`${ctx.server.url}/api/docs`, { redirect: 'follow' });
    assert.equal(docs.status, 200);
    assert.match(await docs.text(), /swagger/i);
  });

  test('a form body that is not a form, or a body on a route without one, is a clear 400', async () => {
    const home = await createHousehold(ctx.server, 'HTTP home');
    const res = await home.client.request('POST', '/api/user/create', {
      raw: 'name',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'invalid_request');
    const empty = await home.client.request('POST', '/api/user/create', {
      raw: '',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(empty.status, 400);
    const formTooBig = await home.client.request('POST', '/managed-users/add', {
      form: { name: 'x'.repeat(1024 * 1024 + 1) },
    });
    assert.equal(formTooBig.status, 413);
    assert.equal(formTooBig.body.error.code, 'payload_too_large');
  });

  test('a route registered without an access declaration stops the app', async () => {
    const app = await buildApp({ config: ctx.server.config, services: ctx.server.services });
    try {
      assert.throws(() => app.get('/api/undeclared', async () => ({})), /declares no access/);
      app.get('/api/declared', { config: { access: 'public' } }, async () => ({}));
    } finally {
      await app.close();
    }
  });
});

describe('health when the database is gone', () => {
  test('/healthz answers 503 once the database cannot be reached', async () => {
    const server = await startTestServer();
    try {
      await server.services.db.close();
      const res = await new Client(server.url).get('/healthz');
      assert.equal(res.status, 503);
      assert.equal(res.body.error.code, 'unavailable');
    } finally {
      await server.app.close();
    }
  });
});

describe('static pages and the agent channel over plain HTTP', () => {
  test('the UI, Hearth Space and assets carry the right caching; a plain GET of /ws gets the envelope', async () => {
    const server = await startTestServer();
    try {
      const overlay = await fetch(`${server.url}/overlay/blockedv2.html`);
      assert.equal(overlay.status, 200);
      assert.match(overlay.headers.get('content-type') ?? '', /text\/html/);
      assert.equal(overlay.headers.get('cache-control'), 'no-cache');
      const index = await fetch(`${server.url}/children/some-child`, { headers: { accept: 'text/html' } });
      assert.equal(index.status, 200);
      assert.equal(index.headers.get('cache-control'), 'no-cache');
      const html = await index.text();
      const asset = /\/assets\/[^"]+\.js/.exec(html)?.[0];
      assert.ok(asset, 'the page links a built script');
      const script = await fetch(`${server.url}${asset}`);
      assert.equal(script.status, 200);
      assert.equal(script.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      const ws = await fetch(`${server.url}/ws`);
      assert.equal(ws.status, 400);
      assert.equal(((await ws.json()) as { error: { code: string } }).error.code, 'invalid_request');
      // A JSON client asking for a UI path gets the envelope, not the page.
      assert.equal((await fetch(`${server.url}/children/some-child`)).status, 404);
    } finally {
      await server.close();
    }
  });
});
