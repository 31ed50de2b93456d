import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EXTENSION_ID, NATIVE_HOST_NAME } from '@hearth/protocol';
import { MANAGED_POLICY_DIRS, POLICY_FILE } from '../src/browser-policy.js';
import { ALL_OFF } from '../src/device-policy/module.js';
import { createLogger } from '../src/log.js';
import { StateStore } from '../src/state.js';
import {
  AGENT_BIN,
  AGENT_PROGRAM,
  conffiles,
  NATIVE_HOST_DIRS,
  NATIVE_HOST_PROGRAM,
  nativeHostManifest,
  OVERLAY_PAGE,
  RASTERER_WASM,
  systemdUnit,
  UNIT_PATH,
} from '../src/system-files.js';
import { AGENT_DIR, ROOT } from './harness.js';

const VERSION = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
const MANIFESTS = Object.values(NATIVE_HOST_DIRS).map((dir) => `${dir}/${NATIVE_HOST_NAME}.json`);
const have = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

function sh(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

describe('the Debian package', { skip: !have('dpkg-deb') && 'dpkg-deb is not installed' }, () => {
  let work: string;
  let deb: string;

  before(() => {
    work = mkdtempSync(path.join(tmpdir(), 'hearth-deb-'));
    const out = path.join(work, 'dist');
    const build = spawnSync(process.execPath, [path.join(AGENT_DIR, 'build.mjs'), '--deb', '--out', out], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.equal(build.status, 0, build.stderr);
    deb = path.join(out, `hearth-agent_${VERSION}_all.deb`);
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('control: name, version, architecture, dependencies, scripts and conffiles', () => {
    const field = (name: string) => sh('dpkg-deb', ['-f', deb, name]).trim();
    assert.equal(field('Package'), 'hearth-agent');
    assert.equal(field('Version'), VERSION);
    assert.equal(field('Architecture'), 'all');
    assert.equal(field('Depends'), 'nodejs (>= 18)');
    assert.equal(field('Recommends'), 'chromium, x11-apps, rfkill');
    assert.match(field('Maintainer'), /^.+ <.+@.+>$/);
    assert.match(field('Description'), /^Hearth agent/);

    const info = sh('dpkg-deb', ['--info', deb]);
    for (const script of ['postinst', 'prerm', 'postrm'])
      assert.match(info, new RegExp(`\\*\\s+${script}\\s`));
    const control = path.join(work, 'control');
    sh('dpkg-deb', ['--control', deb, control]);
    assert.deepEqual(
      readFileSync(path.join(control, 'conffiles'), 'utf8').trim().split('\n'),
      [...MANIFESTS].sort(),
    );
    assert.deepEqual([...conffiles()].sort(), [...MANIFESTS].sort());
  });

  test('contents: root-owned, executables 0755, unit and manifests 0644, the command a link', () => {
    const listing = new Map<string, { mode: string; owner: string; link?: string }>();
    for (const line of sh('dpkg-deb', ['--contents', deb]).trim().split('\n')) {
      const m = /^(\S+) (\S+)\s+\d+ \S+ \S+ \.(\/\S*?)\/?(?: -> (\S+))?$/.exec(line);
      assert.ok(m, `readable listing line: ${line}`);
      listing.set(m[3] || '/', { mode: m[1], owner: m[2], link: m[4] });
    }
    for (const [p, entry] of listing) assert.equal(entry.owner, 'root/root', p);
    assert.equal(listing.get(AGENT_PROGRAM)?.mode, '-rwxr-xr-x');
    assert.equal(listing.get(NATIVE_HOST_PROGRAM)?.mode, '-rwxr-xr-x');
    assert.equal(listing.get(UNIT_PATH)?.mode, '-rw-r--r--');
    assert.equal(listing.get(OVERLAY_PAGE)?.mode, '-rw-r--r--');
    assert.equal(listing.get(RASTERER_WASM)?.mode, '-rw-r--r--');
    for (const manifest of MANIFESTS) assert.equal(listing.get(manifest)?.mode, '-rw-r--r--', manifest);
    assert.equal(listing.get(AGENT_BIN)?.link, '../lib/hearth-agent/hearth-agent.mjs');
    assert.ok(![...listing.keys()].some((p) => p.startsWith('/var/lib/hearth-agent')), 'no state shipped');
  });

  test('extracted: the files are the shared ones and the program runs on the system node', () => {
    const x = path.join(work, 'extracted');
    sh('dpkg-deb', ['-x', deb, x]);
    assert.equal(readFileSync(path.join(x, UNIT_PATH), 'utf8'), systemdUnit());
    for (const manifest of MANIFESTS) {
      const doc = JSON.parse(readFileSync(path.join(x, manifest), 'utf8'));
      assert.equal(readFileSync(path.join(x, manifest), 'utf8'), nativeHostManifest());
      assert.equal(doc.path, NATIVE_HOST_PROGRAM);
      assert.deepEqual(doc.allowed_origins, [`chrome-extension://${EXTENSION_ID}/`]);
    }
    assert.deepEqual(
      readFileSync(path.join(x, OVERLAY_PAGE)),
      readFileSync(path.join(ROOT, 'overlay/dist/blockedv2.html')),
    );
    // Installed, the bundle finds no node_modules: resvg's WebAssembly must sit beside it.
    assert.deepEqual(
      readFileSync(path.join(x, RASTERER_WASM)),
      readFileSync(fileURLToPath(import.meta.resolve('@resvg/resvg-wasm/index_bg.wasm'))),
    );

    const program = path.join(x, AGENT_PROGRAM);
    assert.match(readFileSync(program, 'utf8'), /^#!\/usr\/bin\/env node\n/);
    const node = existsSync('/usr/bin/node') ? '/usr/bin/node' : process.execPath;
    assert.equal(sh(node, [program, '--version']).trim(), VERSION);
    const state = path.join(work, 'state');
    const status = spawnSync(node, [program, 'status'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HEARTH_AGENT_STATE_DIR: state },
    });
    assert.equal(status.status, 3, status.stderr);
    assert.match(status.stdout, /Not enrolled/);
  });

  test('the unit passes systemd-analyze verify', {
    skip: !have('systemd-analyze') && 'no systemd-analyze',
  }, () => {
    // verify wants ExecStart to exist; point it at the extracted program instead of /usr/bin.
    const x = path.join(work, 'verify');
    sh('dpkg-deb', ['-x', deb, x]);
    const unit = path.join(x, 'hearth-agent.service');
    writeFileSync(
      unit,
      readFileSync(path.join(x, UNIT_PATH), 'utf8').replace(
        `ExecStart=${AGENT_BIN}`,
        `ExecStart=${path.join(x, AGENT_PROGRAM)}`,
      ),
    );
    const r = spawnSync('systemd-analyze', ['verify', '--man=no', unit], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr.trim(), '', 'no unknown or misspelt settings');
  });

  test('dpkg installs it into a temporary root, runs its scripts there, and -r / -P take it away', {
    skip:
      (process.getuid?.() !== 0 && 'dpkg --root needs root to set owners') ||
      (!have('dpkg') && 'dpkg is not installed'),
  }, () => {
    const root = path.join(work, 'root');
    mkdirSync(path.join(root, 'var/lib/dpkg/info'), { recursive: true });
    mkdirSync(path.join(root, 'var/lib/dpkg/updates'), { recursive: true });
    writeFileSync(path.join(root, 'var/lib/dpkg/status'), '');
    // Chrootless scripts see DPKG_ROOT and so never reach the real system's systemd.
    const dpkg = (...args: string[]) =>
      sh('dpkg', [`--root=${root}`, '--force-depends', '--force-script-chrootless', ...args]);
    const at = (p: string) => path.join(root, p);
    const wants = at('/etc/systemd/system/multi-user.target.wants/hearth-agent.service');
    const status = () =>
      /^Status: (.*)$/m.exec(
        spawnSync('dpkg', [`--root=${root}`, '-s', 'hearth-agent'], { encoding: 'utf8' }).stdout,
      )?.[1];

    dpkg('-i', deb);
    assert.equal(status(), 'install ok installed');
    for (const p of [AGENT_PROGRAM, NATIVE_HOST_PROGRAM, UNIT_PATH, OVERLAY_PAGE, ...MANIFESTS])
      assert.ok(existsSync(at(p)), p);
    assert.equal(sh(at(AGENT_BIN), ['--version']).trim(), VERSION);
    if (have('systemctl'))
      assert.equal(readlinkSync(wants), UNIT_PATH, 'postinst enabled the unit in that root');

    // An enrolled computer: removing keeps the enrolment and the /etc manifests; purging takes both.
    mkdirSync(at('/var/lib/hearth-agent'), { recursive: true, mode: 0o700 });
    writeFileSync(at('/var/lib/hearth-agent/identity.json'), '{}');
    // …with a device policy in force: the prerm releases what it did, or the child would stay held.
    new StateStore(at('/var/lib/hearth-agent'), createLogger()).write('device-policy.ann.json', {
      linux_username: 'ann',
      version: 3,
      policy: { ...ALL_OFF, block_software_install: true, block_incognito: true },
      rules: {},
      applied_at: new Date().toISOString(),
      overrides: [],
    });
    const polkitRules = at('/etc/polkit-1/rules.d/60-hearth-ann.rules');
    const browserPolicy = at(`${MANAGED_POLICY_DIRS.chromium}/${POLICY_FILE}`);
    for (const file of [polkitRules, browserPolicy]) {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, '{}');
    }
    dpkg('-r', 'hearth-agent');
    assert.ok(!existsSync(polkitRules), 'prerm removed the policy’s polkit rules');
    assert.ok(!existsSync(browserPolicy), 'prerm removed the browsers’ Hearth policy');
    assert.equal(status(), 'deinstall ok config-files');
    for (const p of [AGENT_BIN, AGENT_PROGRAM, NATIVE_HOST_PROGRAM, UNIT_PATH, OVERLAY_PAGE])
      assert.ok(!existsSync(at(p)), `${p} removed`);
    assert.ok(!lstatSync(wants, { throwIfNoEntry: false }), 'prerm disabled the unit');
    assert.ok(existsSync(at('/var/lib/hearth-agent/identity.json')));
    for (const p of MANIFESTS) assert.ok(existsSync(at(p)), `${p} kept until purge`);

    dpkg('-P', 'hearth-agent');
    assert.equal(status(), undefined);
    assert.ok(!existsSync(at('/var/lib/hearth-agent')), 'purge removed the state');
    for (const p of MANIFESTS) assert.ok(!existsSync(at(p)), `${p} purged`);
  });
});
