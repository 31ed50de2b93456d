// `hearth-agent install`: the systemd unit, native-messaging host manifests and overlay asset.
import type { Logger } from './log.js';
import type { AgentPaths } from './paths.js';

export async function install(_paths: AgentPaths, _log: Logger, _args: string[]): Promise<number> {
  process.stderr.write('hearth-agent install: not built yet\n');
  return 1;
}
