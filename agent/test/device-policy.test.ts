// Device policies on Linux (issue 19): the real agent process enforces `set_device_policy` for one
// account in a temporary root holding this machine's real application entries — polkit rules, hidden
// terminal entries and ended terminals, Bluetooth through an rfkill stand-in, the browsers' managed
// policies beside the force-installed extension — reports each rule, keeps the policy across a restart
// and undoes exactly what it did when the rules go off. The server is a loopback stand-in.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import vm from 'node:vm';
import { EXTENSION_ID, LINUX_POLICY_RULES } from '@hearth/protocol';
import { MANAGED_POLICY_DIRS, POLICY_FILE } from '../src/browser-policy.js';
import { ALL_OFF } from '../src/device-policy/module.js';
import { OVERRIDE_MARK } from '../src/device-policy/terminals.js';
import { IpcClient } from './approved-agent.js';
import { FakeHearth } from './fake-server.js';
import { AgentProcess, agentEnv, CLI, makeSysroot, ROOT, type Sysroot } from './harness.js';

const SERVER_EXTENSION = 'abcdefghijklmnopabcdefghijklmnop';
const ALLOWED = 'ponmlkjihgfedcbaponmlkjihgfedcba';
const ALL_ON = {
  ...Object.fromEntries(LINUX_POLICY_RULES.map((r) => [r, true])),
  allowed_extension_ids: [ALLOWED],
};
const POLKIT_FILE = 'etc/polkit-1/rules.d/60-hearth-ann.rules';

/** What polkitd would answer: the rules file run as polkit runs it, asked about one action and user. */
function polkitAnswer(rules: string, actionId: string, user: string): string {
  const added: ((action: unknown, subject: unknown) => unknown)[] = [];
  const polkit = {
    Result: { NO: 'no', YES: 'yes', NOT_HANDLED: null, AUTH_ADMIN: 'auth_admin' },
    addRule: (f: (action: unknown, subject: unknown) => unknown) => added.push(f),
  };
  vm.runInNewContext(rules, { polkit });
  for (const rule of added) {
    const answer = rule({ id: actionId }, { user });
    if (answer !== null && answer !== undefined) return String(answer);
  }
  return 'not_handled';
}

function waitForExit(child: ChildProcess): Promise<NodeJS.Signals | number | null> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve(child.signalCode ?? child.exitCode);
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
}

describe('device policy: enforced for one account, reported per rule, kept, and undone exactly', () => {
  let fake: FakeHearth;
  let sys: Sysroot;
  let agent: AgentProcess;
  let rfkillLog: string;
  let env: Record<string, string>;
  const children: ChildProcess[] = [];
  const running: AgentProcess[] = [];

  const annApps = () => path.join(sys.home('ann'), '.local/share/applications');
  const chromium = () =>
    JSON.parse(readFileSync(path.join(sys.root, MANAGED_POLICY_DIRS.chromium, POLICY_FILE), 'utf8'));
  const rfkillCalls = () =>
    existsSync(rfkillLog) ? readFileSync(rfkillLog, 'utf8').split('\n').filter(Boolean) : [];
  const send = (version: number, policy: Record<string, unknown>, username = 'ann') =>
    fake.command('set_device_policy', { kind: 'linux', linux_username: username, version, policy });
  const applied = (version: number, username = 'ann') =>
    fake.frame(
      (f) =>
        f.type === 'policy_applied' &&
        f.kind === 'linux' &&
        f.version === version &&
        f.linux_username === username,
    );
  /** A program of `uid` whose executable is called `name` (a copy of sleep). */
  const runAs = (uid: number, name: string) => {
    const file = path.join(sys.root, 'opt/bin', name);
    if (!existsSync(file)) copyFileSync('/usr/bin/sleep', file);
    chmodSync(file, 0o755);
    const child = spawn(file, ['600'], { uid, gid: uid, stdio: 'ignore' });
    children.push(child);
    return child;
  };

  before(async () => {
    fake = new FakeHearth();
    fake.routes.set('GET /extension/update.xml', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(
        `<?xml version='1.0'?><gupdate xmlns='http://www.google.com/update2/response' protocol='2.0'><app appid='${SERVER_EXTENSION}'><updatecheck codebase='x' version='1'/></app></gupdate>`,
      );
    });
    await fake.listen();
    sys = makeSysroot([
      { username: 'ann', uid: 1000 },
      { username: 'bob', uid: 1001 },
    ]);
    // Ann's own processes write her overrides: her home must be hers, and the tree reachable.
    chmodSync(sys.root, 0o755);
    chownSync(sys.home('ann'), 1000, 1000);
    // This machine's real application entries, and a few well-known terminals beside them.
    const apps = path.join(sys.root, 'usr/share/applications');
    mkdirSync(apps, { recursive: true });
    if (existsSync('/usr/share/applications'))
      for (const f of readdirSync('/usr/share/applications').filter((n) => n.endsWith('.desktop')))
        copyFileSync(path.join('/usr/share/applications', f), path.join(apps, f));
    const entry = (name: string, extra = '') =>
      `[Desktop Entry]\nType=Application\nName=${name}\nExec=${name.toLowerCase()}\n${extra}`;
    writeFileSync(
      path.join(apps, 'org.gnome.Terminal.desktop'),
      entry('Terminal', 'Categories=GNOME;GTK;System;\n'),
    );
    writeFileSync(path.join(apps, 'debian-xterm.desktop'), entry('XTerm'));
    writeFileSync(path.join(apps, 'kitty.desktop'), entry('kitty', 'Categories=System;TerminalEmulator;\n'));
    writeFileSync(
      path.join(apps, 'my-term.desktop'),
      entry('MyTerm', 'Categories=System;TerminalEmulator;\n'),
    );
    writeFileSync(path.join(apps, 'gimp.desktop'), entry('GIMP', 'Categories=Graphics;\n'));
    // Ann made her own kitty entry: Hearth must never overwrite or remove it.
    mkdirSync(annApps(), { recursive: true });
    writeFileSync(path.join(annApps(), 'kitty.desktop'), entry('My kitty', 'Exec=kitty --single-instance\n'));
    chownSync(path.join(sys.home('ann'), '.local'), 1000, 1000);
    chownSync(path.join(sys.home('ann'), '.local/share'), 1000, 1000);
    chownSync(annApps(), 1000, 1000);
    // Firefox is installed too (Debian's default browser): Hearth does not manage it, and says so.
    mkdirSync(path.join(sys.root, 'usr/lib/firefox-esr'), { recursive: true });
    mkdirSync(path.join(sys.root, 'etc/polkit-1/rules.d'), { recursive: true });
    mkdirSync(path.join(sys.root, 'sys/class/rfkill'), { recursive: true });
    mkdirSync(path.join(sys.root, 'opt/bin'), { recursive: true });
    // rfkill stood in for: records each call; the radio starts unblocked.
    rfkillLog = path.join(sys.root, 'rfkill.log');
    const rfkill = path.join(sys.root, 'opt/bin/rfkill');
    writeFileSync(
      rfkill,
      `#!/bin/sh\necho "$*" >> '${rfkillLog}'\nif [ "$1" = list ]; then printf '0: hci0: Bluetooth\\n\\tSoft blocked: no\\n\\tHard blocked: no\\n'; fi\n`,
    );
    chmodSync(rfkill, 0o755);
    fake.enrol(sys);
    env = agentEnv(sys, {
      HEARTH_AGENT_RFKILL: rfkill,
      HEARTH_AGENT_PROCESS_POLL_MS: '100',
      XDG_DATA_DIRS: '/usr/local/share:/usr/share',
      HEARTH_AGENT_LOGINCTL: path.join(sys.root, 'no-loginctl'),
    });
    agent = new AgentProcess(['run'], env);
    running.push(agent);
    await agent.waitForLog('connected to the server');
    await agent.waitForLog('browser policies written', (l) => l.extension_id === SERVER_EXTENSION);
  });
  after(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await Promise.all(running.map((p) => p.stop()));
    await fake?.close();
    sys?.cleanup();
  });

  test('every rule on for ann: polkit says no to her only, terminals hidden and ended, Bluetooth off, browsers restricted beside the force-install', async () => {
    const annTerminal = runAs(1000, 'xterm');
    const annOther = runAs(1000, 'gimp');
    const bobTerminal = runAs(1001, 'konsole');
    const from = fake.frames.length;
    const answer = await send(1, ALL_ON);
    assert.equal(answer.success, true, `the command succeeded: ${String(answer.error)}`);
    const ack = await applied(1);
    assert.ok(fake.frames.indexOf(ack) >= from, 'policy_applied came after the command');
    assert.equal(ack.linux_username, 'ann');
    const rules = ack.rules as Record<string, { status: string; reason?: string }>;
    assert.deepEqual(Object.keys(rules).sort(), [...LINUX_POLICY_RULES].sort(), 'every rule is reported');
    for (const rule of LINUX_POLICY_RULES)
      assert.equal(rules[rule]?.status, 'applied', `${rule}: ${rules[rule]?.reason}`);
    assert.match(
      String(rules.block_incognito?.reason),
      /whole computer.*bob/,
      'the browsers are machine-wide, and it says so',
    );
    assert.match(
      String(rules.disable_bluetooth?.reason),
      /whole computer.*bob/,
      'rfkill is machine-wide, and it says so',
    );
    assert.match(
      String(rules.block_incognito?.reason),
      /Firefox is installed and is not managed/,
      'Firefox is named as not covered',
    );
    assert.match(
      String(rules.block_terminal?.reason),
      /kitty\.desktop/,
      'ann’s own kitty entry was left alone, and it says so',
    );

    // polkit: the real rules file, run as polkitd runs it.
    const rulesText = readFileSync(path.join(sys.root, POLKIT_FILE), 'utf8');
    assert.equal(
      statSync(path.join(sys.root, POLKIT_FILE)).mode & 0o777,
      0o644,
      'polkitd can read the rules',
    );
    for (const action of [
      'org.freedesktop.packagekit.package-install',
      'org.freedesktop.packagekit.package-remove',
      'org.freedesktop.udisks2.filesystem-mount',
      'org.freedesktop.udisks2.filesystem-mount-other-seat',
      'org.freedesktop.udisks2.encrypted-unlock',
      'org.freedesktop.udisks2.power-off-drive',
      'org.freedesktop.accounts.user-administration',
      'org.freedesktop.accounts.change-own-user-data',
      'org.freedesktop.login1.power-off',
      'org.freedesktop.login1.reboot-multiple-sessions',
      'org.freedesktop.login1.suspend',
      'org.freedesktop.login1.hibernate',
      'org.freedesktop.policykit.exec',
    ])
      assert.equal(polkitAnswer(rulesText, action, 'ann'), 'no', `${action} is refused to ann`);
    assert.equal(
      polkitAnswer(rulesText, 'org.freedesktop.login1.lock-sessions', 'ann'),
      'not_handled',
      'ann may still lock her session',
    );
    assert.equal(
      polkitAnswer(rulesText, 'org.freedesktop.NetworkManager.network-control', 'ann'),
      'not_handled',
      'other actions are left to polkit',
    );
    assert.equal(
      polkitAnswer(rulesText, 'org.freedesktop.packagekit.package-install', 'bob'),
      'not_handled',
      'bob is not ann',
    );

    // The browsers: the extension stays force-installed; the device policy's keys beside it.
    const policy = chromium();
    assert.deepEqual(
      policy.ExtensionInstallForcelist,
      [`${SERVER_EXTENSION};${fake.url}/extension/update.xml`],
      'the force-install entry is untouched',
    );
    assert.equal(policy.IncognitoModeAvailability, 1, 'incognito off');
    assert.deepEqual(policy.ExtensionInstallBlocklist, ['*'], 'every other extension blocked');
    assert.deepEqual(
      new Set(policy.ExtensionInstallAllowlist),
      new Set([EXTENSION_ID, SERVER_EXTENSION, ALLOWED]),
      'Hearth’s and the allowed extensions stay allowed',
    );
    assert.equal(policy.ForceYouTubeRestrict, 2, 'YouTube in strict restricted mode');
    const edge = JSON.parse(readFileSync(path.join(sys.root, MANAGED_POLICY_DIRS.edge, POLICY_FILE), 'utf8'));
    assert.equal(edge.InPrivateModeAvailability, 1, 'Edge’s InPrivate windows off too');
    const brave = JSON.parse(
      readFileSync(path.join(sys.root, MANAGED_POLICY_DIRS.brave, POLICY_FILE), 'utf8'),
    );
    assert.equal(brave.TorDisabled, true, 'Brave’s Tor windows off too');

    // Terminals: overrides in ann's menus, owned by her; her own entry untouched; other apps untouched.
    for (const id of [
      'org.gnome.Terminal.desktop',
      'debian-xterm.desktop',
      'my-term.desktop',
      'zutty.desktop',
    ]) {
      if (id === 'zutty.desktop' && !existsSync(path.join(sys.root, 'usr/share/applications', id))) continue;
      const file = path.join(annApps(), id);
      assert.ok(existsSync(file), `${id} is hidden for ann`);
      const text = readFileSync(file, 'utf8');
      assert.match(text, /^Hidden=true$/m, `${id} says Hidden=true`);
      assert.ok(text.includes(OVERRIDE_MARK), `${id} carries Hearth's mark`);
      assert.equal(statSync(file).uid, 1000, `${id} belongs to ann`);
    }
    assert.match(
      readFileSync(path.join(annApps(), 'kitty.desktop'), 'utf8'),
      /My kitty/,
      'ann’s own kitty entry is hers still',
    );
    assert.ok(
      !existsSync(path.join(annApps(), 'gimp.desktop')),
      'no override for an application that is no terminal',
    );
    assert.ok(!existsSync(path.join(sys.home('bob'), '.local')), 'nothing is written into bob’s home');

    // Her running terminal is ended; her other program and bob's terminal live on.
    assert.equal(await waitForExit(annTerminal), 'SIGKILL', 'ann’s xterm was ended');
    await agent.waitForLog('terminal ended', (l) => l.linux_username === 'ann' && l.program === 'xterm');
    const lateTerminal = runAs(1000, 'xterm');
    assert.equal(await waitForExit(lateTerminal), 'SIGKILL', 'an xterm ann starts later is ended too');
    assert.equal(annOther.exitCode, null, 'ann’s other program still runs');
    assert.equal(bobTerminal.exitCode, null, 'bob’s terminal still runs');
    assert.equal(bobTerminal.signalCode, null, 'bob’s terminal was not signalled');

    assert.deepEqual(
      rfkillCalls(),
      ['list bluetooth', 'block bluetooth'],
      'Bluetooth blocked once, after looking',
    );

    // `hearth-agent status` shows it.
    const status = new AgentProcess(['status'], env);
    assert.equal(await status.exited, 0, status.stderr);
    assert.match(status.stdout, /Policy: +ann version 1/, 'status names the account’s policy');
    assert.match(status.stdout, /block_incognito: applied \(.*bob/, 'and the rules with something to say');

    // The extension's GET_STATUS carries the policy as applied here.
    const ipc = await IpcClient.connect(path.join(sys.runDir, 'users/1000/ipc.sock'));
    try {
      const answer = await ipc.request({ type: 'GET_STATUS' });
      const devicePolicy = answer.device_policy as {
        version: number;
        rules: Record<string, { status: string }>;
      };
      assert.equal(devicePolicy?.version, 1, 'GET_STATUS names the applied version');
      assert.equal(devicePolicy.rules.block_terminal?.status, 'applied', 'and each rule’s outcome');
    } finally {
      ipc.close();
    }
  });

  test('a restart enforces the kept policy again, putting back files removed while the agent was stopped', async () => {
    await agent.stop();
    rmSync(path.join(sys.root, POLKIT_FILE));
    rmSync(path.join(sys.root, MANAGED_POLICY_DIRS.chromium, POLICY_FILE));
    rmSync(path.join(annApps(), 'debian-xterm.desktop'));
    agent = new AgentProcess(['run'], env);
    running.push(agent);
    const enforced = await agent.waitForLog('device policy enforced', (l) => l.linux_username === 'ann');
    assert.equal(enforced.version, 1, 'the kept version is enforced');
    assert.ok(existsSync(path.join(sys.root, POLKIT_FILE)), 'the polkit rules are back');
    assert.equal(chromium().IncognitoModeAvailability, 1, 'the browser settings are back');
    assert.ok(
      readFileSync(path.join(annApps(), 'debian-xterm.desktop'), 'utf8').includes('Hidden=true'),
      'the override is back',
    );
    const terminal = runAs(1000, 'xterm');
    assert.equal(await waitForExit(terminal), 'SIGKILL', 'terminals are still ended after the restart');
  });

  test('removing the agent releases the computer (install --release-policies, as the package’s prerm runs it) and keeps the policy for a reinstall', async () => {
    await agent.stop();
    const released = spawnSync(
      process.execPath,
      ['--conditions=hearth-source', '--import', 'tsx', CLI, 'install', '--release-policies'],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', ...env },
        encoding: 'utf8',
      },
    );
    assert.equal(released.status, 0, released.stderr);
    assert.match(released.stdout, /^released the device policy of ann$/m);
    assert.ok(!existsSync(path.join(sys.root, POLKIT_FILE)), 'the polkit rules are gone');
    for (const dir of Object.values(MANAGED_POLICY_DIRS))
      assert.ok(!existsSync(path.join(sys.root, dir, POLICY_FILE)), `${dir} holds no Hearth policy`);
    assert.deepEqual(readdirSync(annApps()), ['kitty.desktop'], 'only ann’s own entry is left');
    assert.equal(rfkillCalls().at(-1), 'unblock bluetooth', 'the Bluetooth Hearth blocked is unblocked');
    const terminal = runAs(1000, 'xterm');
    assert.equal(terminal.exitCode, null, 'terminals run again');
    terminal.kill('SIGKILL');
    assert.equal(await waitForExit(terminal), 'SIGKILL', 'the test’s own terminal stopped');
    const kept = JSON.parse(readFileSync(path.join(sys.stateDir, 'device-policy.ann.json'), 'utf8')).data;
    assert.equal(kept.version, 1, 'the policy is kept with its version');
    assert.equal(kept.policy.block_terminal, true, 'the policy is kept as the parent set it');

    // Installed again with the same enrolment: the kept policy holds again at start.
    agent = new AgentProcess(['run'], env);
    running.push(agent);
    const enforced = await agent.waitForLog('device policy enforced', (l) => l.linux_username === 'ann');
    assert.equal(enforced.version, 1, 'the kept version is enforced again');
    assert.ok(existsSync(path.join(sys.root, POLKIT_FILE)), 'the polkit rules are back');
    assert.ok(
      readFileSync(path.join(annApps(), 'debian-xterm.desktop'), 'utf8').includes('Hidden=true'),
      'the override is back',
    );
  });

  test('every rule off: the rules file goes, the overrides Hearth wrote go, Bluetooth comes back, the browser file is the force-install alone', async () => {
    await agent.waitForLog('connected to the server');
    const answer = await send(2, ALL_OFF);
    assert.equal(answer.success, true, `the command succeeded: ${String(answer.error)}`);
    const ack = await applied(2);
    const rules = ack.rules as Record<string, { status: string; reason?: string }>;
    for (const rule of LINUX_POLICY_RULES)
      assert.deepEqual(rules[rule], { status: 'applied' }, `${rule} is off`);
    assert.ok(!existsSync(path.join(sys.root, POLKIT_FILE)), 'the polkit rules file is removed');
    assert.deepEqual(
      chromium(),
      { ExtensionInstallForcelist: [`${SERVER_EXTENSION};${fake.url}/extension/update.xml`] },
      'only the force-install is left',
    );
    const left = readdirSync(annApps());
    assert.deepEqual(left, ['kitty.desktop'], 'only ann’s own entry is left in her menus folder');
    assert.equal(rfkillCalls().at(-1), 'unblock bluetooth', 'Hearth unblocks what it blocked');
    const terminal = runAs(1000, 'xterm');
    assert.equal(terminal.exitCode, null, 'terminals run again');
    terminal.kill('SIGKILL');
    assert.equal(await waitForExit(terminal), 'SIGKILL', 'the test’s own terminal stopped');

    // The same policy again changes nothing: no second unblock, no files.
    const calls = rfkillCalls().length;
    assert.equal((await send(3, ALL_OFF)).success, true, 'an all-off policy is taken again');
    await applied(3);
    assert.equal(rfkillCalls().length, calls, 'rfkill is not called when there is nothing to undo');
  });

  test('refused: rules on for an account that is not on this computer, unknown fields, an Android policy', async () => {
    const stranger = await send(4, { ...ALL_OFF, block_terminal: true }, 'zed');
    assert.equal(stranger.success, false, 'no account zed');
    assert.match(String(stranger.error), /no account named zed/);
    const unknown = await send(4, { ...ALL_OFF, block_everything: true });
    assert.equal(unknown.success, false, 'an unknown rule is refused');
    assert.match(String(unknown.error), /unknown field block_everything/);
    const android = await fake.command('set_device_policy', { kind: 'android', version: 1, policy: {} });
    assert.equal(android.success, false, 'an Android policy is refused');
  });

  test('unsupported here: without polkit or an rfkill switch the rules say why', async () => {
    rmSync(path.join(sys.root, 'etc/polkit-1'), { recursive: true });
    rmSync(path.join(sys.root, 'sys/class/rfkill'), { recursive: true });
    const answer = await send(5, {
      ...ALL_OFF,
      block_software_install: true,
      block_power_actions: true,
      disable_bluetooth: true,
    });
    assert.equal(answer.success, true, `the command succeeded: ${String(answer.error)}`);
    const rules = (await applied(5)).rules as Record<string, { status: string; reason?: string }>;
    for (const rule of ['block_software_install', 'block_power_actions'] as const) {
      assert.equal(rules[rule]?.status, 'unsupported', `${rule} cannot be enforced without polkit`);
      assert.match(String(rules[rule]?.reason), /\/etc\/polkit-1/, `${rule} says why`);
    }
    assert.deepEqual(
      rules.block_removable_media,
      { status: 'applied' },
      'a rule that is off is simply applied',
    );
    assert.equal(
      rules.disable_bluetooth?.status,
      'unsupported',
      'Bluetooth cannot be switched off without rfkill',
    );
    assert.match(String(rules.disable_bluetooth?.reason), /rfkill/, 'and it says why');
    // Bob's home is not his to write in: his menus cannot change, but his terminals are still ended.
    const bob = await send(1, { ...ALL_OFF, block_terminal: true }, 'bob');
    assert.equal(bob.success, true, `the command succeeded: ${String(bob.error)}`);
    const bobRules = (await applied(1, 'bob')).rules as Record<string, { status: string; reason?: string }>;
    assert.equal(bobRules.block_terminal?.status, 'applied', 'the rule holds for bob');
    assert.match(
      String(bobRules.block_terminal?.reason),
      /could not be changed.*still ended/,
      'and says what is missing',
    );
    assert.equal(await waitForExit(runAs(1001, 'konsole')), 'SIGKILL', 'bob’s terminal is ended');
    const status = JSON.parse(readFileSync(path.join(sys.stateDir, 'device-policy.ann.json'), 'utf8')).data;
    assert.equal(status.version, 5, 'the policy is kept with its outcomes');
    assert.equal(status.rules.disable_bluetooth.status, 'unsupported', 'the outcomes are kept');
  });
});
