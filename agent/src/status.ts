// `hearth-agent status`: what the agent knows about itself, read from its state directory.
import type { DevicePolicySummary } from './context.js';
import { readIdentity, readToken } from './identity.js';
import type { Logger } from './log.js';
import type { AgentPaths } from './paths.js';
import { StateStore } from './state.js';
import { AGENT_VERSION } from './version.js';

export interface RuntimeStatus {
  pid: number;
  connected: boolean;
  since: string;
  outbox: number;
  overlays: { linux_username: string; reason: string; since: string }[];
  /** Each account's device policy as last applied, with each rule's outcome. */
  device_policies?: Record<string, DevicePolicySummary>;
}

export function printStatus(paths: AgentPaths, log: Logger, options: { json: boolean }): number {
  const state = new StateStore(paths.stateDir, log);
  const identity = readIdentity(state);
  const runtime = state.read<RuntimeStatus>('status.json');
  const report = {
    version: AGENT_VERSION,
    state_dir: paths.stateDir,
    server_url: identity?.server_url ?? null,
    system_id: identity?.system_id ?? null,
    enrolled: !!identity,
    approved: !!readToken(state),
    daemon: runtime,
  };
  if (options.json) {
    console.log(JSON.stringify(report, null, 2));
    return identity ? 0 : 3;
  }
  console.log(`hearth-agent ${AGENT_VERSION}`);
  if (!identity) {
    console.log('Not enrolled. Run: hearth-agent enroll --server URL --token TOKEN');
    return 3;
  }
  console.log(`Server:     ${identity.server_url}`);
  console.log(`System id:  ${identity.system_id}`);
  console.log(`Approved:   ${report.approved ? 'yes' : 'waiting for a parent'}`);
  if (runtime) {
    console.log(
      `Daemon:     pid ${runtime.pid}, ${runtime.connected ? 'connected' : 'offline'} since ${runtime.since}`,
    );
    console.log(`Outbox:     ${runtime.outbox} message(s) waiting`);
    for (const o of runtime.overlays)
      console.log(`Overlay:    ${o.linux_username} (${o.reason}) since ${o.since}`);
    for (const [name, p] of Object.entries(runtime.device_policies ?? {})) {
      const rules = Object.entries(p.rules).filter(([, r]) => r.status !== 'applied' || r.reason);
      console.log(`Policy:     ${name} version ${p.version}, applied ${p.applied_at}`);
      for (const [rule, r] of rules)
        console.log(`            ${rule}: ${r.status}${r.reason ? ` (${r.reason})` : ''}`);
    }
  } else console.log('Daemon:     not running');
  return 0;
}
