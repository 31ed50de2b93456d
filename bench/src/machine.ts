import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  platform: string;
}

export function describeMachine(): Machine {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() || 'unknown CPU',
    cores: cpus.length,
    memoryGiB: os.totalmem() / 1024 ** 3,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

/** CPU time of a process in ms, from Linux's /proc (utime + stime in USER_HZ ticks, 100 a second). */
function processCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name, which may itself hold spaces: state is the first.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

export interface CpuSnapshot {
  machineBusyMs: number;
  machineTotalMs: number;
  /** CPU the benchmark's own processes have used; null where /proc cannot tell. */
  oursMs: number | null;
}

export function cpuSnapshot(pids: number[]): CpuSnapshot {
  let machineBusyMs = 0;
  let machineTotalMs = 0;
  for (const { times } of os.cpus()) {
    const used = times.user + times.nice + times.sys + times.irq;
    machineBusyMs += used;
    machineTotalMs += used + times.idle;
  }
  let oursMs: number | null = 0;
  for (const pid of pids) {
    const ms = processCpuMs(pid);
    oursMs = ms === null || oursMs === null ? null : oursMs + ms;
  }
  return { machineBusyMs, machineTotalMs, oursMs };
}

/**
 * Share of the machine's CPU that processes other than the benchmark's used between two snapshots:
 * other work (a test suite, a build) takes cores from the servers and makes the figures meaningless.
 */
export function otherCpuShare(before: CpuSnapshot, after: CpuSnapshot): number | null {
  if (before.oursMs === null || after.oursMs === null) return null;
  const total = after.machineTotalMs - before.machineTotalMs;
  if (total <= 0) return null;
  const other = after.machineBusyMs - before.machineBusyMs - (after.oursMs - before.oursMs);
  return Math.max(0, other / total);
}

/** The commit measured, and whether tracked files differed from it. */
export function gitRevision(cwd: string): string {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd, encoding: 'utf8' });
  if (head.status !== 0) return 'unknown';
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], {
    cwd,
    encoding: 'utf8',
  });
  return `${head.stdout.trim()}${dirty.stdout.trim() ? ' with uncommitted changes' : ''}`;
}
