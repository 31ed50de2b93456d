// Where the agent keeps and finds things. Every system path is read under `sysroot` so that tests can
// give the agent a whole temporary system (passwd, homes, applications, icons) without touching ours.
import path from 'node:path';

export interface AgentPaths {
  /** Identity, token, kept policies, outbox (root-only, 0700; files 0600). */
  stateDir: string;
  /** Runtime sockets (`/run/hearth-agent`). */
  runDir: string;
  /** Prefix of every system path the agent reads: `/` in production, a temporary tree in tests. */
  sysroot: string;
}

export function agentPaths(env: NodeJS.ProcessEnv = process.env): AgentPaths {
  return {
    stateDir: path.resolve(env.HEARTH_AGENT_STATE_DIR || '/var/lib/hearth-agent'),
    runDir: path.resolve(env.HEARTH_AGENT_RUN_DIR || '/run/hearth-agent'),
    sysroot: path.resolve(env.HEARTH_AGENT_SYSROOT || '/'),
  };
}

/** An absolute system path as seen through `sysroot`. */
export function underRoot(paths: AgentPaths, absolute: string): string {
  return paths.sysroot === '/' ? absolute : path.join(paths.sysroot, absolute);
}
