import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Frame, SimAgent } from '../../bench/src/simulator.js';
import { until } from './blocklists-fixture.js';
import { withChildAgents } from './child-agents.js';
import { addParent, Client, createHousehold, describeWithServer, SseReader } from './helpers.js';

const LINUX_OFF = {
  block_software_install: false,
  block_removable_media: false,
  block_account_changes: false,
  block_power_actions: false,
  block_terminal: false,
  disable_bluetooth: false,
  block_incognito: false,
  block_other_extensions: false,
  allowed_extension_ids: [] as string[],
  youtube_restricted: false,
};
const ANDROID_OFF = {
  camera_disabled: false,
  microphone_disabled: false,
  screen_capture_disabled: false,
  install_apps_disabled: false,
  uninstall_apps_disabled: false,
  factory_reset_disabled: false,
  bluetooth_disabled: false,
  location_mode: 'user_choice',
};
const EXTENSION = 'abcdefghijklmnopabcdefghijklmnop';

const isPolicyPush = (f: Frame) => f.type === 'command_request' && f.command === 'set_device_policy';
const argsOf = (f: Frame) => f.args as Record<string, any>;

describeWithServer('device policies', { household: 'Policy home' }, (suite) => {
  const ctx = withChildAgents(suite, { child: 'Dee', spareAccount: 'guest' });
  const owner = () => ctx.home.client;
  const put = (client: Client, url: string, json: unknown) => client.request('PUT', url, { json });
  const linuxUrl = (mappingId: string) => `/api/mappings/${mappingId}/linux-device-policy`;
  const androidUrl = (mappingId: string) => `/api/mappings/${mappingId}/android-device-policy`;
  const deviceUrl = (systemId: string) => `/api/devices/${systemId}/android-device-policy`;
  const stream = () => SseReader.open(`${ctx.server.url}/api/dashboard/events`, owner().cookie ?? '');

  test('a Linux policy: defaults, a PUT pushes it, the agent applies it and the GET says synced with its rules', async () => {
    const { agent, mappingId } = await ctx.pairedAgent();
    const fresh = await owner().get(linuxUrl(mappingId));
    assert.equal(fresh.status, 200, fresh.text);
    assert.deepEqual(fresh.body, {
      mapping_id: mappingId,
      version: 0,
      ...LINUX_OFF,
      sync: { status: 'synced', applied_version: null, last_attempt_at: null, error: null },
    });
    const events = await stream();
    try {
      const pushed = agent.waitFor(isPolicyPush, 10_000);
      const policy = {
        ...LINUX_OFF,
        block_terminal: true,
        block_incognito: true,
        allowed_extension_ids: [EXTENSION],
      };
      const saved = await put(owner(), linuxUrl(mappingId), policy);
      assert.equal(saved.status, 200, saved.text);
      assert.equal(saved.body.version, 1);
      assert.equal(saved.body.block_terminal, true);
      assert.equal(saved.body.sync.status, 'pending', 'pending until the agent says it applied it');
      const push = argsOf(await pushed);
      assert.deepEqual(push, { kind: 'linux', linux_username: 'kid', version: 1, policy });

      agent.send({
        type: 'policy_applied',
        kind: 'linux',
        linux_username: 'kid',
        version: 1,
        rules: { block_terminal: { status: 'applied' }, block_incognito: { status: 'applied' } },
      });
      const event = await events.next((e) => e.event === 'device_policy_applied', 10_000);
      assert.deepEqual(event.data, {
        system_id: agent.systemId,
        kind: 'linux',
        linux_username: 'kid',
        version: 1,
        ok: true,
      });
      const synced = (await owner().get(linuxUrl(mappingId))).body;
      assert.equal(synced.sync.status, 'synced', JSON.stringify(synced.sync));
      assert.equal(synced.sync.applied_version, 1);
      assert.deepEqual(synced.sync.rules, {
        block_terminal: { status: 'applied' },
        block_incognito: { status: 'applied' },
      });
    } finally {
      events.close();
    }
  });

  test('a failed rule makes the sync failed, names the rule, and the live event says ok:false', async () => {
    const { agent, mappingId } = await ctx.pairedAgent();
    const events = await stream();
    try {
      const pushed = agent.waitFor(isPolicyPush, 10_000);
      const saved = await put(owner(), linuxUrl(mappingId), { ...LINUX_OFF, disable_bluetooth: true });
      assert.equal(saved.status, 200, saved.text);
      await pushed;
      agent.send({
        type: 'policy_applied',
        kind: 'linux',
        linux_username: 'kid',
        version: 1,
        rules: {
          disable_bluetooth: { status: 'failed', reason: 'rfkill is not installed' },
          block_terminal: { status: 'unsupported', reason: 'no desktop entries' },
        },
      });
      const event = await events.next(
        (e) => e.event === 'device_policy_applied' && e.data.system_id === agent.systemId,
        10_000,
      );
      assert.equal(event.data.ok, false, 'a failed rule is not ok');
      const view = (await owner().get(linuxUrl(mappingId))).body;
      assert.equal(view.sync.status, 'failed');
      assert.equal(view.sync.applied_version, 1);
      assert.match(view.sync.error, /disable_bluetooth: rfkill is not installed/);
      assert.equal(view.sync.rules.block_terminal.status, 'unsupported');
    } finally {
      events.close();
    }
  });

  test('an error answer to the push fails it with the agent’s words', async () => {
    const { agent, mappingId } = await ctx.pairedAgent({
      respond: (command) =>
        command === 'set_device_policy'
          ? { success: false, error: 'policy store is read-only' }
          : { success: true },
    });
    const saved = await put(owner(), linuxUrl(mappingId), { ...LINUX_OFF, block_power_actions: true });
    assert.equal(saved.status, 200, saved.text);
    assert.equal(saved.body.sync.status, 'failed', JSON.stringify(saved.body.sync));
    assert.match(saved.body.sync.error, /read-only/);
    await agent.stop();
  });

  test('while offline the push waits in the queue; a newer one replaces it; on connect only the newest arrives', async () => {
    const { agent, mappingId } = await ctx.pairedAgent();
    await agent.stop();
    await until(
      () => owner().get(`/api/devices/${agent.systemId}`),
      (r) => r.body.online === false,
    );
    const first = await put(owner(), linuxUrl(mappingId), { ...LINUX_OFF, block_terminal: true });
    assert.equal(first.body.sync.status, 'pending');
    const second = await put(owner(), linuxUrl(mappingId), { ...LINUX_OFF, block_software_install: true });
    assert.equal(second.body.version, 2);
    const queued = (await ctx.server.services.queue.list(agent.systemId)).filter(
      (c) => c.command === 'set_device_policy',
    );
    assert.equal(queued.length, 1, 'one queued push per kind and account');
    assert.equal(JSON.parse(queued[0]?.args ?? '{}').version, 2);

    const again = new SimAgent({
      url: ctx.server.wsUrl,
      systemId: agent.systemId,
      secureToken: agent.secureToken,
      linuxUsers: [{ username: 'kid' }, { username: 'guest' }],
    });
    ctx.agents.push(again);
    const delivered = again.waitFor(isPolicyPush, 10_000);
    await again.connect();
    const push = argsOf(await delivered);
    assert.equal(push.version, 2);
    assert.equal(push.policy.block_software_install, true);
    assert.equal(push.policy.block_terminal, false);
    again.send({ type: 'policy_applied', kind: 'linux', linux_username: 'kid', version: 2, rules: {} });
    const synced = await until(
      () => owner().get(linuxUrl(mappingId)),
      (r) => r.body.sync.status === 'synced',
    );
    assert.equal(synced.body.sync.applied_version, 2, JSON.stringify(synced.body.sync));
    await again.stop();
  });

  test('an old answer does not mark a newer version synced', async () => {
    const { agent, mappingId } = await ctx.pairedAgent();
    await put(owner(), linuxUrl(mappingId), { ...LINUX_OFF, block_terminal: true });
    await put(owner(), linuxUrl(mappingId), { ...LINUX_OFF, block_incognito: true });
    agent.send({ type: 'policy_applied', kind: 'linux', linux_username: 'kid', version: 1, rules: {} });
    agent.send({ type: 'policy_applied', kind: 'linux', linux_username: 'kid', version: 2, rules: {} });
    const view = await until(
      () => owner().get(linuxUrl(mappingId)),
      (r) => r.body.sync.applied_version === 2,
    );
    assert.equal(view.body.sync.status, 'synced');
    await agent.stop();
  });

  test('an answer in DESIGN §12’s short form, {kind, version} with no account, acknowledges the device’s policy waiting for that version', async () => {
    const { agent, mappingId } = await ctx.pairedAgent();
    const events = await stream();
    try {
      const pushed = agent.waitFor(isPolicyPush, 10_000);
      await put(owner(), linuxUrl(mappingId), { ...LINUX_OFF, block_power_actions: true });
      const push = argsOf(await pushed);
      agent.send({ type: 'policy_applied', kind: 'linux', version: push.version });
      const event = await events.next((e) => e.event === 'device_policy_applied', 10_000);
      assert.deepEqual(event.data, {
        system_id: agent.systemId,
        kind: 'linux',
        linux_username: 'kid',
        version: push.version,
        ok: true,
      });
      const view = (await owner().get(linuxUrl(mappingId))).body;
      assert.equal(view.sync.status, 'synced', JSON.stringify(view.sync));
      assert.equal(view.sync.applied_version, push.version);
    } finally {
      events.close();
      await agent.stop();
    }
  });

  test('bad documents are 400 with the envelope; a policy of the other platform is 400 naming it', async () => {
    const { mappingId, agent } = await ctx.pairedAgent();
    const bad: unknown[] = [
      { ...LINUX_OFF, extra: true },
      { ...LINUX_OFF, block_terminal: 'yes' },
      { ...LINUX_OFF, block_terminal: 1 },
      { ...LINUX_OFF, allowed_extension_ids: ['not-an-extension'] },
      { ...LINUX_OFF, allowed_extension_ids: 'abc' },
      (({ youtube_restricted, ...rest }) => rest)(LINUX_OFF),
      [],
      null,
    ];
    for (const body of bad) {
      const res = await put(owner(), linuxUrl(mappingId), body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.status} ${res.text}`);
      assert.equal(res.body.error.code, 'invalid_request', res.text);
      assert.equal(typeof res.body.error.message, 'string', res.text);
    }
    for (const body of [
      { ...ANDROID_OFF, location_mode: 'sometimes' },
      { ...ANDROID_OFF, camera: true },
    ]) {
      const res = await put(owner(), deviceUrl(agent.systemId), body);
      assert.equal(res.status, 400, res.text);
    }
    const wrongKind = await put(owner(), androidUrl(mappingId), ANDROID_OFF);
    assert.equal(wrongKind.status, 400, wrongKind.text);
    assert.match(
      wrongKind.body.error.message,
      /Linux device; a Android device policy applies only to Android/,
    );
    // Reading the other platform's policy is no mistake: there is nothing this device can apply.
    const otherKind = await owner().get(androidUrl(mappingId));
    assert.equal(otherKind.status, 200, otherKind.text);
    assert.equal(otherKind.body.sync.status, 'unsupported');
    const notAndroidRead = await owner().get(deviceUrl(agent.systemId));
    assert.equal(notAndroidRead.body.sync.status, 'unsupported', notAndroidRead.text);
    const notAndroid = await put(owner(), deviceUrl(agent.systemId), ANDROID_OFF);
    assert.equal(notAndroid.status, 400, notAndroid.text);
    assert.match(notAndroid.body.error.message, /only to Android devices/);
    await agent.stop();
  });

  test('401 without a session; 404 for unknown ids and another household’s; 403 for a member who may only view', async () => {
    const { mappingId, agent } = await ctx.pairedAgent();
    const android = await ctx.pairedAgent({ platform: 'android' });
    const anon = new Client(ctx.server.url);
    for (const url of [
      linuxUrl(mappingId),
      androidUrl(android.mappingId),
      deviceUrl(android.agent.systemId),
    ]) {
      const res = await anon.get(url);
      assert.equal(res.status, 401, url);
      assert.equal(res.body.error.code, 'unauthenticated', url);
      assert.equal((await anon.request('PUT', url, { json: LINUX_OFF })).status, 401, url);
    }
    for (const url of [
      linuxUrl('no-such-mapping'),
      androidUrl('no-such-mapping'),
      deviceUrl('no-such-device'),
    ]) {
      const res = await owner().get(url);
      assert.equal(res.status, 404, url);
      assert.equal(res.body.error.code, 'not_found', url);
    }
    const other = await createHousehold(ctx.server, 'Other');
    for (const [url, body] of [
      [linuxUrl(mappingId), LINUX_OFF],
      [androidUrl(android.mappingId), ANDROID_OFF],
      [deviceUrl(android.agent.systemId), ANDROID_OFF],
    ] as const) {
      assert.equal((await other.client.get(url)).status, 404, url);
      const res = await put(other.client, url, body);
      assert.equal(res.status, 404, `${url}: ${res.text}`);
      assert.equal(res.body.error.code, 'not_found', url);
    }

    const viewer = await addParent(ctx.server, ctx.home, 'member', [
      { managed_user_id: ctx.childId, can_view: true, can_manage_policies: false },
    ]);
    assert.equal((await viewer.get(linuxUrl(mappingId))).status, 200, 'a viewer sees the policy');
    assert.equal((await viewer.get(deviceUrl(android.agent.systemId))).status, 200, 'and the device one');
    for (const [url, body] of [
      [linuxUrl(mappingId), LINUX_OFF],
      [androidUrl(android.mappingId), ANDROID_OFF],
      [deviceUrl(android.agent.systemId), ANDROID_OFF],
    ] as const) {
      const res = await put(viewer, url, body);
      assert.equal(res.status, 403, `${url}: ${res.text}`);
      assert.equal(res.body.error.code, 'forbidden', url);
    }
    const stranger = await addParent(ctx.server, ctx.home, 'member', []);
    assert.equal((await stranger.get(linuxUrl(mappingId))).status, 404, 'a member who may not see the child');
    const manager = await addParent(ctx.server, ctx.home, 'member', [
      { managed_user_id: ctx.childId, can_view: true, can_manage_policies: true },
    ]);
    const managed = await put(manager, linuxUrl(mappingId), { ...LINUX_OFF, block_terminal: true });
    assert.equal(managed.status, 200, managed.text);
    const deviceWide = await put(manager, deviceUrl(android.agent.systemId), ANDROID_OFF);
    assert.equal(deviceWide.status, 200, deviceWide.text);
    await agent.stop();
    await android.agent.stop();
  });

  test('Android: the per-profile and the device-owner policy each go to the device and are acknowledged apart', async () => {
    const { agent, mappingId } = await ctx.pairedAgent({ platform: 'android' });
    const profilePush = agent.waitFor(isPolicyPush, 10_000);
    const profile = await put(owner(), androidUrl(mappingId), { ...ANDROID_OFF, camera_disabled: true });
    assert.equal(profile.status, 200, profile.text);
    assert.equal(profile.body.mapping_id, mappingId);
    assert.deepEqual(argsOf(await profilePush), {
      kind: 'android',
      linux_username: 'kid',
      version: 1,
      policy: { ...ANDROID_OFF, camera_disabled: true },
    });

    const devicePush = agent.waitFor(isPolicyPush, 10_000);
    const wide = await put(owner(), deviceUrl(agent.systemId), {
      ...ANDROID_OFF,
      factory_reset_disabled: true,
      location_mode: 'on',
    });
    assert.equal(wide.status, 200, wide.text);
    assert.equal(wide.body.system_id, agent.systemId);
    assert.equal(wide.body.mapping_id, undefined);
    const args = argsOf(await devicePush);
    assert.equal(args.kind, 'android');
    assert.equal('linux_username' in args, false, 'the device-wide policy names no account');
    assert.equal(args.policy.location_mode, 'on');

    agent.send({
      type: 'policy_applied',
      kind: 'android',
      version: 1,
      rules: { factory_reset_disabled: { status: 'applied' } },
    });
    const synced = await until(
      () => owner().get(deviceUrl(agent.systemId)),
      (r) => r.body.sync.status === 'synced',
    );
    assert.equal(synced.body.sync.applied_version, 1, JSON.stringify(synced.body.sync));
    assert.equal(
      (await owner().get(androidUrl(mappingId))).body.sync.status,
      'pending',
      'the profile is still waiting',
    );
    agent.send({ type: 'policy_applied', kind: 'android', linux_username: 'kid', version: 1, rules: {} });
    await until(
      () => owner().get(androidUrl(mappingId)),
      (r) => r.body.sync.status === 'synced',
    );
    await agent.stop();
  });

  test('an Android phone provisioned from the QR enrols with its extras and is handed the device-owner policy set while it waited', async () => {
    const provisioning = (await owner().get('/api/pairing/provisioning/config')).body;
    const extras = provisioning.payload['android.app.extra.PROVISIONING_ADMIN_EXTRAS_BUNDLE'];
    assert.equal(
      provisioning.payload['android.app.extra.PROVISIONING_DEVICE_ADMIN_COMPONENT_NAME'],
      'com.hearth.agent/.HearthDeviceAdminReceiver',
    );
    const phone = new SimAgent({
      url: extras.hearth_ws_url,
      enrollmentToken: extras.hearth_enrollment_token,
      platform: 'android',
      linuxUsers: [{ username: 'owner-profile' }],
    });
    ctx.agents.push(phone);
    const answer = await phone.connect();
    assert.equal(answer.status, 'pending', JSON.stringify(answer));

    const policy = { ...ANDROID_OFF, factory_reset_disabled: true, install_apps_disabled: true };
    const waiting = await put(owner(), deviceUrl(phone.systemId), policy);
    assert.equal(waiting.status, 200, waiting.text);
    assert.equal(waiting.body.sync.status, 'pending', 'queued until the phone is approved');

    const pushed = phone.waitFor(isPolicyPush, 10_000);
    await owner().post(`/api/device/approve/${phone.systemId}`);
    assert.deepEqual(argsOf(await pushed), { kind: 'android', version: 1, policy });
    phone.send({
      type: 'policy_applied',
      kind: 'android',
      version: 1,
      rules: {
        factory_reset_disabled: { status: 'applied' },
        install_apps_disabled: { status: 'applied' },
      },
    });
    const synced = await until(
      () => owner().get(deviceUrl(phone.systemId)),
      (r) => r.body.sync.status === 'synced',
    );
    assert.equal(
      synced.body.sync.rules.factory_reset_disabled.status,
      'applied',
      JSON.stringify(synced.body),
    );
    await phone.stop();
  });

  test('an agent older than 0.57.0 cannot apply it: unsupported, and nothing is pushed', async () => {
    const { agent, mappingId } = await ctx.pairedAgent({ agentVersion: '0.56.2' });
    const saved = await put(owner(), linuxUrl(mappingId), { ...LINUX_OFF, block_terminal: true });
    assert.equal(saved.status, 200, saved.text);
    assert.equal(saved.body.sync.status, 'unsupported');
    assert.equal(agent.frames.filter(isPolicyPush).length, 0, 'no push to an agent that cannot apply it');
    await agent.stop();
  });

  test('removing the mapping removes its policy and sends the account the all-off policy', async () => {
    const { agent, mappingId } = await ctx.pairedAgent();
    await put(owner(), linuxUrl(mappingId), { ...LINUX_OFF, block_terminal: true });
    const released = agent.waitFor((f) => isPolicyPush(f) && argsOf(f).version === 0, 10_000);
    const removed = await owner().delete(`/api/mappings/${mappingId}`);
    assert.equal(removed.status, 200, removed.text);
    assert.deepEqual(argsOf(await released), {
      kind: 'linux',
      linux_username: 'kid',
      version: 0,
      policy: LINUX_OFF,
    });
    assert.equal((await owner().get(linuxUrl(mappingId))).status, 404, 'the mapping and its policy are gone');
    await agent.stop();
  });
});
