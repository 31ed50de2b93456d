import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ALLOW_LOOPBACK, hostsList, ListServer, until } from './blocklists-fixture.js';
import { addParent, Client, createHousehold, describeWithServer } from './helpers.js';

describeWithServer('blocklists: sources', { household: 'List home', env: ALLOW_LOOPBACK }, (ctx) => {
  const lists = new ListServer();
  before(() => lists.start());
  after(() => lists.close());

  const sourceOf = async (client: Client, id: string) =>
    (await client.get('/api/blocklists/sources')).body.items.find((s: { id: string }) => s.id === id);

  test('a manual list: JSON list or pasted text, normalised, counted, listed newest first; renamed and edited', async () => {
    const owner = ctx.home.client;
    const made = await owner.post('/blocklists/sources/add', {
      name: 'Homework time',
      kind: 'manual',
      domains: ['Games.Example.com', 'video.example.org.', 'not a domain', 'games.example.com'],
    });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.kind, 'manual');
    assert.equal(made.body.url, null);
    assert.equal(made.body.format, 'auto');
    assert.equal(made.body.detected_format, 'domains');
    assert.equal(made.body.domain_count, 2);
    assert.equal(made.body.skipped_lines, 1);
    assert.equal(made.body.last_error, null);
    const pasted = await owner.post('/blocklists/sources/add', {
      name: 'Pasted hosts',
      kind: 'manual',
      domains: hostsList(['ads.example.com', 'tracker.example.net']),
    });
    assert.equal(pasted.status, 201, pasted.text);
    assert.equal(pasted.body.detected_format, 'hosts');
    assert.equal(pasted.body.domain_count, 2);
    assert.equal(pasted.body.skipped_lines, 0);

    const listed = (await owner.get('/api/blocklists/sources')).body.items.map((s: { id: string }) => s.id);
    assert.deepEqual(listed.slice(0, 2), [pasted.body.id, made.body.id]);

    const edited = await owner.patch(`/api/blocklists/sources/${made.body.id}`, {
      name: 'School nights',
      domains: 'games.example.com\nsocial.example.net\n',
    });
    assert.equal(edited.status, 200, edited.text);
    assert.equal(edited.body.name, 'School nights');
    assert.equal(edited.body.domain_count, 2);
    assert.equal(edited.body.skipped_lines, 0);

    // A browser form: the CSRF token as a field, the list as a textarea.
    const form = await owner.request('POST', '/blocklists/sources/add', {
      form: {
        name: 'From the form',
        kind: 'manual',
        format: 'domains',
        url: '',
        domains: 'one.example\ntwo.example',
        csrf_token: owner.csrf ?? '',
      },
      csrf: false,
    });
    assert.equal(form.status, 201, form.text);
    assert.equal(form.body.domain_count, 2);
    assert.equal(form.body.format, 'domains');
    const noToken = await owner.request('POST', '/blocklists/sources/add', {
      form: { name: 'x', kind: 'manual' },
      csrf: false,
    });
    assert.equal(noToken.status, 403);
    assert.equal(noToken.body.error.code, 'csrf_failed');

    const removed = await owner.delete(`/api/blocklists/sources/${form.body.id}`);
    assert.deepEqual(removed.body, { id: form.body.id, deleted: true });
    assert.equal(await sourceOf(owner, form.body.id), undefined);
    assert.equal((await owner.delete(`/api/blocklists/sources/${form.body.id}`)).status, 404);
  });

  test('bad input is refused with the envelope and changes nothing', async () => {
    const owner = ctx.home.client;
    const before = (await owner.get('/api/blocklists/sources')).body.items.length;
    for (const [body, code] of [
      [{ name: 'x', kind: 'url' }, 'invalid_request'],
      [{ name: 'x', kind: 'url', url: 'http://127.0.0.1:1/x', domains: ['a.example'] }, 'invalid_request'],
      [{ name: 'x', kind: 'manual', url: 'http://127.0.0.1:1/x' }, 'invalid_request'],
      [{ name: 'x', kind: 'ftp' }, 'invalid_request'],
      [{ name: '', kind: 'manual' }, 'invalid_request'],
      [{ name: 'x', kind: 'manual', format: 'csv' }, 'invalid_request'],
      [{ name: 'x', kind: 'manual', extra: 1 }, 'invalid_request'],
      [{ name: 'x', kind: 'url', url: 'file:///etc/passwd' }, 'url_not_allowed'],
      [{ name: 'x', kind: 'url', url: 'not a url' }, 'url_not_allowed'],
    ] as const) {
      const res = await owner.post('/blocklists/sources/add', body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.body.error.code, code, JSON.stringify(body));
      assert.equal(typeof res.body.error.message, 'string');
    }
    assert.equal((await owner.get('/api/blocklists/sources')).body.items.length, before);
    const manual = (await owner.post('/blocklists/sources/add', { name: 'm', kind: 'manual', domains: [] }))
      .body;
    assert.equal(manual.domain_count, 0);
    const refresh = await owner.post(`/blocklists/sources/${manual.id}/refresh`);
    assert.equal(refresh.status, 400);
    assert.equal(refresh.body.error.code, 'invalid_request');
    const url = lists.set('/patch-me.txt', { body: 'a.example\n' });
    const source = (await owner.post('/blocklists/sources/add', { name: 'u', kind: 'url', url })).body;
    const patch = await owner.patch(`/api/blocklists/sources/${source.id}`, { domains: ['b.example'] });
    assert.equal(patch.status, 400);
    assert.equal((await owner.patch(`/api/blocklists/sources/${source.id}`, { bogus: 1 })).status, 400);
    assert.equal((await owner.post('/api/blocklists/preview', { url: 'gopher://127.0.0.1/' })).status, 400);
  });

  test('a url source answers 201 at once; its first fetch runs by itself and fills it in', async () => {
    const owner = ctx.home.client;
    const url = lists.set('/first.txt', {
      body: hostsList(['ads.example.com', 'pixel.example.org', 'beacon.example.org']),
      etag: '"v1"',
    });
    const made = await owner.post('/blocklists/sources/add', { name: 'Ads', kind: 'url', url });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.url, url);
    assert.equal(made.body.format, 'auto');
    const filled = await until(
      () => sourceOf(owner, made.body.id),
      (s) => s.last_attempt_at !== null,
    );
    assert.equal(filled.last_error, null);
    assert.equal(filled.domain_count, 3);
    assert.equal(filled.detected_format, 'hosts');
    assert.equal(filled.etag, '"v1"');
    assert.ok(filled.last_refreshed_at);
    assert.equal(lists.requestsTo('/first.txt').length, 1);
    // The first fetch had nothing to keep, so it was not conditional.
    assert.equal(lists.requestsTo('/first.txt')[0]?.headers['if-none-match'], undefined);
  });

  test('refresh: 304 keeps the content, 200 replaces it, a failure keeps the last good content and records why', async () => {
    const owner = ctx.home.client;
    const url = lists.set('/refresh.txt', {
      body: hostsList(['one.example.com', 'two.example.com']),
      etag: '"r1"',
      lastModified: 'Wed, 21 Oct 2026 07:28:00 GMT',
    });
    const made = (await owner.post('/blocklists/sources/add', { name: 'Refreshing', kind: 'url', url })).body;
    await until(
      () => sourceOf(owner, made.id),
      (s) => s.last_attempt_at !== null,
    );

    const same = await owner.post(`/blocklists/sources/${made.id}/refresh`);
    assert.equal(same.status, 200, same.text);
    assert.equal(same.body.changed, false);
    assert.equal(same.body.source.domain_count, 2);
    const conditional = lists.requestsTo('/refresh.txt').at(-1);
    assert.equal(conditional?.headers['if-none-match'], '"r1"');
    assert.equal(conditional?.headers['if-modified-since'], 'Wed, 21 Oct 2026 07:28:00 GMT');

    lists.set('/refresh.txt', {
      body: hostsList(['one.example.com', 'three.example.com', 'four.example.com']),
      etag: '"r2"',
      gzip: true,
    });
    const changed = await owner.post(`/blocklists/sources/${made.id}/refresh`);
    assert.equal(changed.body.changed, true);
    assert.equal(changed.body.source.domain_count, 3);
    assert.equal(changed.body.source.etag, '"r2"');
    assert.equal(changed.body.source.last_error, null);

    lists.set('/refresh.txt', { status: 500, body: 'oops' });
    const failed = await owner.post(`/blocklists/sources/${made.id}/refresh`);
    assert.equal(failed.status, 502, failed.text);
    assert.equal(failed.body.error.code, 'upstream_failed');
    const kept = await sourceOf(owner, made.id);
    assert.equal(kept.domain_count, 3, 'the last good content stays');
    assert.equal(kept.etag, '"r2"');
    assert.equal(kept.last_refreshed_at, changed.body.source.last_refreshed_at);
    assert.ok(kept.last_error);

    // An answer that holds no domains (an error page served as 200) is a failure too.
    lists.set('/refresh.txt', { body: '<html><body>Sorry</body></html>' });
    const empty = await owner.post(`/blocklists/sources/${made.id}/refresh`);
    assert.equal(empty.status, 502);
    assert.equal((await sourceOf(owner, made.id)).domain_count, 3);

    lists.set('/refresh.txt', { body: hostsList(['one.example.com']), etag: '"r3"' });
    const healed = await owner.post(`/blocklists/sources/${made.id}/refresh`);
    assert.equal(healed.body.changed, true);
    assert.equal(healed.body.source.last_error, null);
    assert.equal(healed.body.source.domain_count, 1);
  });

  test('a first fetch that fails leaves the source empty with its error', async () => {
    const owner = ctx.home.client;
    const made = (
      await owner.post('/blocklists/sources/add', {
        name: 'Gone',
        kind: 'url',
        url: `${lists.base}/missing.txt`,
      })
    ).body;
    const failed = await until(
      () => sourceOf(owner, made.id),
      (s) => s.last_attempt_at !== null,
    );
    assert.equal(failed.domain_count, 0);
    assert.equal(failed.last_refreshed_at, null);
    assert.match(failed.last_error, /404/);
  });

  test('preview: format, the first 20 non-empty lines and the count, nothing stored', async () => {
    const owner = ctx.home.client;
    const text = `[Adblock Plus 2.0]\n! Title: preview\n\n${Array.from({ length: 30 }, (_, i) => `||ad${i}.example^`).join('\n')}\n`;
    const url = lists.set('/preview.txt', { body: text });
    const before = (await owner.get('/api/blocklists/sources')).body.items.length;
    const res = await owner.post('/api/blocklists/preview', { url });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.format, 'adblock');
    assert.equal(res.body.domain_count, 30);
    assert.equal(res.body.first_lines.length, 20);
    assert.equal(res.body.first_lines[0], '[Adblock Plus 2.0]');
    assert.equal(res.body.first_lines[2], '||ad0.example^');
    assert.equal((await owner.get('/api/blocklists/sources')).body.items.length, before);
    const failed = await owner.post('/api/blocklists/preview', { url: `${lists.base}/nothing-here` });
    assert.equal(failed.status, 502);
    assert.equal(failed.body.error.code, 'upstream_failed');
  });

  test('any parent sees the sources; only an owner or admin changes them (403 for a member); another household sees none', async () => {
    const owner = ctx.home.client;
    const source = (
      await owner.post('/blocklists/sources/add', { name: 'Shared', kind: 'manual', domains: ['x.example'] })
    ).body;
    const member = await addParent(ctx.server, ctx.home, 'member');
    assert.ok(
      (await member.get('/api/blocklists/sources')).body.items.some(
        (s: { id: string }) => s.id === source.id,
      ),
    );
    for (const [method, path, body] of [
      ['POST', '/blocklists/sources/add', { name: 'm', kind: 'manual' }],
      ['PATCH', `/api/blocklists/sources/${source.id}`, { name: 'm' }],
      ['DELETE', `/api/blocklists/sources/${source.id}`, undefined],
      ['POST', `/blocklists/sources/${source.id}/refresh`, undefined],
      ['POST', '/api/blocklists/preview', { url: `${lists.base}/x` }],
    ] as const) {
      const res = await member.request(method, path, body === undefined ? {} : { json: body });
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.equal(res.body.error.code, 'forbidden');
    }
    const admin = await addParent(ctx.server, ctx.home, 'admin');
    assert.equal(
      (await admin.patch(`/api/blocklists/sources/${source.id}`, { name: 'Renamed' })).status,
      200,
    );

    const other = await createHousehold(ctx.server, 'Other lists');
    assert.ok(
      !(await other.client.get('/api/blocklists/sources')).body.items.some(
        (s: { id: string }) => s.id === source.id,
      ),
    );
    assert.equal(
      (await other.client.patch(`/api/blocklists/sources/${source.id}`, { name: 'x' })).status,
      404,
    );
    assert.equal((await other.client.post(`/blocklists/sources/${source.id}/refresh`)).status, 404);
    assert.equal((await other.client.delete(`/api/blocklists/sources/${source.id}`)).status, 404);
    assert.equal((await new Client(ctx.server.url).get('/api/blocklists/sources')).status, 401);
  });
});
