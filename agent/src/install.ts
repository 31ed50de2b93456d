// `hearth-agent install`: the program, systemd unit, native-messaging host manifests and overlay page of
// system-files.ts, for systems without the .deb. Run from the built agent (agent/dist); writes only what
// differs, so running it again is harmless. `--uninstall` takes it all away again (`--purge` also the
// state directory, which forgets the enrolment). `--release-policies` alone undoes what the device
// policies changed on this computer; the package runs it before its files go (debian/prerm).
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { humanAccounts } from './accounts.js';
import { applyBrowserPolicies, keptSource, removeBrowserPolicies } from './browser-policy.js';
import { DevicePolicies } from './device-policy/module.js';
import { removePolkitRules } from './device-policy/polkit.js';
import type { Logger } from './log.js';
import { type AgentPaths, underRoot } from './paths.js';
import { systemctl, systemdManages } from './service.js';
import { StateStore } from './state.js';
import { LIB_DIR, PAYLOAD, SHARE_DIR, type SystemFile, systemFiles, UNIT_NAME } from './system-files.js';

export async function install(paths: AgentPaths, log: Logger, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      uninstall: { type: 'boolean' },
      purge: { type: 'boolean' },
      'release-policies': { type: 'boolean' },
    },
  });
  if (paths.sysroot !== '/') console.log(`System root: ${paths.sysroot}`);
  if (values.uninstall) return uninstall(paths, log, !!values.purge);
  if (values['release-policies']) {
    await releasePolicies(paths, log);
    return 0;
  }
  if (values.purge) {
    process.stderr.write('hearth-agent install: --purge goes with --uninstall\n');
    return 2;
  }

  const payload = findPayload();
  if (!payload) {
    process.stderr.write(
      'hearth-agent install: run it from the built agent (npm run build -w agent, then ' +
        'node agent/dist/hearth-agent.mjs install)\n',
    );
    return 1;
  }
  let written = 0;
  const files = systemFiles();
  for (const file of files) {
    if (place(paths, file, payload)) {
      written++;
      console.log(`wrote ${file.path}`);
    }
  }
  console.log(`${written} written, ${files.length - written} already up to date.`);
  // Enrolled before: the browsers force-install the server's extension again (the daemon keeps this up).
  const source = keptSource(new StateStore(paths.stateDir, log));
  if (source)
    for (const file of applyBrowserPolicies(paths, source)) console.log(`wrote ${file} (browser policy)`);
  if (systemdManages(paths)) {
    systemctl(log, 'daemon-reload');
    systemctl(log, 'enable', UNIT_NAME);
    // The unit waits for an enrolment (ConditionPathExists), so this starts it only on an enrolled system.
    systemctl(log, 'restart', UNIT_NAME);
  } else if (paths.sysroot === '/') {
    console.log('systemd is not running here: start "hearth-agent run" by other means.');
  }
  return 0;
}

/**
 * The payload files beside the running program: agent/dist after a build, or /usr/lib/hearth-agent once
 * installed (whose page is in ../../share/hearth-agent). Null when running from the sources.
 */
function findPayload(): Record<keyof typeof PAYLOAD, string> | null {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const beside = (name: string) => path.join(here, name);
  const page = [
    beside(PAYLOAD.overlay),
    path.resolve(here, '../../share/hearth-agent', PAYLOAD.overlay),
  ].find((p) => existsSync(p));
  const besides = [PAYLOAD.agent, PAYLOAD.nativeHost, PAYLOAD.rasterer].map(beside);
  if (!besides.every((p) => existsSync(p)) || !page) return null;
  return {
    agent: beside(PAYLOAD.agent),
    nativeHost: beside(PAYLOAD.nativeHost),
    overlay: page,
    rasterer: beside(PAYLOAD.rasterer),
  };
}

/** Puts one file in place; false when it was already as wanted. */
function place(paths: AgentPaths, file: SystemFile, payload: Record<keyof typeof PAYLOAD, string>): boolean {
  const dest = underRoot(paths, file.path);
  mkdirSync(path.dirname(dest), { recursive: true, mode: 0o755 });
  const existing = lstatSync(dest, { throwIfNoEntry: false });
  if (file.kind === 'symlink') {
    if (existing?.isSymbolicLink() && readlinkSync(dest) === file.target) return false;
    if (existing) rmSync(dest, { force: true });
    symlinkSync(file.target, dest);
    return true;
  }
  const content = file.kind === 'text' ? Buffer.from(file.text) : readFileSync(payload[file.from]);
  if (existing?.isFile() && (existing.mode & 0o7777) === file.mode && readFileSync(dest).equals(content))
    return false;
  // Beside the target and renamed over it, so a running agent or browser never reads half a file.
  const tmp = `${dest}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, content, { mode: file.mode });
  chmodSync(tmp, file.mode);
  renameSync(tmp, dest);
  return true;
}

/**
 * Undoes what the device policies did here — polkit rules, hidden terminal entries, Bluetooth blocked by
 * Hearth — and takes the browsers' policy files away: without the agent nothing would keep them right,
 * and the child would stay restricted by a program that is gone. The policies stay in the state
 * directory, so an agent installed again with the same enrolment enforces them again.
 */
async function releasePolicies(paths: AgentPaths, log: Logger): Promise<void> {
  const state = new StateStore(paths.stateDir, log);
  const policies = new DevicePolicies({ paths, log, state, accounts: () => humanAccounts(paths) });
  for (const name of await policies.releaseAll()) console.log(`released the device policy of ${name}`);
  for (const file of removeBrowserPolicies(paths)) console.log(`removed ${file}`);
  for (const file of removePolkitRules(paths)) console.log(`removed ${file}`);
}

async function uninstall(paths: AgentPaths, log: Logger, purge: boolean): Promise<number> {
  const live = systemdManages(paths);
  // Stopped first, so that the daemon does not enforce the policies again as they are released.
  if (live) systemctl(log, 'disable', '--now', UNIT_NAME);
  await releasePolicies(paths, log);
  for (const file of systemFiles()) {
    const dest = underRoot(paths, file.path);
    if (!lstatSync(dest, { throwIfNoEntry: false })) continue;
    rmSync(dest, { force: true });
    console.log(`removed ${file.path}`);
  }
  // Our own folders go when empty; the browsers' folders are shared with other hosts and stay.
  for (const dir of [LIB_DIR, SHARE_DIR]) {
    try {
      rmdirSync(underRoot(paths, dir));
    } catch {
      // absent, or someone else's files are in it
    }
  }
  if (live) systemctl(log, 'daemon-reload');
  if (purge && existsSync(paths.stateDir)) {
    rmSync(paths.stateDir, { recursive: true, force: true });
    console.log(`removed ${paths.stateDir} (this computer's enrolment is forgotten)`);
  } else if (existsSync(paths.stateDir)) {
    console.log(`kept ${paths.stateDir} (the enrolment); --purge removes it`);
  }
  return 0;
}
