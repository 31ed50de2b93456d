// The agent's tests run the real `hearth-agent` process (from its sources, through tsx) against the real
// server, in a temporary system tree: passwd, homes and applications live under HEARTH_AGENT_SYSROOT.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const AGENT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT = path.resolve(AGENT_DIR, '..');
export const CLI = path.join(AGENT_DIR, 'src', 'cli.ts');

export interface TestAccount {
  username: string;
  uid: number;
  display_name?: string;
  shell?: string;
}

export interface Sysroot {
  root: string;
  stateDir: string;
  runDir: string;
  home(username: string): string;
  cleanup(): void;
}

/** A temporary system: /etc/passwd with root, a service account and the given people, and their homes. */
export function makeSysroot(accounts: TestAccount[]): Sysroot {
  const root = mkdtempSync(path.join(tmpdir(), 'hearth-agent-root-'));
  const stateDir = path.join(root, 'var/lib/hearth-agent');
  const runDir = path.join(root, 'run/hearth-agent');
  mkdirSync(path.join(root, 'etc'), { recursive: true });
  const lines = [
    'root:x:0:0:root:/root:/bin/bash',
    'daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin',
    'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin',
    'gdm:x:120:125:Gnome Display Manager:/var/lib/gdm3:/bin/false',
    ...accounts.map(
      (a) =>
        `${a.username}:x:${a.uid}:${a.uid}:${a.display_name ?? ''},,,:/home/${a.username}:${a.shell ?? '/bin/bash'}`,
    ),
  ];
  writeFileSync(path.join(root, 'etc/passwd'), `${lines.join('\n')}\n`);
  for (const a of accounts) mkdirSync(path.join(root, 'home', a.username), { recursive: true });
  return {
    root,
    stateDir,
    runDir,
    home: (username) => path.join(root, 'home', username),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

export interface LogLine {
  level: string;
  msg: string;
  [key: string]: unknown;
}

/** How long a wait on an agent process may take before the test fails saying what it waited for. */
export const WAIT_BOUND_MS = 120_000;

/**
 * Conditions that change when something arrives (a frame, a request): `until` resolves once its test holds,
 * checked at each `wake()`, and fails after WAIT_BOUND_MS naming what it waited for.
 */
export class Conditions {
  private waiters: (() => void)[] = [];

  until(test: () => boolean, what: string): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const bound = setTimeout(
        () => reject(new Error(`gave up after ${WAIT_BOUND_MS / 1000} s waiting for ${what}`)),
        WAIT_BOUND_MS,
      );
      const check = () => {
        if (test()) {
          clearTimeout(bound);
          resolve();
        } else this.waiters.push(check);
      };
      this.waiters.push(check);
    });
  }

  /** Something arrived: checks every waiting test once. */
  wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

/** Asks `read` again until `ok` holds (bounded like the waits below), answering the last value. */
export async function until<T>(
  read: () => Promise<T>,
  ok: (v: T) => boolean,
  what = 'an answer',
): Promise<T> {
  const deadline = Date.now() + WAIT_BOUND_MS;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline)
      throw new Error(`gave up waiting for ${what}; the last was ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One run of the agent's CLI as its own process; its JSON log lines are collected as they come. */
export class AgentProcess {
  readonly lines: LogLine[] = [];
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;
  private waiters: { test: () => boolean; resolve: () => void }[] = [];

  constructor(args: string[], env: Record<string, string>) {
    this.child = spawn(process.execPath, ['--conditions=hearth-source', '--import', 'tsx', CLI, ...args], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/root',
        HEARTH_AGENT_LOG_LEVEL: 'debug',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let partial = '';
    this.child.stdout?.on('data', (d: Buffer) => {
      this.stdout += d.toString();
      this.check();
    });
    this.child.stderr?.on('data', (d: Buffer) => {
      const text = d.toString();
      this.stderr += text;
      if (process.env.HEARTH_TEST_AGENT_ECHO) process.stderr.write(text);
      partial += text;
      const parts = partial.split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        try {
          this.lines.push(JSON.parse(line));
        } catch {
          // not a log line (a stack trace would show in stderr)
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

  /** Null while the process runs. */
  get exitCode(): number | null {
    return this.child.exitCode;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /**
   * Resolves once `test` holds (checked on every output); rejects if the process exits first, or
   * after WAIT_BOUND_MS (a bound for a machine that has stalled, not a wait: a failed test must not
   * leave the run hanging).
   */
  waitFor(test: () => boolean, what: string): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = {
        test,
        resolve: () => {
          clearTimeout(bound);
          resolve();
        },
      };
      const bound = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(
          new Error(
            `gave up after ${WAIT_BOUND_MS / 1000} s waiting for: ${what}\n${this.stderr.slice(-4000)}`,
          ),
        );
      }, WAIT_BOUND_MS);
      this.waiters.push(waiter);
      this.exited.then((code) => {
        if (this.waiters.includes(waiter) && !test()) {
          clearTimeout(bound);
          reject(new Error(`agent exited (${code}) before: ${what}\n${this.stderr.slice(-4000)}`));
        }
      });
    });
  }

  waitForLog(msg: string | RegExp, extra: (line: LogLine) => boolean = () => true): Promise<LogLine> {
    const find = () =>
      this.lines.find((l) => (typeof msg === 'string' ? l.msg === msg : msg.test(l.msg)) && extra(l));
    return this.waitFor(() => !!find(), `log "${msg}"`).then(() => find() as LogLine);
  }

  /** Re-checks on a timer as well, for conditions outside the process's output (files); bounded alike. */
  poll(test: () => boolean, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const deadline = Date.now() + WAIT_BOUND_MS;
      const tick = setInterval(() => {
        if (test()) {
          clearInterval(tick);
          resolve();
        } else if (Date.now() > deadline) {
          clearInterval(tick);
          reject(new Error(`gave up after ${WAIT_BOUND_MS / 1000} s waiting for: ${what}`));
        }
      }, 50);
      this.exited.then((code) => {
        clearInterval(tick);
        if (!test()) reject(new Error(`agent exited (${code}) before: ${what}\n${this.stderr.slice(-4000)}`));
        else resolve();
      });
    });
  }

  /** SIGTERM, then SIGKILL if the agent has not exited within WAIT_BOUND_MS: a stop never waits for ever. */
  async stop(): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      const kill = setTimeout(() => {
        console.log(`# the agent did not stop within ${WAIT_BOUND_MS / 1000} s of SIGTERM: killed`);
        this.child.kill('SIGKILL');
      }, WAIT_BOUND_MS);
      void this.exited.finally(() => clearTimeout(kill));
    }
    return this.exited;
  }

  private check(): void {
    this.waiters = this.waiters.filter((w) => {
      if (!w.test()) return true;
      w.resolve();
      return false;
    });
  }
}

/** The environment that points the agent at a sysroot. */
export function agentEnv(sys: Sysroot, extra: Record<string, string> = {}): Record<string, string> {
  return {
    HEARTH_AGENT_STATE_DIR: sys.stateDir,
    HEARTH_AGENT_RUN_DIR: sys.runDir,
    HEARTH_AGENT_SYSROOT: sys.root,
    HEARTH_AGENT_HOSTNAME: 'family-laptop',
    HEARTH_AGENT_BACKOFF_MS: '50,400',
    ...extra,
  };
}
