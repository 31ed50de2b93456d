// The browsers' managed policies: once approved, the agent learns the extension ID the server signs its
// extension with and makes every Chromium-based browser force-install it from that server; the native
// host lets that ID in. The files stay while the server is away and go with `install --uninstall`.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EXTENSION_ID } from '@hearth/protocol';
import {
  createHousehold,
  type Household,
  startTestServer,
  type TestServer,
} from '../../server/test/helpers.js';
import { MANAGED_POLICY_DIRS, POLICY_FILE, removeBrowserPolicies } from '../src/browser-policy.js';
import { agentPaths } from '../src/paths.js';
import { NATIVE_HOST_DIRS } from '../src/system-files.js';
import { startApprovedAgent } from './approved-agent.js';
import { AgentProcess, agentEnv, makeSysroot, type Sysroot } from './harness.js';

describe('browser policies: the server’s extension is force-installed in every Chromium-based browser', () => {
  let server: TestServer;
  let home: Household;
  let sys: Sysroot;
  let dist: string;
  const running: AgentProcess[] = [];

  before(async () => {
    dist = mkdtempSync(path.join(tmpdir(), 'hearth-ext-dist-'));
    writeFileSync(
      path.join(dist, 'manifest.json'),
      JSON.stringify({ manifest_version: 3, name: 'Hearth', version: '0.57.0' }),
    );
    writeFileSync(path.join(dist, 'worker.js'), '');
    server = await startTestServer(undefined, { HEARTH_EXTENSION_DIR: dist });
    home = await createHousehold(server, 'Browser home');
    sys = makeSysroot([{ username: 'ann', uid: 1000 }]);
  });
  after(async () => {
    await Promise.all(running.map((p) => p.stop()));
    await server?.close();
    sys?.cleanup();
    rmSync(dist, { recursive: true, force: true });
  });

  test('approved → policies name the server’s extension ID and update URL; host manifests allow it; kept offline', async () => {
    const { daemon } = await startApprovedAgent(server, home, sys, running);
    const written = await daemon.waitForLog('browser policies written');
    const xml = await (await fetch(`${server.url}/extension/update.xml`)).text();
    const id = /appid='([a-p]{32})'/.exec(xml)?.[1];
    assert.ok(id && id !== EXTENSION_ID, 'the deployment signs with its own key');
    assert.equal(written.extension_id, id);

    for (const dir of Object.values(MANAGED_POLICY_DIRS)) {
      const policy = JSON.parse(readFileSync(path.join(sys.root, dir, POLICY_FILE), 'utf8'));
      assert.deepEqual(
        policy,
        { ExtensionInstallForcelist: [`${id};${server.url}/extension/update.xml`] },
        dir,
      );
    }
    for (const dir of Object.values(NATIVE_HOST_DIRS)) {
      const manifest = JSON.parse(readFileSync(path.join(sys.root, dir, 'com.hearth.agent.json'), 'utf8'));
      assert.deepEqual(manifest.allowed_origins, [
        `chrome-extension://${EXTENSION_ID}/`,
        `chrome-extension://${id}/`,
      ]);
    }

    // Someone deletes a policy while the server is away: the agent puts it back from what it kept.
    await daemon.stop();
    await server.close();
    server = await startTestServer(undefined, { HEARTH_EXTENSION_DIR: dist });
    const chromium = path.join(sys.root, MANAGED_POLICY_DIRS.chromium, POLICY_FILE);
    rmSync(chromium);
    // The new server (another deployment, another key) is unreachable for this agent's old address.
    const again = new AgentProcess(['run'], agentEnv(sys));
    running.push(again);
    await again.waitForLog('browser policies written', (l) => l.extension_id === id);
    assert.ok(existsSync(chromium), 'restored from the kept ID while offline');

    const paths = agentPaths({ ...process.env, ...agentEnv(sys) });
    const removed = removeBrowserPolicies(paths);
    assert.equal(removed.length, Object.keys(MANAGED_POLICY_DIRS).length);
    for (const dir of Object.values(MANAGED_POLICY_DIRS))
      assert.ok(!existsSync(path.join(sys.root, dir, POLICY_FILE)));
    mkdirSync(path.join(sys.root, MANAGED_POLICY_DIRS.chrome), { recursive: true });
    assert.ok(existsSync(path.join(sys.root, MANAGED_POLICY_DIRS.chrome)), 'the browsers’ folders stay');
  });
});
