// GET_STATUS: the extension's popup and pages learn through the agent which child an account belongs to,
// the child's overlay tier and note, and whether sign-ups wait for a parent — still answered from what
// the agent kept while the server is away.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  createHousehold,
  type Household,
  startTestServer,
  type TestServer,
} from '../../server/test/helpers.js';
import { IpcClient, startApprovedAgent } from './approved-agent.js';
import { type AgentProcess, makeSysroot, type Sysroot } from './harness.js';

describe('GET_STATUS over the IPC socket', () => {
  let server: TestServer;
  let home: Household;
  let sys: Sysroot;
  let systemId: string;
  let daemon: AgentProcess;
  const running: AgentProcess[] = [];
  const clients: IpcClient[] = [];

  before(async () => {
    server = await startTestServer();
    home = await createHousehold(server, 'Status home');
    sys = makeSysroot([
      { username: 'ann', uid: 1000, display_name: 'Ann' },
      { username: 'dad', uid: 1001 },
    ]);
    ({ systemId, daemon } = await startApprovedAgent(server, home, sys, running));
  });
  after(async () => {
    for (const c of clients) c.close();
    await Promise.all(running.map((p) => p.stop()));
    await server?.close();
    sys?.cleanup();
  });

  const connect = async (uid: number) => {
    const c = await IpcClient.connect(path.join(sys.runDir, 'users', String(uid), 'ipc.sock'));
    clients.push(c);
    return c;
  };

  test("a child's account answers her tier, note and enforcement; a parent's account belongs to no child; offline it still answers", async () => {
    const child = (await home.client.post('/api/user/create', { name: 'Ann', overlay_age_tier: 'under8' }))
      .body;
    await home.client.patch(`/managed-users/${child.id}/overlay`, { overlay_parent_note: 'Dinner at six' });
    const mapping = (
      await home.client.post(`/managed-users/${child.id}/mappings/add`, {
        system_id: systemId,
        linux_username: 'ann',
      })
    ).body;
    await home.client.post(`/api/mappings/${mapping.id}/approval-settings`, {
      enforce_signup_approvals: true,
    });

    const ann = await connect(1000);
    const status = await ann.request({ type: 'GET_STATUS' });
    assert.equal(status.linux_username, 'ann');
    assert.equal(status.child_name, 'Ann');
    assert.equal(status.managed_user_id, child.id);
    assert.equal(status.age_tier, 'under8');
    assert.equal(status.parent_note, 'Dinner at six');
    assert.equal(status.signup_enforced, true);
    assert.equal(status.connected, true);
    assert.equal(status.device_name, 'family-laptop');

    // The account decides, not the message: dad's socket answers for dad, whatever he claims.
    const dad = await connect(1001);
    const his = await dad.request({ type: 'GET_STATUS', linux_username: 'ann' });
    assert.equal(his.linux_username, 'dad');
    assert.equal(his.child_name, null);
    assert.equal(his.signup_enforced, false);

    await server.close();
    await daemon.waitForLog('disconnected from the server');
    const offline = await ann.request({ type: 'GET_STATUS' });
    assert.equal(offline.connected, false);
    assert.equal(offline.age_tier, 'under8');
    assert.equal(offline.parent_note, 'Dinner at six');
  });
});
