// The Hearth Space page the agent serves: the packaged asset, or the repository's build when run from sources.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentPaths } from '../paths.js';
import { underRoot } from '../paths.js';

const REPO_BUILD = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../overlay/dist/blockedv2.html',
);

/** The first of: HEARTH_AGENT_OVERLAY_FILE, the installed asset under the sysroot, the repository's build. */
export function findOverlayPage(paths: AgentPaths, env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates = [
    env.HEARTH_AGENT_OVERLAY_FILE,
    underRoot(paths, '/usr/share/hearth-agent/blockedv2.html'),
    REPO_BUILD,
  ];
  return candidates.find((f): f is string => !!f && existsSync(f)) ?? null;
}
