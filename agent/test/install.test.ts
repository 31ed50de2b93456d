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
import { EXTENSION_ID, NATIVE_HOST_NAME } from '@hearth/protocol';
import {
  AGENT_BIN,
  AGENT_PROGRAM,
  NATIVE_HOST_DIRS,
  NATIVE_HOST_PROGRAM,
  nativeHostManifest,
  OVERLAY_PAGE,
  RASTERER_WASM,
  systemdUnit,
  UNIT_PATH,
} from '../src/system-files.js';
import { AGENT_DIR, CLI, ROOT } from './harness.js';

const mode = (file: string) => lstatSync(file).mode & 0o7777;

describe('hearth-agent install into a temporary system root', () => {
  let work: string;
  let dist: string;
  let root: string;
  const at = (p: string) => path.join(root, p);
  const env = () => ({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HEARTH_AGENT_SYSROOT: root,
    HEARTH_AGENT_STATE_DIR: at('/var/lib/hearth-agent'),
    HEARTH_AGENT_RUN_DIR: at('/run/hearth-agent'),
  });
  const built = (args: string[]) =>
    spawnSync(process.execPath, [path.join(dist, 'hearth-agent.mjs'), ...args], {
      env: env(),
      encoding: 'utf8',
    });

  before(() => {
    work = mkdtempSync(path.join(tmpdir(), 'hearth-install-'));
    dist = path.join(work, 'dist');
    root = path.join(work, 'root');
    mkdirSync(root);
    const build = spawnSync(process.execPath, [path.join(AGENT_DIR, 'build.mjs'), '--out', dist], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.equal(build.status, 0, build.stderr);
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('writes the program, unit, manifests and page; again it writes nothing; an edited file is put back', () => {
    const first = built(['install']);
    assert.equal(first.status, 0, first.stderr);
    const manifests = Object.values(NATIVE_HOST_DIRS).map((dir) => `${dir}/${NATIVE_HOST_NAME}.json`);
    for (const p of [
      AGENT_PROGRAM,
      NATIVE_HOST_PROGRAM,
      RASTERER_WASM,
      UNIT_PATH,
      OVERLAY_PAGE,
      ...manifests,
    ])
      assert.match(first.stdout, new RegExp(`^wrote ${p}$`, 'm'));

    assert.equal(mode(at(AGENT_PROGRAM)), 0o755);
    assert.equal(mode(at(NATIVE_HOST_PROGRAM)), 0o755);
    assert.deepEqual(readFileSync(at(AGENT_PROGRAM)), readFileSync(path.join(dist, 'hearth-agent.mjs')));
    assert.equal(readlinkSync(at(AGENT_BIN)), '../lib/hearth-agent/hearth-agent.mjs');
    assert.equal(readFileSync(at(UNIT_PATH), 'utf8'), systemdUnit());
    assert.match(systemdUnit(), /^ExecStart=\/usr\/bin\/hearth-agent run$/m);
    assert.equal(mode(at(UNIT_PATH)), 0o644);
    assert.equal(mode(at(RASTERER_WASM)), 0o644);
    assert.deepEqual(
      readFileSync(at(OVERLAY_PAGE)),
      readFileSync(path.join(ROOT, 'overlay/dist/blockedv2.html')),
    );
    for (const manifest of manifests) {
      assert.equal(mode(at(manifest)), 0o644);
      assert.deepEqual(JSON.parse(readFileSync(at(manifest), 'utf8')), {
        name: 'com.hearth.agent',
        description: JSON.parse(nativeHostManifest()).description,
        path: '/usr/lib/hearth-agent/hearth-native-host.mjs',
        type: 'stdio',
        allowed_origins: [`chrome-extension://${EXTENSION_ID}/`],
      });
    }

    // The installed command runs through its /usr/bin link.
    const version = spawnSync(at(AGENT_BIN), ['--version'], { env: env(), encoding: 'utf8' });
    assert.equal(version.status, 0, version.stderr);
    assert.equal(
      version.stdout.trim(),
      JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version,
    );

    const again = built(['install']);
    assert.equal(again.status, 0, again.stderr);
    assert.doesNotMatch(again.stdout, /^wrote /m);
    assert.match(again.stdout, /^0 written, 10 already up to date\.$/m);

    const edge = at(`${NATIVE_HOST_DIRS.edge}/${NATIVE_HOST_NAME}.json`);
    writeFileSync(edge, '{}');
    const mended = spawnSync(at(AGENT_BIN), ['install'], { env: env(), encoding: 'utf8' });
    assert.equal(mended.status, 0, mended.stderr);
    assert.deepEqual(
      mended.stdout.split('\n').filter((l) => l.startsWith('wrote ')),
      [`wrote ${NATIVE_HOST_DIRS.edge}/${NATIVE_HOST_NAME}.json`],
      'the installed program reinstalls from where it lies, page included',
    );
    assert.equal(readFileSync(edge, 'utf8'), nativeHostManifest());
  });

  test('--uninstall removes every file and keeps the enrolment; --purge removes that too', () => {
    assert.equal(built(['install']).status, 0);
    mkdirSync(at('/var/lib/hearth-agent'), { recursive: true, mode: 0o700 });
    writeFileSync(at('/var/lib/hearth-agent/identity.json'), '{}');
    mkdirSync(at('/etc/polkit-1/rules.d'), { recursive: true });
    writeFileSync(at('/etc/polkit-1/rules.d/60-hearth-ann.rules'), '// a device policy\n');
    writeFileSync(at('/etc/polkit-1/rules.d/50-local.rules'), '// the administrator’s\n');

    const removed = built(['install', '--uninstall']);
    assert.equal(removed.status, 0, removed.stderr);
    for (const p of [AGENT_BIN, AGENT_PROGRAM, NATIVE_HOST_PROGRAM, UNIT_PATH, OVERLAY_PAGE]) {
      assert.ok(!existsSync(at(p)), `${p} is gone`);
      assert.match(removed.stdout, new RegExp(`^removed ${p}$`, 'm'));
    }
    for (const dir of Object.values(NATIVE_HOST_DIRS)) {
      assert.ok(!existsSync(at(`${dir}/${NATIVE_HOST_NAME}.json`)));
      assert.ok(existsSync(at(dir)), 'the browsers’ folders stay for their other hosts');
    }
    assert.ok(!existsSync(at('/usr/lib/hearth-agent')) && !existsSync(at('/usr/share/hearth-agent')));
    assert.ok(existsSync(at('/var/lib/hearth-agent/identity.json')), 'the enrolment is kept');
    assert.ok(
      !existsSync(at('/etc/polkit-1/rules.d/60-hearth-ann.rules')),
      'the device policy’s polkit rules go',
    );
    assert.ok(existsSync(at('/etc/polkit-1/rules.d/50-local.rules')), 'other polkit rules stay');

    const again = built(['install', '--uninstall', '--purge']);
    assert.equal(again.status, 0, again.stderr);
    assert.doesNotMatch(again.stdout, /^removed \/usr/m);
    assert.ok(!existsSync(at('/var/lib/hearth-agent')));
  });

  test('from the sources it says to build first and writes nothing', () => {
    const r = spawnSync(process.execPath, ['--conditions=hearth-source', '--import', 'tsx', CLI, 'install'], {
      cwd: ROOT,
      env: env(),
      encoding: 'utf8',
    });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /run it from the built agent/);
    assert.ok(!existsSync(at(UNIT_PATH)));
  });
});
