import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MAX_SCREENSHOT_BYTES } from '@hearth/protocol';
import type { Frame } from '../../bench/src/simulator.js';
import { until } from './blocklists-fixture.js';
import { withChildAgents } from './child-agents.js';
import {
  addParent,
  Client,
  createHousehold,
  describeWithServer,
  enrollmentToken,
  type ServerSuite,
  SseReader,
  startTestServer,
  testDatabases,
} from './helpers.js';
import { bombPng, jpegImage, pngImage, uploadScreenshot } from './screenshots-fixture.js';

const isCapture = (f: Frame) => f.type === 'command_request' && f.command === 'capture_screenshot';
const png = (account = 'kid', extra: Record<string, string> = {}) => ({
  'content-type': 'image/png',
  'x-hearth-linux-username': account,
  ...extra,
});

describeWithServer('screenshots', { household: 'Screens home' }, (suite) => {
  const ctx = withChildAgents(suite, { child: 'Sol', spareAccount: 'guest' });
  const owner = () => ctx.home.client;
  const upload = (token: string | undefined, body: Buffer, headers: Record<string, string>) =>
    uploadScreenshot(ctx.server.url, token, body, headers);
  const fileOf = (id: string, ext = 'png') => path.join(ctx.server.dataDir, 'screenshots', `${id}.${ext}`);

  test('capture now: the device is asked with a request id, and the upload naming it reaches the gallery and the live stream', async () => {
    const { agent } = await ctx.pairedAgent();
    const events = await SseReader.open(`${ctx.server.url}/api/dashboard/events`, owner().cookie ?? '');
    try {
      const asked = agent.waitFor(isCapture, 10_000);
      const res = await owner().post(`/api/devices/${agent.systemId}/screenshots/capture`, {
        linux_username: 'kid',
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.delivered, true);
      assert.equal(res.body.queued, false);
      assert.equal(typeof res.body.request_id, 'string');
      const args = (await asked).args as Record<string, string>;
      assert.deepEqual(args, { linux_username: 'kid', request_id: res.body.request_id });

      const image = pngImage(64, 40);
      const up = await upload(
        agent.secureToken,
        image,
        png('kid', { 'x-hearth-request-id': args.request_id ?? '' }),
      );
      assert.equal(up.status, 201, JSON.stringify(up.body));
      assert.equal(up.body.width, 64);
      assert.equal(up.body.height, 40);
      assert.equal(up.body.bytes, image.length);
      assert.equal(up.body.linux_username, 'kid');
      assert.equal(up.body.request_id, res.body.request_id);
      assert.equal(up.body.image_url, `/api/screenshots/${up.body.id}/image`);
      const event = await events.next((e) => e.event === 'screenshot_added', 10_000);
      assert.equal(event.data.id, up.body.id);
      assert.equal(event.data.request_id, res.body.request_id);
      assert.equal(event.data.system_id, agent.systemId);

      const file = fileOf(up.body.id);
      assert.ok(existsSync(file), `the image is a file under the data directory: ${file}`);
      assert.equal(statSync(file).mode & 0o777, 0o600, 'readable by the server only');

      const listed = await owner().get(`/api/devices/${agent.systemId}/screenshots`);
      assert.equal(listed.status, 200, listed.text);
      assert.equal(listed.body.items[0].id, up.body.id);

      const shown = await owner().get(up.body.image_url);
      assert.equal(shown.status, 200);
      assert.equal(shown.headers.get('content-type'), 'image/png');
      assert.equal(shown.headers.get('cache-control'), 'private, no-store');
      assert.equal(shown.headers.get('x-content-type-options'), 'nosniff');
      const raw = await fetch(`${ctx.server.url}${up.body.image_url}`, {
        headers: { cookie: owner().cookie ?? '' },
      });
      assert.deepEqual(Buffer.from(await raw.arrayBuffer()), image, 'the bytes as uploaded');
    } finally {
      events.close();
      await agent.stop();
    }
  });

  test('a JPEG is accepted as image/jpeg; the gallery lists newest first', async () => {
    const { agent } = await ctx.pairedAgent();
    const first = await upload(agent.secureToken, pngImage(8, 8), png());
    const second = await upload(agent.secureToken, jpegImage(32, 24), {
      'content-type': 'image/jpeg',
      'x-hearth-linux-username': 'kid',
    });
    assert.equal(second.status, 201, JSON.stringify(second.body));
    assert.equal(second.body.width, 32);
    assert.equal(second.body.content_type, 'image/jpeg');
    assert.ok(existsSync(fileOf(second.body.id, 'jpg')), 'a JPEG is kept as .jpg');
    const items = (await owner().get(`/api/devices/${agent.systemId}/screenshots`)).body.items;
    assert.deepEqual(
      items.map((i: { id: string }) => i.id),
      [second.body.id, first.body.id],
    );
    const shown = await owner().get(`/api/screenshots/${second.body.id}/image`);
    assert.equal(shown.headers.get('content-type'), 'image/jpeg');
    await agent.stop();
  });

  test('uploads that are not what they say, too large, or from the wrong device are refused with the envelope', async () => {
    const { agent } = await ctx.pairedAgent();
    const other = await ctx.pairedAgent();
    const valid = pngImage(16, 16);
    const cases: [string, Buffer, Record<string, string>, number][] = [
      ['a PNG sent as image/jpeg', valid, { ...png(), 'content-type': 'image/jpeg' }, 400],
      ['a JPEG sent as image/png', jpegImage(8, 8), png(), 400],
      ['random bytes', Buffer.from(Array.from({ length: 2000 }, (_, i) => (i * 7919) % 251)), png(), 400],
      ['a truncated PNG', valid.subarray(0, valid.length - 30), png(), 400],
      [
        'a truncated JPEG',
        jpegImage(64, 64).subarray(0, 300),
        { ...png(), 'content-type': 'image/jpeg' },
        400,
      ],
      ['an IHDR declaring 100000×100000', bombPng(100_000, 100_000), png(), 400],
      ['an IHDR declaring 0×10', bombPng(0, 10), png(), 400],
      ['an empty body', Buffer.alloc(0), png(), 400],
      ['text/plain', valid, { ...png(), 'content-type': 'text/plain' }, 400],
      ['no account header', valid, { 'content-type': 'image/png' }, 400],
      ['a malformed request id', valid, png('kid', { 'x-hearth-request-id': 'a b' }), 400],
      ['over 4 MiB', Buffer.alloc(MAX_SCREENSHOT_BYTES + 1, 1), png(), 413],
      ['an account the device never reported', valid, png('someone-else'), 403],
      ['an account of the device that is not mapped', valid, png('guest'), 404],
    ];
    for (const [label, body, headers, status] of cases) {
      const res = await upload(agent.secureToken, body, headers);
      assert.equal(res.status, status, `${label}: ${res.status} ${JSON.stringify(res.body)}`);
      assert.equal(typeof res.body?.error?.code, 'string', `${label}: the error envelope`);
      assert.equal(typeof res.body.error.message, 'string', `${label}: a message`);
    }
    const bomb = await upload(agent.secureToken, bombPng(100_000, 100_000), png());
    assert.match(bomb.body.error.message, /100000×100000/);
    const large = await upload(agent.secureToken, Buffer.alloc(MAX_SCREENSHOT_BYTES + 1, 1), png());
    assert.equal(large.body.error.code, 'payload_too_large');

    // Another device of the household may not upload for an account it does not have — nor may a
    // device of another household, nor a request without a valid token.
    const foreign = await createHousehold(ctx.server, 'Elsewhere');
    const { SimAgent } = await import('../../bench/src/simulator.js');
    const theirs = new SimAgent({
      url: ctx.server.wsUrl,
      enrollmentToken: await enrollmentToken(foreign),
      linuxUsers: [{ username: 'kid' }],
    });
    ctx.agents.push(theirs);
    await theirs.connect();
    const approved = theirs.waitFor('pairing_approved');
    await foreign.client.post(`/api/device/approve/${theirs.systemId}`);
    await approved;
    const theirChild = (await foreign.client.post('/api/user/create', { name: 'Far' })).body.id;
    await foreign.client.post(`/managed-users/${theirChild}/mappings/add`, {
      system_id: theirs.systemId,
      linux_username: 'kid',
    });
    const fromThem = await upload(theirs.secureToken, valid, png());
    assert.equal(fromThem.status, 201, 'their own account on their own device');
    const mine = await owner().get(`/api/devices/${agent.systemId}/screenshots`);
    assert.ok(
      !mine.body.items.some((i: { id: string }) => i.id === fromThem.body.id),
      "another household's upload never lands on this device",
    );
    assert.equal((await owner().get(`/api/screenshots/${fromThem.body.id}/image`)).status, 404);
    assert.equal((await upload(undefined, valid, png())).status, 401);
    assert.equal((await upload('0'.repeat(64), valid, png())).status, 401);
    assert.equal((await upload(other.agent.secureToken, valid, png('someone-else'))).status, 403);
    await agent.stop();
    await other.agent.stop();
  });

  test('the image, list, capture and delete routes: 401, 404 across households, 403 for a member who may only view', async () => {
    const { agent } = await ctx.pairedAgent();
    const shot = (await upload(agent.secureToken, pngImage(10, 10), png())).body;
    const anon = new Client(ctx.server.url);
    assert.equal((await anon.get(shot.image_url)).status, 401, 'never without a session');
    assert.equal((await anon.get(`/api/devices/${agent.systemId}/screenshots`)).status, 401);
    assert.equal((await anon.delete(`/api/screenshots/${shot.id}`)).status, 401);
    assert.equal(
      (await anon.post(`/api/devices/${agent.systemId}/screenshots/capture`, { linux_username: 'kid' }))
        .status,
      401,
    );

    const other = await createHousehold(ctx.server, 'Far away');
    for (const res of [
      await other.client.get(shot.image_url),
      await other.client.get(`/api/devices/${agent.systemId}/screenshots`),
      await other.client.delete(`/api/screenshots/${shot.id}`),
      await other.client.post(`/api/devices/${agent.systemId}/screenshots/capture`, {
        linux_username: 'kid',
      }),
      await owner().get('/api/screenshots/no-such-shot/image'),
      await owner().delete('/api/screenshots/no-such-shot'),
      await owner().get('/api/devices/no-such-device/screenshots'),
    ]) {
      assert.equal(res.status, 404, res.text);
      assert.equal(res.body.error.code, 'not_found', res.text);
    }

    const viewer = await addParent(ctx.server, ctx.home, 'member', [
      { managed_user_id: ctx.childId, can_view: true, can_manage_policies: false },
    ]);
    assert.equal((await viewer.get(shot.image_url)).status, 200, 'a viewer of the child sees it');
    assert.equal((await viewer.get(`/api/devices/${agent.systemId}/screenshots`)).body.items.length, 1);
    for (const res of [
      await viewer.delete(`/api/screenshots/${shot.id}`),
      await viewer.post(`/api/devices/${agent.systemId}/screenshots/capture`, { linux_username: 'kid' }),
    ]) {
      assert.equal(res.status, 403, res.text);
      assert.equal(res.body.error.code, 'forbidden', res.text);
    }
    const stranger = await addParent(ctx.server, ctx.home, 'member', []);
    assert.equal((await stranger.get(shot.image_url)).status, 404, 'a member who may not see the child');

    for (const body of [
      {},
      { linux_username: 'kid', extra: 1 },
      { linux_username: 7 },
      { linux_username: 'guest' },
      { linux_username: 'nobody' },
    ]) {
      const res = await owner().post(`/api/devices/${agent.systemId}/screenshots/capture`, body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.body.error.code, 'invalid_request', res.text);
    }

    const removed = await owner().delete(`/api/screenshots/${shot.id}`);
    assert.equal(removed.status, 200, removed.text);
    assert.ok(!existsSync(fileOf(shot.id)), 'the file is gone from disk');
    assert.equal((await owner().get(shot.image_url)).status, 404);
    await agent.stop();
  });

  test('a capture the agent cannot take answers with its reason, and no picture is waited for', async () => {
    const { agent } = await ctx.pairedAgent({
      respond: async (command) =>
        command === 'capture_screenshot'
          ? { success: false, error: 'the child is not signed in on a display' }
          : { success: true, data: {} },
    });
    const res = await owner().post(`/api/devices/${agent.systemId}/screenshots/capture`, {
      linux_username: 'kid',
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.delivered, true);
    assert.equal(res.body.error, 'the child is not signed in on a display');
  });

  test('a capture for an offline device waits in the queue', async () => {
    const { agent } = await ctx.pairedAgent();
    await agent.stop();
    await until(
      () => owner().get(`/api/devices/${agent.systemId}`),
      (r) => r.body.online === false,
    );
    const res = await owner().post(`/api/devices/${agent.systemId}/screenshots/capture`, {
      linux_username: 'kid',
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([res.body.delivered, res.body.queued], [false, true]);
  });

  test('periodic captures: the interval lives in the approval settings; due online devices are asked, offline ones never queued', async () => {
    const { agent, mappingId } = await ctx.pairedAgent();
    const settingsUrl = `/api/mappings/${mappingId}/approval-settings`;
    const fresh = (await owner().get(settingsUrl)).body;
    assert.equal(fresh.screenshot_interval_minutes, 0);
    for (const body of [
      { screenshot_interval_minutes: 3 },
      { screenshot_interval_minutes: 1441 },
      { screenshot_interval_minutes: 'often' },
      { screenshot_interval_minutes: 7.5 },
      { screenshots: 5 },
    ]) {
      const res = await owner().post(settingsUrl, body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
    }
    await owner().post(settingsUrl, { enforce_signup_approvals: true });
    const set = await owner().post(settingsUrl, { screenshot_interval_minutes: 5 });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.screenshot_interval_minutes, 5);
    assert.equal(set.body.enforce_signup_approvals, true, 'a field left out keeps its value');
    const viewer = await addParent(ctx.server, ctx.home, 'member', [
      { managed_user_id: ctx.childId, can_view: true, can_manage_policies: false },
    ]);
    assert.equal((await viewer.post(settingsUrl, { screenshot_interval_minutes: 0 })).status, 403);

    const periodic = () => ctx.server.services.screenshots.capturePeriodic();
    const asked = agent.waitFor(
      (f) => isCapture(f) && (f.args as { linux_username?: string }).linux_username === 'kid',
      10_000,
    );
    await periodic();
    const args = (await asked).args as Record<string, unknown>;
    assert.equal(args.request_id, undefined, 'a periodic capture answers no parent');
    const before = agent.frames.filter(isCapture).length;
    await periodic();
    assert.equal(agent.frames.filter(isCapture).length, before, 'not due again within the interval');

    const offline = await ctx.pairedAgent();
    await ctx.home.client.post(`/api/mappings/${offline.mappingId}/approval-settings`, {
      screenshot_interval_minutes: 5,
    });
    await offline.agent.stop();
    await until(
      () => owner().get(`/api/devices/${offline.agent.systemId}`),
      (r) => r.body.online === false,
    );
    await periodic();
    const queued = await ctx.server.services.queue.list(offline.agent.systemId);
    assert.equal(queued.filter((c) => c.command === 'capture_screenshot').length, 0, 'never queued');
    await agent.stop();
  });

  test('removing a device takes its screenshots and policy with it; the worker then removes their files', async () => {
    const { agent, mappingId } = await ctx.pairedAgent();
    const shot = (await upload(agent.secureToken, pngImage(6, 6), png())).body;
    const policy = await owner().request('PUT', `/api/mappings/${mappingId}/linux-device-policy`, {
      json: {
        block_software_install: true,
        block_removable_media: false,
        block_account_changes: false,
        block_power_actions: false,
        block_terminal: false,
        disable_bluetooth: false,
        block_incognito: false,
        block_other_extensions: false,
        allowed_extension_ids: [],
        youtube_restricted: false,
      },
    });
    assert.equal(policy.status, 200, policy.text);
    assert.equal((await owner().post(`/api/device/${agent.systemId}/unenroll`)).status, 200);
    const removed = await owner().delete(`/api/devices/${agent.systemId}`);
    assert.equal(removed.status, 200, removed.text);
    assert.equal((await owner().get(shot.image_url)).status, 404, 'the row went with the device');
    assert.equal((await owner().get(`/api/mappings/${mappingId}/linux-device-policy`)).status, 404);
    assert.ok(existsSync(fileOf(shot.id)), 'the file waits for the worker');
    const result = await ctx.server.services.screenshots.prune();
    assert.match(result, /[1-9]\d* files of removed devices/);
    assert.ok(!existsSync(fileOf(shot.id)), 'and the worker removes it');
    await agent.stop();
  });

  test('the worker deletes screenshots older than the retention, files included', async () => {
    const { agent } = await ctx.pairedAgent();
    const shot = (await upload(agent.secureToken, pngImage(12, 12), png())).body;
    assert.ok(existsSync(fileOf(shot.id)), 'stored');
    const kept = await ctx.server.services.screenshots.prune();
    assert.match(kept, /deleted 0 screenshots older than 14 days/);
    assert.ok(existsSync(fileOf(shot.id)), 'a new one stays');
    // Fifteen days on, it is older than the default 14.
    const result = await ctx.server.services.screenshots.prune(Date.now() + 15 * 86_400_000);
    assert.match(result, /deleted [1-9]\d* screenshots/);
    assert.ok(!existsSync(fileOf(shot.id)), 'its file is gone');
    assert.equal((await owner().get(shot.image_url)).status, 404);
    assert.equal((await owner().get(`/api/devices/${agent.systemId}/screenshots`)).body.items.length, 0);
    await agent.stop();
  });
});

// PostgreSQL deployments that share no disk keep the bytes in the database.
for (const db of testDatabases().filter((d) => d.name === 'postgres')) {
  describe('screenshots kept in the database (postgres)', () => {
    const suite = { db } as ServerSuite;
    before(async () => {
      suite.server = await startTestServer(db, { HEARTH_SCREENSHOT_STORAGE: 'database' });
      suite.home = await createHousehold(suite.server, 'Database home');
    });
    const ctx = withChildAgents(suite, { child: 'Dot', spareAccount: 'guest' });
    after(() => suite.server?.close());

    test('an upload writes no file; the image comes from the database; delete and retention remove the row', async () => {
      const { agent } = await ctx.pairedAgent();
      const image = pngImage(20, 10);
      const up = await uploadScreenshot(ctx.server.url, agent.secureToken, image, png());
      assert.equal(up.status, 201, JSON.stringify(up.body));
      assert.ok(
        !existsSync(path.join(ctx.server.dataDir, 'screenshots', `${up.body.id}.png`)),
        'no file on disk',
      );
      const raw = await fetch(`${ctx.server.url}${up.body.image_url}`, {
        headers: { cookie: ctx.home.client.cookie ?? '' },
      });
      assert.equal(raw.status, 200);
      assert.equal(raw.headers.get('cache-control'), 'private, no-store');
      assert.deepEqual(Buffer.from(await raw.arrayBuffer()), image, 'the bytes as uploaded');
      assert.equal((await ctx.home.client.delete(`/api/screenshots/${up.body.id}`)).status, 200);
      assert.equal((await ctx.home.client.get(up.body.image_url)).status, 404);
      const old = await uploadScreenshot(ctx.server.url, agent.secureToken, image, png());
      await ctx.server.services.screenshots.prune(Date.now() + 15 * 86_400_000);
      assert.equal((await ctx.home.client.get(old.body.image_url)).status, 404, 'retention removed it');
      await agent.stop();
    });
  });
}
