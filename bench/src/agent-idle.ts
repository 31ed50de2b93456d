// Issue 16's idle benchmark: the agent as it ships (agent/dist/hearth-agent.mjs run by plain node; the
// bundle is built when missing or older than its sources) enrolled with the compiled server and
// approved, on a system of 500 .desktop files with icons. One account, ann, is mapped to a child with
// a weekly schedule and has an active, unlocked logind session (a `loginctl` stand-in), so time is
// counted; every interval is the agent's default. Measures the first inventory scan as the agent
// reports it, the daemon's memory from /proc, and its CPU over AGENT_IDLE_SECONDS (600) of idling.
// `npm run bench:agent-idle`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { systemdUnit } from '../../agent/src/system-files.js';
import { FakeLogind } from '../../agent/test/logind.js';
import { BENCH_ACCOUNTS, buildDesktopTree } from './desktop-tree.js';
import { type Hearth, ownerCall, provenance, root, run, startHearth, writeResult } from './hearth-fixture.js';
import { cpuSnapshot, otherCpuShare } from './machine.js';

const ENTRIES = Number(process.env.AGENT_IDLE_ENTRIES ?? 500);
const IDLE_SECONDS = Number(process.env.AGENT_IDLE_SECONDS ?? 600);
const SAMPLE_MS = 10_000;
const TARGET_CPU_PERCENT = 0.5;
const TARGET_RSS_MB = 60;
const BUNDLE = path.join(root, 'agent/dist/hearth-agent.mjs');
/** The environment the systemd unit gives the daemon, so that it runs as installed. */
const UNIT_ENV = Object.fromEntries(
  [...systemdUnit().matchAll(/^Environment=([^=\n]+)=(.*)$/gm)].map((m) => [m[1] as string, m[2] as string]),
);
/** Extra node options for the daemon (V8 flags, a probe), to compare against the default. */
const NODE_ARGS = (process.env.AGENT_IDLE_NODE_ARGS ?? '').split(' ').filter(Boolean);
/** Extra environment for the daemon (`MALLOC_ARENA_MAX=1 …`), likewise. */
const EXTRA_ENV = Object.fromEntries(
  (process.env.AGENT_IDLE_ENV ?? '')
    .split(' ')
    .filter((kv) => kv.includes('='))
    .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

/** The newest modification time under a folder (the bundle's sources). */
function newest(dir: string): number {
  let latest = 0;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile() || e.name.endsWith('.test.ts')) continue;
    latest = Math.max(latest, statSync(path.join(e.parentPath, e.name)).mtimeMs);
  }
  return latest;
}

/** Builds the shipping bundle when it is missing or older than the agent's or the protocol's sources. */
function ensureBundle(): void {
  const sources = Math.max(newest(path.join(root, 'agent/src')), newest(path.join(root, 'protocol/src')));
  if (existsSync(BUNDLE) && statSync(BUNDLE).mtimeMs >= sources) return;
  const r = spawnSync(process.execPath, [path.join(root, 'agent/build.mjs')], {
    cwd: root,
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error('node agent/build.mjs failed');
}

interface Memory {
  rssKb: number;
  hwmKb: number;
  anonKb: number;
  fileKb: number;
}

function memoryOf(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) =>
    Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rssKb: kb('VmRSS'), hwmKb: kb('VmHWM'), anonKb: kb('RssAnon'), fileKb: kb('RssFile') };
}

const TICKS_PER_SECOND =
  Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

/** CPU seconds of the process itself (utime + stime, fields 14–15) and of its waited-for children (16–17). */
function cpuOf(pid: number): { self: number; children: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the parenthesised command name; state (field 3) is the first.
  const f = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  const at = (field: number) => f[field - 3] as number;
  return {
    self: (at(14) + at(15)) / TICKS_PER_SECOND,
    children: (at(16) + at(17)) / TICKS_PER_SECOND,
  };
}

interface LogLine {
  time: string;
  level: string;
  msg: string;
  [key: string]: unknown;
}

/** `node agent/dist/hearth-agent.mjs …` with its JSON log lines collected. */
class BundledAgent {
  readonly lines: LogLine[] = [];
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;
  private readonly child;
  private waiters: (() => boolean)[] = [];

  constructor(args: string[], env: NodeJS.ProcessEnv, nodeArgs: string[] = []) {
    this.child = spawn(process.execPath, [...nodeArgs, BUNDLE, ...args], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let partial = '';
    this.child.stdout.on('data', (d: Buffer) => {
      this.stdout += d.toString();
      this.check();
    });
    this.child.stderr.on('data', (d: Buffer) => {
      const text = d.toString();
      this.stderr = (this.stderr + text).slice(-20_000);
      const parts = (partial + text).split('\n');
      partial = parts.pop() ?? '';
      for (const part of parts) {
        try {
          this.lines.push(JSON.parse(part));
        } catch {
          // not a log line
        }
      }
      this.check();
    });
    this.exited = new Promise((resolve) =>
      this.child.on('exit', (code) => {
        resolve(code);
        this.check();
      }),
    );
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves once `test` holds; rejects when the process exits first or after `timeoutMs`. */
  waitFor(test: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const fail = (why: string) => reject(new Error(`${why} before: ${what}\n${this.stderr.slice(-4000)}`));
      const timer = setTimeout(() => fail(`${timeoutMs} ms passed`), timeoutMs);
      const look = () => {
        if (test()) {
          clearTimeout(timer);
          resolve();
          return true;
        }
        if (!this.running) {
          clearTimeout(timer);
          fail(`the agent exited (${this.child.exitCode ?? this.child.signalCode})`);
          return true;
        }
        return false;
      };
      if (!look()) this.waiters.push(look);
    });
  }

  waitForLog(msg: string, extra: (l: LogLine) => boolean = () => true): Promise<LogLine> {
    const find = () => this.lines.find((l) => l.msg === msg && extra(l));
    return this.waitFor(() => !!find(), `log "${msg}"`).then(() => find() as LogLine);
  }

  async stop(): Promise<void> {
    if (this.running) this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await this.exited;
    clearTimeout(timer);
  }

  private check(): void {
    this.waiters = this.waiters.filter((look) => !look());
  }
}

const mb = (kb: number) => (kb / 1024).toFixed(1);
const at = (l: LogLine) => Date.parse(l.time);

async function main(): Promise<void> {
  ensureBundle();
  let hearth: Hearth | null = null;
  const agents: BundledAgent[] = [];
  const sys = mkdtempSync(path.join(tmpdir(), 'hearth-bench-agent-idle-'));
  try {
    hearth = await startHearth('agent-idle');
    let t = performance.now();
    await buildDesktopTree(sys, ENTRIES);
    console.log(`built ${ENTRIES} entries in ${Math.round(performance.now() - t)} ms`);
    const logind = new FakeLogind(sys);
    const env: NodeJS.ProcessEnv = {
      ...logind.env(),
      HOME: process.env.HOME ?? '/root',
      HEARTH_AGENT_SYSROOT: sys,
      HEARTH_AGENT_STATE_DIR: path.join(sys, 'var/lib/hearth-agent'),
      HEARTH_AGENT_RUN_DIR: path.join(sys, 'run/hearth-agent'),
      HEARTH_AGENT_HOSTNAME: 'family-laptop',
      HEARTH_AGENT_LOG_LEVEL: 'info',
    };

    const { enrollment_token } = await ownerCall<{ enrollment_token: string }>(
      hearth,
      'GET',
      '/api/pairing/config',
    );
    const enrolling = new BundledAgent(
      ['enroll', '--server', hearth.baseUrl, '--token', enrollment_token],
      env,
    );
    agents.push(enrolling);
    await enrolling.waitFor(() => enrolling.stdout.includes('Waiting for a parent'), 'the waiting line');
    const identity = JSON.parse(
      readFileSync(path.join(env.HEARTH_AGENT_STATE_DIR as string, 'identity.json'), 'utf8'),
    ).data as { system_id: string };
    await ownerCall(hearth, 'POST', `/api/device/approve/${identity.system_id}`, {});
    if ((await enrolling.exited) !== 0) throw new Error(`enroll failed:\n${enrolling.stderr}`);

    const child = await ownerCall<{ id: string }>(hearth, 'POST', '/api/user/create', { name: 'Ann' });
    const days = Object.fromEntries(WEEKDAYS.map((d) => [d, { limit_minutes: 600, windows: [] }]));
    await ownerCall(hearth, 'POST', '/weekly-schedule/update', { managed_user_id: child.id, days });
    await ownerCall(hearth, 'POST', `/managed-users/${child.id}/mappings/add`, {
      system_id: identity.system_id,
      linux_username: 'ann',
    });

    t = performance.now();
    const daemonEnv = { ...UNIT_ENV, ...EXTRA_ENV };
    const shownEnv = Object.entries(daemonEnv)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    const daemon = new BundledAgent(['run'], { ...env, ...daemonEnv }, NODE_ARGS);
    agents.push(daemon);
    await daemon.waitForLog('agent started');
    const startupMs = performance.now() - t;
    const startup = memoryOf(daemon.pid);
    const connected = await daemon.waitForLog('connected to the server');
    await daemon.waitForLog('time policy applied', (l) => l.managed_user_id === child.id);
    const reports: LogLine[] = [];
    for (const account of BENCH_ACCOUNTS)
      reports.push(
        await daemon.waitForLog('installed apps reported', (l) => l.linux_username === account.username),
      );
    const scanned = memoryOf(daemon.pid);
    const last = reports.reduce((a, b) => (at(b) > at(a) ? b : a));
    const scanMs = Number(last.scan_ms);
    const connectToAckMs = at(last) - at(connected);
    console.log(
      `first scan ${scanMs} ms, connect → last ack ${connectToAckMs} ms; RSS ${mb(startup.rssKb)} → ${mb(scanned.rssKb)} MB (peak ${mb(scanned.hwmKb)})`,
    );

    // The peak from here on is the idle's own.
    writeFileSync(`/proc/${daemon.pid}/clear_refs`, '5');
    const usage = () =>
      ownerCall<{ used_seconds: number }>(hearth as Hearth, 'GET', `/api/user/${child.id}/usage`);
    const used0 = (await usage()).used_seconds;
    const linesBefore = daemon.lines.length;
    const cpu0 = cpuOf(daemon.pid);
    const machine0 = cpuSnapshot([daemon.pid, hearth.pid, process.pid]);
    const t0 = performance.now();
    const rss: number[] = [];
    console.log(`idling for ${IDLE_SECONDS} s`);
    while (performance.now() - t0 < IDLE_SECONDS * 1000) {
      await sleep(Math.min(SAMPLE_MS, IDLE_SECONDS * 1000 - (performance.now() - t0)));
      if (!daemon.running) throw new Error(`the daemon exited while idle:\n${daemon.stderr.slice(-4000)}`);
      rss.push(memoryOf(daemon.pid).rssKb);
    }
    const cpu1 = cpuOf(daemon.pid);
    const machine1 = cpuSnapshot([daemon.pid, hearth.pid, process.pid]);
    const idleS = (performance.now() - t0) / 1000;
    const end = memoryOf(daemon.pid);
    // The last usage_report of the period may still be on its way.
    await sleep(1_000);
    const used1 = (await usage()).used_seconds;
    const idleLines = daemon.lines.slice(linesBefore);
    const noisy = idleLines.filter((l) => l.level === 'warn' || l.level === 'error');

    const selfPercent = ((cpu1.self - cpu0.self) / idleS) * 100;
    const childPercent = ((cpu1.children - cpu0.children) / idleS) * 100;
    const maxRss = Math.max(...rss, end.rssKb);
    const other = otherCpuShare(machine0, machine1);
    const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
    writeResult('agent-idle', [
      `### The agent daemon idle: ${ENTRIES} .desktop files, ${BENCH_ACCOUNTS.length} accounts, ${Math.round(idleS)} s`,
      '',
      ...provenance(),
      `- Agent: \`${['node', ...NODE_ARGS, 'agent/dist/hearth-agent.mjs run'].join(' ')}\` (the shipping bundle, plain node) with ${shownEnv}, log level info, default intervals (logind poll 15 s, usage report 60 s, inventory 24 h)`,
      '- ann mapped to a child with a weekly schedule (600 min a day, no windows) and one active, unlocked session from the `loginctl` stand-in; ben unmapped',
      `- Other processes took ${other === null ? 'n/a' : `${(other * 100).toFixed(1)} %`} of the machine's CPU during the idle period`,
      '',
      '| Measure | Value | Target |',
      '|---|---|---|',
      `| First inventory scan, as the agent logs it (scan_ms) | ${scanMs} ms | |`,
      `| Connect → last report acknowledged (${reports.length} accounts, ${reports.map((r) => `${r.apps} apps, ${r.icons_sent} icons sent`).join('; ')}) | ${connectToAckMs} ms | |`,
      `| Start-up (spawn → "agent started") | ${Math.round(startupMs)} ms | |`,
      `| RSS at start-up (anon + file) | ${mb(startup.rssKb)} MB (${mb(startup.anonKb)} + ${mb(startup.fileKb)}) | |`,
      `| RSS after the first scan (peak during it, VmHWM) | ${mb(scanned.rssKb)} MB (${mb(scanned.hwmKb)} MB) | |`,
      `| RSS at the end of the idle period (anon + file) | ${mb(end.rssKb)} MB (${mb(end.anonKb)} + ${mb(end.fileKb)}) | < ${TARGET_RSS_MB} MB: ${verdict(end.rssKb / 1024 < TARGET_RSS_MB)} |`,
      `| RSS while idle: max of ${rss.length} samples every ${SAMPLE_MS / 1000} s (VmHWM) | ${mb(maxRss)} MB (${mb(end.hwmKb)} MB) | < ${TARGET_RSS_MB} MB: ${verdict(end.hwmKb / 1024 < TARGET_RSS_MB)} |`,
      `| Daemon CPU while idle (utime + stime) | ${selfPercent.toFixed(3)} % of a core (${(cpu1.self - cpu0.self).toFixed(2)} s) | < ${TARGET_CPU_PERCENT} %: ${verdict(selfPercent < TARGET_CPU_PERCENT)} |`,
      `| Its children's CPU (the \`loginctl\` stand-in, a node script) | ${childPercent.toFixed(3)} % of a core (${(cpu1.children - cpu0.children).toFixed(2)} s) | |`,
      `| Time counted for ann while idle (server's usage) | ${used1 - used0} s | |`,
      `| Log lines while idle (warn or error) | ${idleLines.length} (${noisy.length}) | |`,
    ]);
    if (noisy.length) console.log(noisy.map((l) => JSON.stringify(l)).join('\n'));
  } finally {
    for (const a of agents) await a.stop();
    await hearth?.stop();
    rmSync(sys, { recursive: true, force: true });
  }
}

run(main);
