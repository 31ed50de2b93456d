import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  linkAccount,
  type Simulators,
  signInAtVendor,
  sim,
  simulatorEnv,
  startSimulators,
} from './consoles-fixture.js';
import {
  announcePostgres,
  Client,
  createDevice,
  createHousehold,
  type Household,
  type Reply,
  SseReader,
  startTestServer,
  type TestServer,
  testDatabases,
} from './helpers.js';
import { pngImage, uploadScreenshot } from './screenshots-fixture.js';

announcePostgres();

/** What household A owns; household B must not reach any of it. */
interface World {
  server: TestServer;
  a: Household;
  b: Household;
  aChildId: string;
  aParentId: string;
  aDeviceId: string;
  aPendingId: string;
  aAlertId: string;
  aMappingId: string;
  aRequestId: string;
  aGrantId: string;
  aSourceId: string;
  /** A's device's bearer token (its account `ann` is mapped to A's child). */
  aDeviceToken: string;
  /** A screenshot A's device uploaded of `ann`. */
  aScreenshotId: string;

  bChildId: string;
  /** The pasted address of a console sign-in A started (and did not finish), per vendor. */
  aConsoleRedirect: Record<'xbox' | 'nintendo', { redirect: string; state: string }>;
}

type Case = (w: World) => Promise<void>;

const LINUX_POLICY_OFF = {
  block_software_install: false,
  block_removable_media: false,
  block_account_changes: false,
  block_power_actions: false,
  block_terminal: false,
  disable_bluetooth: false,
  block_incognito: false,
  block_other_extensions: false,
  allowed_extension_ids: [],
  youtube_restricted: false,
};
const ANDROID_POLICY_OFF = {
  camera_disabled: false,
  microphone_disabled: false,
  screen_capture_disabled: false,
  install_apps_disabled: false,
  uninstall_apps_disabled: false,
  factory_reset_disabled: false,
  bluetooth_disabled: false,
  location_mode: 'user_choice',
};

const expect404 = (res: Reply, label: string) => {
  assert.equal(res.status, 404, `${label}: ${res.status} ${res.text}`);
  assert.equal(res.body.error.code, 'not_found', label);
};

/**
 * One entry per session route: how another household tries to reach household A's data through it.
 * The test below fails when a session route has no entry here, so every new route must add one.
 */
const CROSS_HOUSEHOLD: Record<string, Case> = {
  'GET /api/session': async ({ b }) => {
    const res = await b.client.get('/api/session');
    assert.equal(res.body.household.id, b.householdId);
  },
  'DELETE /api/session': async ({ server, a }) => {
    // Signing out touches only the caller's own session.
    const other = new Client(server.url);
    await other.signIn(a.username, 'correct horse battery staple');
    await other.delete('/api/session');
    assert.equal((await a.client.get('/api/session')).status, 200);
  },
  'GET /api/users': async ({ b, aChildId }) => {
    const ids = (await b.client.get('/api/users')).body.items.map((u: { id: string }) => u.id);
    assert.ok(!ids.includes(aChildId));
  },
  'GET /api/user/:id': async ({ b, aChildId }) =>
    expect404(await b.client.get(`/api/user/${aChildId}`), 'get child'),
  'POST /api/user/create': async ({ a, b }) => {
    const made = (await b.client.post('/api/user/create', { name: 'B-only' })).body;
    const ids = (await a.client.get('/api/users')).body.items.map((u: { id: string }) => u.id);
    assert.ok(!ids.includes(made.id));
  },
  'POST /managed-users/add': async ({ a, b }) => {
    const made = (await b.client.post('/managed-users/add', { name: 'B-form' })).body;
    const ids = (await a.client.get('/api/users')).body.items.map((u: { id: string }) => u.id);
    assert.ok(!ids.includes(made.id));
  },
  'POST /managed-users/:id/mappings/add': async ({ b, aChildId, aDeviceId, bChildId }) => {
    expect404(
      await b.client.post(`/managed-users/${aChildId}/mappings/add`, {
        system_id: aDeviceId,
        linux_username: 'x',
      }),
      'foreign child',
    );
    expect404(
      await b.client.post(`/managed-users/${bChildId}/mappings/add`, {
        system_id: aDeviceId,
        linux_username: 'x',
      }),
      'foreign device',
    );
  },
  'PATCH /api/managed-users/:id': async ({ a, b, aChildId }) => {
    expect404(await b.client.patch(`/api/managed-users/${aChildId}`, { name: 'Hijacked' }), 'rename child');
    assert.equal((await a.client.get(`/api/user/${aChildId}`)).body.name, 'A child');
  },
  'DELETE /api/managed-users/:id': async ({ a, b, aChildId }) => {
    expect404(await b.client.delete(`/api/managed-users/${aChildId}`), 'remove child');
    assert.equal((await a.client.get(`/api/user/${aChildId}`)).status, 200);
  },
  'DELETE /api/mappings/:id': async ({ a, b, aChildId, aMappingId }) => {
    expect404(await b.client.delete(`/api/mappings/${aMappingId}`), 'remove mapping');
    const mappings = (await a.client.get(`/api/user/${aChildId}`)).body.mappings;
    assert.ok(mappings.some((m: { id: string }) => m.id === aMappingId));
  },
  'GET /users/validate/:id': async ({ b, aChildId }) =>
    expect404(await b.client.get(`/users/validate/${aChildId}`), 'validate'),
  'PATCH /managed-users/:user_id/overlay': async ({ a, b, aChildId }) => {
    expect404(
      await b.client.patch(`/managed-users/${aChildId}/overlay`, { overlay_parent_note: 'hijacked' }),
      'overlay',
    );
    assert.equal((await a.client.get(`/api/user/${aChildId}`)).body.overlay_parent_note, null);
  },
  'GET /api/user/:id/usage': async ({ b, aChildId }) =>
    expect404(await b.client.get(`/api/user/${aChildId}/usage`), 'usage'),
  'PATCH /api/household': async ({ a, b }) => {
    // Changes only the caller's own household.
    const res = await b.client.patch('/api/household', { timezone: 'Asia/Kathmandu' });
    assert.equal(res.body.id, b.householdId);
    assert.notEqual((await a.client.get('/api/session')).body.household.timezone, 'Asia/Kathmandu');
  },
  'GET /api/managed-users/:id/schedule': async ({ b, aChildId }) =>
    expect404(await b.client.get(`/api/managed-users/${aChildId}/schedule`), 'schedule'),
  'POST /weekly-schedule/update': async ({ a, b, aChildId }) => {
    expect404(
      await b.client.post('/weekly-schedule/update', {
        managed_user_id: aChildId,
        days: { monday: { limit_minutes: 10, windows: [] } },
      }),
      'update schedule',
    );
    assert.equal((await a.client.get(`/api/managed-users/${aChildId}/schedule`)).body.version, 0);
  },
  'POST /api/modify-time': async ({ a, b, aChildId }) => {
    expect404(await b.client.post('/api/modify-time', { managed_user_id: aChildId, minutes: 30 }), 'modify');
    assert.equal((await a.client.get(`/api/user/${aChildId}/usage`)).body.adjustment_seconds, 0);
  },
  'POST /api/managed-users/:id/pause': async ({ a, b, aChildId }) => {
    expect404(await b.client.post(`/api/managed-users/${aChildId}/pause`, {}), 'pause');
    assert.equal((await a.client.get(`/api/user/${aChildId}/usage`)).body.paused_until, null);
  },
  'POST /api/managed-users/:id/resume': async ({ b, aChildId }) =>
    expect404(await b.client.post(`/api/managed-users/${aChildId}/resume`), 'resume'),
  'GET /api/schedule-sync-status/:user_id': async ({ b, aChildId }) =>
    expect404(await b.client.get(`/api/schedule-sync-status/${aChildId}`), 'sync status'),
  'GET /api/user/:id/stats': async ({ b, aChildId }) =>
    expect404(await b.client.get(`/api/user/${aChildId}/stats`), 'stats'),
  'GET /api/household/parents': async ({ b, aParentId }) => {
    const ids = (await b.client.get('/api/household/parents')).body.items.map((p: { id: string }) => p.id);
    assert.ok(!ids.includes(aParentId));
  },
  'POST /api/household/parents': async ({ b, aChildId }) => {
    const res = await b.client.post('/api/household/parents', {
      username: 'b-helper',
      password: 'correct horse battery staple',
      role: 'member',
      children: [{ managed_user_id: aChildId, can_view: true, can_manage_policies: true }],
    });
    expect404(res, 'grant on foreign child');
  },
  'PATCH /api/household/parents/:id': async ({ b, aParentId }) =>
    expect404(
      await b.client.patch(`/api/household/parents/${aParentId}`, { role: 'member' }),
      'patch foreign parent',
    ),
  'DELETE /api/household/parents/:id': async ({ a, b, aParentId }) => {
    expect404(await b.client.delete(`/api/household/parents/${aParentId}`), 'remove foreign parent');
    assert.equal((await a.client.get('/api/session')).status, 200);
  },
  'PATCH /api/devices/:system_id': async ({ a, b, aDeviceId }) => {
    expect404(await b.client.patch(`/api/devices/${aDeviceId}`, { display_name: 'Hijacked' }), 'rename');
    assert.equal((await a.client.get(`/api/devices/${aDeviceId}`)).body.display_name, 'kids-laptop');
  },
  'DELETE /api/devices/:system_id': async ({ a, b, aDeviceId, aPendingId }) => {
    expect404(await b.client.delete(`/api/devices/${aDeviceId}`), 'remove device');
    expect404(await b.client.delete(`/api/devices/${aPendingId}`), 'remove pending device');
    assert.equal((await a.client.get(`/api/devices/${aDeviceId}`)).status, 200);
  },
  'GET /api/devices': async ({ b, aDeviceId }) => {
    const ids = (await b.client.get('/api/devices')).body.items.map(
      (d: { system_id: string }) => d.system_id,
    );
    assert.ok(!ids.includes(aDeviceId));
  },
  'GET /api/devices/pending': async ({ b, aPendingId }) => {
    const ids = (await b.client.get('/api/devices/pending')).body.items.map(
      (d: { system_id: string }) => d.system_id,
    );
    assert.ok(!ids.includes(aPendingId));
  },
  'GET /api/devices/:system_id': async ({ b, aDeviceId }) =>
    expect404(await b.client.get(`/api/devices/${aDeviceId}`), 'device'),
  'POST /api/device/approve/:system_id': async ({ a, b, aPendingId }) => {
    expect404(await b.client.post(`/api/device/approve/${aPendingId}`), 'approve');
    assert.equal((await a.client.get(`/api/devices/${aPendingId}`)).body.status, 'pending');
  },
  'POST /api/device/reject/:system_id': async ({ a, b, aPendingId }) => {
    expect404(await b.client.post(`/api/device/reject/${aPendingId}`), 'reject');
    assert.equal((await a.client.get(`/api/devices/${aPendingId}`)).body.status, 'pending');
  },
  'POST /api/device/:system_id/unenroll': async ({ a, b, aDeviceId }) => {
    expect404(await b.client.post(`/api/device/${aDeviceId}/unenroll`), 'unenroll');
    assert.equal((await a.client.get(`/api/devices/${aDeviceId}`)).body.status, 'approved');
  },
  'POST /api/devices/:system_id/overlay': async ({ b, aDeviceId }) =>
    expect404(
      await b.client.post(`/api/devices/${aDeviceId}/overlay`, {
        action: 'show',
        reason: 'sleep',
        linux_username: 'ann',
      }),
      'overlay',
    ),
  'POST /api/devices/:system_id/clear-clock-tamper': async ({ b, aDeviceId }) =>
    expect404(await b.client.post(`/api/devices/${aDeviceId}/clear-clock-tamper`), 'clear clock tamper'),
  'GET /api/mappings/:id/linux-device-policy': async ({ b, aMappingId }) =>
    expect404(await b.client.get(`/api/mappings/${aMappingId}/linux-device-policy`), 'linux policy'),
  'PUT /api/mappings/:id/linux-device-policy': async ({ a, b, aMappingId }) => {
    expect404(
      await b.client.request('PUT', `/api/mappings/${aMappingId}/linux-device-policy`, {
        json: { ...LINUX_POLICY_OFF, block_terminal: true },
      }),
      'replace linux policy',
    );
    assert.equal((await a.client.get(`/api/mappings/${aMappingId}/linux-device-policy`)).body.version, 0);
  },
  'GET /api/mappings/:id/android-device-policy': async ({ b, aMappingId }) =>
    expect404(await b.client.get(`/api/mappings/${aMappingId}/android-device-policy`), 'android policy'),
  'PUT /api/mappings/:id/android-device-policy': async ({ b, aMappingId }) =>
    expect404(
      await b.client.request('PUT', `/api/mappings/${aMappingId}/android-device-policy`, {
        json: ANDROID_POLICY_OFF,
      }),
      'replace android policy',
    ),
  'GET /api/devices/:system_id/android-device-policy': async ({ b, aDeviceId }) =>
    expect404(await b.client.get(`/api/devices/${aDeviceId}/android-device-policy`), 'device policy'),
  'PUT /api/devices/:system_id/android-device-policy': async ({ b, aDeviceId }) =>
    expect404(
      await b.client.request('PUT', `/api/devices/${aDeviceId}/android-device-policy`, {
        json: ANDROID_POLICY_OFF,
      }),
      'replace device policy',
    ),
  'POST /api/devices/:system_id/screenshots/capture': async ({ b, aDeviceId }) =>
    expect404(
      await b.client.post(`/api/devices/${aDeviceId}/screenshots/capture`, { linux_username: 'ann' }),
      'capture',
    ),
  'GET /api/devices/:system_id/screenshots': async ({ b, aDeviceId }) =>
    expect404(await b.client.get(`/api/devices/${aDeviceId}/screenshots`), 'screenshots'),
  'GET /api/screenshots/:id/image': async ({ b, aScreenshotId }) =>
    expect404(await b.client.get(`/api/screenshots/${aScreenshotId}/image`), 'screenshot image'),
  'DELETE /api/screenshots/:id': async ({ a, b, aScreenshotId }) => {
    expect404(await b.client.delete(`/api/screenshots/${aScreenshotId}`), 'delete screenshot');
    assert.equal((await a.client.get(`/api/screenshots/${aScreenshotId}/image`)).status, 200);
  },
  'GET /api/pairing/config': async ({ a, b }) => {
    const mine = (await a.client.get('/api/pairing/config')).body.enrollment_token;
    assert.notEqual((await b.client.get('/api/pairing/config')).body.enrollment_token, mine);
  },
  'GET /api/pairing/qr.png': async ({ a, b }) => {
    const [qa, qb] = [await a.client.get('/api/pairing/qr.png'), await b.client.get('/api/pairing/qr.png')];
    assert.equal(qb.status, 200);
    assert.notEqual(qa.text, qb.text, "each household's QR carries its own token");
  },
  'GET /api/pairing/provisioning/config': async ({ a, b }) => {
    const mine = (await a.client.get('/api/pairing/provisioning/config')).body.enrollment_token;
    assert.notEqual((await b.client.get('/api/pairing/provisioning/config')).body.enrollment_token, mine);
  },
  'GET /api/pairing/provisioning/qr.png': async ({ a, b }) => {
    const [qa, qb] = [
      await a.client.get('/api/pairing/provisioning/qr.png'),
      await b.client.get('/api/pairing/provisioning/qr.png'),
    ];
    assert.notEqual(qa.text, qb.text);
  },
  // The agent downloads are the operator's files, the same for every household: nothing of A's to reach.
  'GET /api/pairing/provisioning/apk': async ({ b }) =>
    assert.equal((await b.client.get('/api/pairing/provisioning/apk')).status, 404),
  'GET /api/access-request': async ({ b, aAlertId }) => {
    const ids = (await b.client.get('/api/access-request')).body.items.map((x: { id: string }) => x.id);
    assert.ok(!ids.includes(aAlertId));
  },
  'GET /api/alerts': async ({ b, aAlertId }) => {
    const ids = (await b.client.get('/api/alerts')).body.items.map((x: { id: string }) => x.id);
    assert.ok(!ids.includes(aAlertId));
  },
  'GET /api/alerts/kinds': async ({ server, a, b, aDeviceId }) => {
    await server.services.alerts.agentEvent(
      { systemId: aDeviceId, householdId: a.householdId, linuxUsers: new Set() },
      { type: 'alert_event', event_type: 'only_in_household_a', detail: {} },
    );
    assert.ok((await a.client.get('/api/alerts/kinds')).body.kinds.includes('only_in_household_a'));
    assert.ok(!(await b.client.get('/api/alerts/kinds')).body.kinds.includes('only_in_household_a'));
  },
  'POST /api/alerts/:id/acknowledge': async ({ a, b, aAlertId }) => {
    expect404(await b.client.post(`/api/alerts/${aAlertId}/acknowledge`), 'acknowledge');
    const mine = (await a.client.get('/api/alerts')).body.items.find(
      (x: { id: string }) => x.id === aAlertId,
    );
    assert.equal(mine.acknowledged_at, null);
  },
  'POST /api/alerts/prune': async ({ a, b, aAlertId }) => {
    await b.client.post('/api/alerts/prune', { older_than_days: 0 });
    assert.ok((await a.client.get('/api/alerts')).body.items.some((x: { id: string }) => x.id === aAlertId));
  },
  'GET /api/dashboard': async ({ b, aChildId, aDeviceId }) => {
    const dash = (await b.client.get('/api/dashboard')).body;
    assert.equal(dash.household.id, b.householdId);
    assert.ok(!dash.users.some((u: { id: string }) => u.id === aChildId));
    assert.ok(!dash.devices.some((d: { system_id: string }) => d.system_id === aDeviceId));
  },
  'GET /api/dashboard/events': async ({ server, a, b, aDeviceId }) => {
    const stream = await SseReader.open(`${server.url}/api/dashboard/events`, b.client.cookie ?? '');
    try {
      server.services.events.publish(a.householdId, 'device_status', { system_id: aDeviceId, online: true });
      await new Promise((r) => setTimeout(r, 150));
      assert.equal(stream.events.length, 0);
    } finally {
      stream.close();
    }
  },
  // The worker serves the whole deployment: its status and restart carry no household's data.
  'GET /api/approvals': async ({ b, aRequestId }) => {
    const ids = (await b.client.get('/api/approvals')).body.items.map((x: { id: string }) => x.id);
    assert.ok(!ids.includes(aRequestId));
  },
  'POST /api/approvals/:id/approve': async ({ a, b, aRequestId }) => {
    expect404(await b.client.post(`/api/approvals/${aRequestId}/approve`), 'approve request');
    assert.equal(
      (await a.client.get('/api/approvals?status=pending')).body.items.some(
        (x: { id: string }) => x.id === aRequestId,
      ),
      true,
    );
  },
  'POST /api/approvals/:id/deny': async ({ b, aRequestId }) =>
    expect404(await b.client.post(`/api/approvals/${aRequestId}/deny`), 'deny request'),
  'GET /api/mappings/:id/approval-settings': async ({ b, aMappingId }) =>
    expect404(await b.client.get(`/api/mappings/${aMappingId}/approval-settings`), 'settings'),
  'POST /api/mappings/:id/approval-settings': async ({ a, b, aMappingId }) => {
    expect404(
      await b.client.post(`/api/mappings/${aMappingId}/approval-settings`, {
        enforce_signup_approvals: true,
      }),
      'settings change',
    );
    assert.equal(
      (await a.client.get(`/api/mappings/${aMappingId}/approval-settings`)).body.enforce_signup_approvals,
      false,
    );
  },
  'GET /api/mappings/:id/approval-grants': async ({ b, aMappingId }) =>
    expect404(await b.client.get(`/api/mappings/${aMappingId}/approval-grants`), 'grants'),
  'POST /api/mappings/:id/approval-grants': async ({ b, aMappingId }) =>
    expect404(
      await b.client.post(`/api/mappings/${aMappingId}/approval-grants`, {
        domain: 'b.example',
        kind: 'once',
      }),
      'add grant',
    ),
  'DELETE /api/mappings/:id/approval-grants/:grant_id': async ({ a, b, aMappingId, aGrantId }) => {
    expect404(
      await b.client.delete(`/api/mappings/${aMappingId}/approval-grants/${aGrantId}`),
      'revoke grant',
    );
    assert.equal((await a.client.get(`/api/mappings/${aMappingId}/approval-grants`)).body.items.length, 1);
  },
  'GET /api/online-accounts': async ({ b }) => {
    const items = (await b.client.get('/api/online-accounts?q=a-secret-user')).body.items;
    assert.deepEqual(items, []);
  },
  'GET /api/devices/:system_id/installed-apps': async ({ b, aDeviceId }) =>
    expect404(await b.client.get(`/api/devices/${aDeviceId}/installed-apps`), 'device inventory'),
  'GET /api/managed-users/:id/installed-apps': async ({ b, aChildId }) =>
    expect404(await b.client.get(`/api/managed-users/${aChildId}/installed-apps`), 'child inventory'),
  'POST /api/devices/:system_id/installed-apps/refresh': async ({ b, aDeviceId }) =>
    expect404(await b.client.post(`/api/devices/${aDeviceId}/installed-apps/refresh`), 'refresh'),
  'GET /api/managed-users/:id/app-policy': async ({ b, aChildId }) =>
    expect404(await b.client.get(`/api/managed-users/${aChildId}/app-policy`), 'app policy'),
  'PUT /api/managed-users/:id/app-policy': async ({ a, b, aChildId }) => {
    expect404(
      await b.client.request('PUT', `/api/managed-users/${aChildId}/app-policy`, { json: { rules: [] } }),
      'app policy change',
    );
    assert.equal((await a.client.get(`/api/managed-users/${aChildId}/app-policy`)).body.version, 0);
  },
  'POST /blocklists/sources/add': async ({ a, b }) => {
    const made = (await b.client.post('/blocklists/sources/add', { name: 'B list', kind: 'manual' })).body;
    const ids = (await a.client.get('/api/blocklists/sources')).body.items.map((s: { id: string }) => s.id);
    assert.ok(!ids.includes(made.id));
  },
  'GET /api/blocklists/sources': async ({ b, aSourceId }) => {
    const ids = (await b.client.get('/api/blocklists/sources')).body.items.map((s: { id: string }) => s.id);
    assert.ok(!ids.includes(aSourceId));
  },
  'PATCH /api/blocklists/sources/:id': async ({ a, b, aSourceId }) => {
    expect404(
      await b.client.patch(`/api/blocklists/sources/${aSourceId}`, { name: 'Hijacked' }),
      'rename list',
    );
    const names = (await a.client.get('/api/blocklists/sources')).body.items.map(
      (s: { name: string }) => s.name,
    );
    assert.ok(names.includes('A list'));
  },
  'DELETE /api/blocklists/sources/:id': async ({ a, b, aSourceId }) => {
    expect404(await b.client.delete(`/api/blocklists/sources/${aSourceId}`), 'remove list');
    const ids = (await a.client.get('/api/blocklists/sources')).body.items.map((s: { id: string }) => s.id);
    assert.ok(ids.includes(aSourceId));
  },
  'POST /blocklists/sources/:id/refresh': async ({ b, aSourceId }) =>
    expect404(await b.client.post(`/blocklists/sources/${aSourceId}/refresh`), 'refresh list'),
  'POST /api/blocklists/preview': async ({ b }) => {
    // Nothing of A's to reach; the fetch opens no door to the server's own network either.
    const res = await b.client.post('/api/blocklists/preview', { url: 'http://127.0.0.1:9/list.txt' });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'url_not_allowed');
  },
  'POST /managed-users/:id/blocklists/update': async ({ a, b, aChildId, aSourceId, bChildId }) => {
    expect404(
      await b.client.post(`/managed-users/${aChildId}/blocklists/update`, { source_ids: [] }),
      'foreign child',
    );
    expect404(
      await b.client.post(`/managed-users/${bChildId}/blocklists/update`, { source_ids: [aSourceId] }),
      'foreign source',
    );
    assert.deepEqual((await a.client.get(`/api/managed-users/${aChildId}/blocklists`)).body.source_ids, [
      aSourceId,
    ]);
  },
  'GET /api/managed-users/:id/blocklists': async ({ b, aChildId }) =>
    expect404(await b.client.get(`/api/managed-users/${aChildId}/blocklists`), 'domain policy'),
  'GET /api/user/:id/blocklists/sync-status': async ({ b, aChildId }) =>
    expect404(await b.client.get(`/api/user/${aChildId}/blocklists/sync-status`), 'domain sync status'),
  'GET /api/managed-users/:id/domain-check': async ({ b, aChildId }) =>
    expect404(
      await b.client.get(`/api/managed-users/${aChildId}/domain-check?domain=a.example`),
      'domain check',
    ),
  'GET /api/task-status': async ({ b }) => assert.equal((await b.client.get('/api/task-status')).status, 200),
  'POST /restart-tasks': async ({ b }) => assert.equal((await b.client.post('/restart-tasks')).status, 200),
  'GET /api/pairing/windows/msi': async ({ b }) =>
    assert.equal((await b.client.get('/api/pairing/windows/msi')).status, 404),
  ...consoleCases('xbox'),
  ...consoleCases('nintendo'),
};

/** Household A linked both console accounts and imported a console of each; B reaches none of it. */
function consoleCases(provider: 'xbox' | 'nintendo'): Record<string, Case> {
  const aStillLinked = async (a: Household) => {
    const status = (await a.client.get(`/api/${provider}/account-status`)).body;
    assert.equal(status.linked, true, `${provider}: A is still linked`);
    assert.equal(status.consoles.length, 1);
  };
  return {
    [`GET /api/${provider}/login-url`]: async ({ a, b }) => {
      const res = await b.client.get(`/api/${provider}/login-url`);
      assert.equal(res.status, 200);
      await aStillLinked(a);
    },
    [`POST /api/${provider}/authenticate`]: async ({ a, b, aConsoleRedirect }) => {
      // The address of a sign-in A started cannot link B (Microsoft's address carries no state: the
      // sign-in's state is sent beside it, as the wizard does).
      const res = await b.client.post(`/api/${provider}/authenticate`, {
        redirect_url: aConsoleRedirect[provider].redirect,
        state: aConsoleRedirect[provider].state,
      });
      assert.equal(res.status, 400, res.text);
      assert.equal((await b.client.get(`/api/${provider}/account-status`)).body.linked, false);
      await aStillLinked(a);
    },
    [`GET /api/${provider}/devices`]: async ({ b }) =>
      assert.equal((await b.client.get(`/api/${provider}/devices`)).status, 409),
    [`GET /api/${provider}/account-status`]: async ({ b }) => {
      const status = (await b.client.get(`/api/${provider}/account-status`)).body;
      assert.equal(status.linked, false);
      assert.deepEqual(status.consoles, []);
    },
    [`POST /api/${provider}/import-device`]: async ({ b, aChildId }) =>
      expect404(
        await b.client.post(`/api/${provider}/import-device`, {
          console_id: provider === 'xbox' ? 'g:9002' : 'SW-0002',
          label: 'Stolen',
          player_id: provider === 'xbox' ? 'puid-kim' : 'pl-kim',
          managed_user_id: aChildId,
        }),
        `${provider} import for a foreign child`,
      ),
    [`POST /api/${provider}/unlink`]: async ({ a, b }) => {
      assert.deepEqual((await b.client.post(`/api/${provider}/unlink`)).body, { linked: false });
      await aStillLinked(a);
    },
    [`POST /api/${provider}/sync`]: async ({ a, b }) => {
      assert.equal((await b.client.post(`/api/${provider}/sync`)).status, 409);
      await aStillLinked(a);
    },
  };
}

const fill = (url: string, w: World) =>
  url
    .replace(':system_id', w.aDeviceId)
    .replace(':user_id', w.aChildId)
    .replace(':grant_id', w.aGrantId)
    .replace(
      ':id',
      url.includes('/blocklists/sources/')
        ? w.aSourceId
        : url.startsWith('/api/household/parents')
          ? w.aParentId
          : url.startsWith('/api/alerts')
            ? w.aAlertId
            : url.startsWith('/api/screenshots')
              ? w.aScreenshotId
              : url.startsWith('/api/mappings')
                ? w.aMappingId
                : url.startsWith('/api/approvals')
                  ? w.aRequestId
                  : w.aChildId,
    );

for (const db of testDatabases()) {
  describe(`route table (${db.name})`, () => {
    let world: World;
    let sims: Simulators;
    before(async () => {
      sims = await startSimulators();
      await sim(sims.xbox.url, 'POST', '/family', {
        parent: { id: 'puid-parent', name: 'Pat' },
        children: [
          { id: 'puid-sam', name: 'Sam', devices: [{ id: 'g:9001', name: 'Xbox' }] },
          { id: 'puid-kim', name: 'Kim', devices: [{ id: 'g:9002', name: 'Xbox 2' }] },
        ],
      });
      await sim(sims.nintendo.url, 'POST', '/family', {
        account: { id: 'na-parent', nickname: 'Pat' },
        devices: [
          { id: 'SW-0001', label: 'Switch', players: [{ id: 'pl-sam', nickname: 'Sam' }] },
          { id: 'SW-0002', label: 'Switch 2', players: [{ id: 'pl-kim', nickname: 'Kim' }] },
        ],
      });
      const server = await startTestServer(db, simulatorEnv(sims));
      const a = await createHousehold(server, 'A');
      const b = await createHousehold(server, 'B');
      const aChild = (await a.client.post('/api/user/create', { name: 'A child' })).body;
      const bChild = (await b.client.post('/api/user/create', { name: 'B child' })).body;
      const device = await createDevice(server, a.householdId);
      const pending = await createDevice(server, a.householdId, {
        status: 'pending',
        secure_token_hash: null,
      });
      const alert = await server.services.alerts.agentEvent(
        { systemId: device.system_id, householdId: a.householdId, linuxUsers: new Set(['ann']) },
        { type: 'alert_event', event_type: 'clock_tamper', linux_username: 'ann', detail: {} },
      );
      const mapping = (
        await a.client.post(`/managed-users/${aChild.id}/mappings/add`, {
          system_id: device.system_id,
          linux_username: 'ann',
        })
      ).body;
      const agentOfA = {
        systemId: device.system_id,
        householdId: a.householdId,
        platform: 'linux',
        agentVersion: '0.57.0',
        linuxUsers: ['ann'],
      };
      const request = await server.services.approvals.requestOther(agentOfA, {
        type: 'domain_unblock',
        linux_username: 'ann',
        details: { domain: 'a.example' },
      });
      await server.services.onlineAccounts.logLogin(agentOfA, {
        domain: 'a-only.example',
        username: 'a-secret-user',
        linux_username: 'ann',
      });
      const grant = (
        await a.client.post(`/api/mappings/${mapping.id}/approval-grants`, {
          domain: 'a.example',
          kind: 'persistent',
        })
      ).body;
      const source = (
        await a.client.post('/blocklists/sources/add', {
          name: 'A list',
          kind: 'manual',
          domains: ['a.example'],
        })
      ).body;
      await a.client.post(`/managed-users/${aChild.id}/blocklists/update`, { source_ids: [source.id] });
      const aConsoleRedirect = { xbox: { redirect: '', state: '' }, nintendo: { redirect: '', state: '' } };
      for (const provider of ['xbox', 'nintendo'] as const) {
        await linkAccount(a, provider);
        const imported = await a.client.post(`/api/${provider}/import-device`, {
          console_id: provider === 'xbox' ? 'g:9001' : 'SW-0001',
          label: `A ${provider}`,
          player_id: provider === 'xbox' ? 'puid-sam' : 'pl-sam',
          managed_user_id: aChild.id,
        });
        assert.equal(imported.status, 201, imported.text);
        const started = (await a.client.get(`/api/${provider}/login-url`)).body;
        aConsoleRedirect[provider] = { redirect: await signInAtVendor(started.url), state: started.state };
      }
      await server.services.consoles.idle();
      const screenshot = await uploadScreenshot(server.url, device.secure_token, pngImage(4, 4), {
        'content-type': 'image/png',
        'x-hearth-linux-username': 'ann',
      });
      assert.equal(screenshot.status, 201, JSON.stringify(screenshot.body));
      world = {
        aScreenshotId: screenshot.body.id,
        aConsoleRedirect,
        aSourceId: source.id,
        aDeviceToken: device.secure_token,
        aMappingId: mapping.id,
        aRequestId: request.view.id ?? '',
        aGrantId: grant.id,
        server,
        a,
        b,
        aChildId: aChild.id,
        aParentId: a.parentId,
        aDeviceId: device.system_id,
        aPendingId: pending.system_id,
        aAlertId: alert.id,
        bChildId: bChild.id,
      };
    });
    after(async () => {
      await world.server.close();
      await sims.close();
    });

    const sessionRoutes = () => world.server.app.routeTable.filter((r) => r.access.startsWith('session'));

    test('every route declares its access, and every session route has a cross-household case', () => {
      const routes = world.server.app.routeTable;
      assert.ok(routes.length > 10);
      const missing = sessionRoutes()
        .map((r) => `${r.method} ${r.url}`)
        .filter((key) => !(key in CROSS_HOUSEHOLD));
      assert.deepEqual(missing, [], `session routes without a cross-household case: ${missing.join(', ')}`);
    });

    test("another household reaches none of household A's data through any session route", async () => {
      for (const route of sessionRoutes()) {
        const run = CROSS_HOUSEHOLD[`${route.method} ${route.url}`];
        if (run) await run(world);
      }
    });

    test('every session route answers 401 without a session, and 401 with a forged cookie', async () => {
      for (const route of sessionRoutes()) {
        const anon = new Client(world.server.url);
        const res = await anon.request(
          route.method,
          fill(route.url, world),
          route.method === 'GET' ? {} : { json: {} },
        );
        assert.equal(res.status, 401, `${route.method} ${route.url}`);
        assert.equal(res.body.error.code, 'unauthenticated');
        anon.cookie = 'hearth_session=forged-value';
        assert.equal((await anon.request(route.method, fill(route.url, world))).status, 401);
      }
    });

    test('blocklist routes: malformed input is 400 with the envelope; the agent route needs its own device token', async () => {
      const { a, aChildId, aSourceId } = world;
      const bad: [string, string, unknown][] = [
        ['POST', '/blocklists/sources/add', { name: 'x', kind: 'both' }],
        ['POST', '/blocklists/sources/add', { kind: 'manual' }],
        ['PATCH', `/api/blocklists/sources/${aSourceId}`, { name: 42 }],
        ['POST', '/api/blocklists/preview', { url: '' }],
        ['POST', '/api/blocklists/preview', {}],
        ['POST', `/managed-users/${aChildId}/blocklists/update`, { source_ids: 'all' }],
        [
          'POST',
          `/managed-users/${aChildId}/blocklists/update`,
          { source_ids: [], block_domains: ['not a domain'] },
        ],
        ['POST', `/managed-users/${aChildId}/blocklists/update`, { source_ids: [], allow_domains: [7] }],
        ['GET', `/api/managed-users/${aChildId}/domain-check`, undefined],
        ['GET', `/api/managed-users/${aChildId}/domain-check?domain=not%20a%20domain`, undefined],
        ['GET', `/api/managed-users/${aChildId}/domain-check?domain=a.example&extra=1`, undefined],
      ];
      for (const [method, url, json] of bad) {
        const res = await a.client.request(method, url, json === undefined ? {} : { json });
        assert.equal(res.status, 400, `${method} ${url}: ${res.status} ${res.text}`);
        assert.equal(res.body.error.code, 'invalid_request', url);
        assert.equal(typeof res.body.error.message, 'string');
      }
      const agent = (token: string | null, query: string) =>
        fetch(`${world.server.url}/api/agent/domain-policy${query}`, {
          headers: token ? { authorization: `Bearer ${token}` } : {},
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
      assert.equal((await agent(null, '?linux_username=ann')).status, 401);
      const wrong = await agent('0'.repeat(64), '?linux_username=ann');
      assert.equal(wrong.status, 401);
      assert.equal(wrong.body.error.code, 'invalid_token');
      assert.equal((await agent(world.aDeviceToken, '')).status, 400);
      assert.equal((await agent(world.aDeviceToken, '?linux_username=')).status, 400);
      // An account the device never reported is not its to ask about.
      assert.equal((await agent(world.aDeviceToken, '?linux_username=someone-else')).status, 404);
      const own = await agent(world.aDeviceToken, '?linux_username=ann');
      assert.equal(own.status, 200);
      assert.deepEqual(own.body.block, ['a.example']);
    });

    test("the agent's account route: its own device token only, a reported account only, well-formed input only", async () => {
      const { a, aChildId } = world;
      await a.client.patch(`/managed-users/${aChildId}/overlay`, {
        overlay_age_tier: 'teen',
        overlay_parent_note: 'Back at six',
      });
      await a.client.post(`/api/mappings/${world.aMappingId}/approval-settings`, {
        enforce_signup_approvals: true,
      });
      const ask = (token: string | null, query: string) =>
        fetch(`${world.server.url}/api/agent/account${query}`, {
          headers: token ? { authorization: `Bearer ${token}` } : {},
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
      assert.equal((await ask(null, '?linux_username=ann')).status, 401);
      const wrong = await ask('0'.repeat(64), '?linux_username=ann');
      assert.equal(wrong.status, 401);
      assert.equal(wrong.body.error.code, 'invalid_token');
      for (const query of [
        '',
        '?linux_username=',
        '?linux_username=ann&extra=1',
        `?linux_username=${'a'.repeat(300)}`,
      ])
        assert.equal((await ask(world.aDeviceToken, query)).status, 400, query);
      // As the registration routes: an account the device never reported is bad input (400).
      assert.equal((await ask(world.aDeviceToken, '?linux_username=someone-else')).status, 400);
      const own = await ask(world.aDeviceToken, '?linux_username=ann');
      assert.equal(own.status, 200);
      assert.equal(own.body.managed_user_id, aChildId);
      assert.equal(own.body.age_tier, 'teen');
      assert.equal(own.body.parent_note, 'Back at six');
      assert.equal(own.body.signup_enforced, true);
      assert.equal(typeof own.body.child_name, 'string');
      assert.equal(typeof own.body.device_name, 'string');
    });

    test('every state-changing session route answers 403 csrf_failed without the token', async () => {
      for (const route of sessionRoutes().filter((r) => r.method !== 'GET')) {
        const res = await world.a.client.request(route.method, fill(route.url, world), {
          json: {},
          csrf: false,
        });
        assert.equal(res.status, 403, `${route.method} ${route.url}`);
        assert.equal(res.body.error.code, 'csrf_failed');
      }
    });
  });
}
