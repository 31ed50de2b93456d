// The clocks time enforcement reads. The wall clock is the OS's (Date.now); tests move it with
// HEARTH_AGENT_CLOCK_FILE, a file holding milliseconds added to it, read on every call — the stand-in
// for a child changing the system time. The steady clock counts suspended time too (CLOCK_BOOTTIME via
// /proc/uptime), so a laptop waking from sleep is not taken for a clock jump.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

export interface Clocks {
  /** Wall clock, ms since the epoch. */
  wall(): number;
  /** A clock nobody can set, in ms from an arbitrary origin; runs through suspend where it can. */
  steady(): number;
  /** The process's monotonic clock in ms (stops during suspend): what use is counted with. */
  mono(): number;
}

export function systemClocks(env: NodeJS.ProcessEnv = process.env): Clocks {
  const file = env.HEARTH_AGENT_CLOCK_FILE;
  let uptimeWorks = true;
  return {
    wall() {
      if (!file) return Date.now();
      try {
        const offset = Number(readFileSync(file, 'utf8').trim());
        return Date.now() + (Number.isFinite(offset) ? offset : 0);
      } catch {
        return Date.now();
      }
    },
    steady() {
      if (uptimeWorks) {
        try {
          const seconds = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
          if (Number.isFinite(seconds)) return seconds * 1000;
        } catch {
          // no /proc: the process's monotonic clock (stops during suspend)
        }
        uptimeWorks = false;
      }
      return performance.now();
    },
    mono: () => performance.now(),
  };
}
