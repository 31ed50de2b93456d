import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MAX_ICON_BYTES } from '@hearth/protocol';
import {
  createHousehold,
  enrollmentToken,
  type Household,
  startTestServer,
  type TestServer,
} from '../../server/test/helpers.js';
import { AgentProcess, agentEnv, makeSysroot, type Sysroot } from './harness.js';
import { materialiseCorpus } from './inventory-corpus.js';

interface Item {
  linux_username: string;
  application_name: string;
  identifier: string;
  match_type: string;
  version_name: string;
  icon_hash: string | null;
  icon_url: string | null;
}

describe('the agent reports its installed applications to the real server', () => {
  let server: TestServer;
  let home: Household;
  let sys: Sysroot;
  const running: AgentProcess[] = [];
  const agent = (args: string[]) => {
    const p = new AgentProcess(args, agentEnv(sys, { PATH: '/usr/local/bin:/usr/bin:/bin' }));
    running.push(p);
    return p;
  };

  before(async () => {
    server = await startTestServer();
    home = await createHousehold(server, 'Inventory home');
    sys = makeSysroot([
      { username: 'ann', uid: 1000, display_name: 'Ann' },
      { username: 'ben', uid: 1001 },
    ]);
    await materialiseCorpus(sys.root);
  });
  after(async () => {
    await Promise.all(running.map((p) => p.stop()));
    await server?.close();
    sys?.cleanup();
  });

  test("approve → each account is reported with identifiers and icons → a parent's rescan sends again", async () => {
    const token = await enrollmentToken(home);
    const enrolling = agent(['enroll', '--server', server.url, '--token', token]);
    await enrolling.waitFor(() => enrolling.stdout.includes('Waiting for a parent'), 'waiting line');
    const systemId = JSON.parse(readFileSync(path.join(sys.stateDir, 'identity.json'), 'utf8')).data
      .system_id;
    assert.equal((await home.client.post(`/api/device/approve/${systemId}`)).status, 200);
    assert.equal(await enrolling.exited, 0);

    const daemon = agent(['run']);
    const reported = (user: string) =>
      daemon.lines.filter((l) => l.msg === 'installed apps reported' && l.linux_username === user);
    await daemon.waitFor(
      () => reported('ann').length === 1 && reported('ben').length === 1,
      'both accounts reported',
    );
    assert.ok(
      daemon.lines.some((l) => l.msg === 'icon skipped' && String(l.file).endsWith('bomb-icon-app.png')),
    );

    const res = await home.client.get(`/api/devices/${systemId}/installed-apps`);
    assert.equal(res.status, 200);
    const items = res.body.items as Item[];
    const of = (user: string) => items.filter((i) => i.linux_username === user);
    assert.equal(of('ben').length, reported('ben')[0]?.apps);
    const ann = new Map(of('ann').map((i) => [i.identifier, i]));
    const ben = new Map(of('ben').map((i) => [i.identifier, i]));
    assert.ok(ben.has('/usr/bin/vlc') && !ann.has('/usr/bin/vlc'), "ann's override hides VLC for her only");
    assert.ok(ann.has('/home/ann/.itch/itch'));
    const firefox = ben.get('/usr/lib/firefox-esr/firefox-esr');
    assert.deepEqual(
      { name: firefox?.application_name, type: firefox?.match_type, version: firefox?.version_name },
      { name: 'Firefox ESR', type: 'executable', version: '115.9.1esr-1~deb12u1' },
    );
    assert.ok(ben.has('/var/lib/flatpak/exports/bin/org.gnome.Chess'));
    assert.ok(ben.has('/snap/bin/spotify'));
    assert.ok(ben.has('/usr/bin/sh'));

    const withIcons = items.filter((i) => i.icon_hash);
    assert.ok(withIcons.length >= 30, `${withIcons.length} apps with icons`);
    for (const hash of new Set(withIcons.map((i) => i.icon_hash as string))) {
      const icon = await fetch(`${server.url}/api/apps/icons/${hash}`);
      assert.equal(icon.status, 200, `the server has icon ${hash}`);
      const bytes = Buffer.from(await icon.arrayBuffer());
      assert.ok(bytes.length <= MAX_ICON_BYTES);
      assert.equal(createHash('sha256').update(bytes).digest('hex'), hash);
    }

    // The rescan is answered at once and a fresh report follows, even though nothing changed.
    const refresh = await home.client.post(`/api/devices/${systemId}/installed-apps/refresh`);
    assert.equal(refresh.status, 202);
    assert.equal(refresh.body.queued, true);
    await daemon.waitFor(
      () => reported('ann').length === 2 && reported('ben').length === 2,
      'reported again',
    );
    assert.equal(reported('ben')[1]?.icons_sent, 0, 'icons the server has are not sent again');
    assert.equal(reported('ben')[1]?.apps_upserted, 0);
  });
});
