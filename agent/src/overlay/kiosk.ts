// The kiosk windows (DESIGN §14): one full-screen Chromium per account showing Hearth Space, run as the
// child on the child's display. A window that dies while it should be shown (Alt+F4, a crash) comes back
// after a growing pause; `dismiss` ends its whole process group.
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, chmodSync, chownSync, constants, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { ShowOverlayArgs } from '@hearth/protocol';
import type { HumanAccount } from '../accounts.js';
import type { OverlayState } from '../context.js';
import type { Logger } from '../log.js';
import type { AgentPaths } from '../paths.js';
import { underRoot } from '../paths.js';
import { findDisplay, runtimeDirOf } from './display.js';
import type { OverlayServer } from './server.js';

/** How long a show waits for the window to fetch its page before it counts a running process as up. */
const LOAD_WAIT_MS = 12_000;
const KILL_WAIT_MS = 5_000;
const RESTART_MIN_MS = 1_000;
const RESTART_MAX_MS = 30_000;
/** A window that lived this long before it died starts its back-off from the bottom again. */
const HEALTHY_MS = 60_000;
const STDERR_KEEP = 4_096;

export interface KioskOptions {
  paths: AgentPaths;
  log: Logger;
  env: NodeJS.ProcessEnv;
  server: OverlayServer;
  account(username: string): HumanAccount | undefined;
  /** Called whenever the set of shown overlays (or a reason) changes. */
  changed(): void;
}

interface Window {
  args: ShowOverlayArgs;
  since: string;
  token: string;
  child?: ChildProcess;
  /** Resolves when the current child has exited. */
  exited?: Promise<void>;
  failures: number;
  restart?: NodeJS.Timeout;
  /** Bumped by every show and dismiss, so a stale restart or exit does nothing. */
  generation: number;
}

/** The browser: HEARTH_AGENT_CHROMIUM, else the first of chromium, chromium-browser, google-chrome on PATH. */
export function findChromium(env: NodeJS.ProcessEnv): string | null {
  if (env.HEARTH_AGENT_CHROMIUM) return env.HEARTH_AGENT_CHROMIUM;
  const dirs = (env.PATH || '/usr/local/bin:/usr/bin:/bin').split(':').filter(Boolean);
  for (const name of ['chromium', 'chromium-browser', 'google-chrome'])
    for (const dir of dirs) {
      const file = path.join(dir, name);
      try {
        accessSync(file, constants.X_OK);
        return file;
      } catch {
        // not here
      }
    }
  return null;
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}

/** Resolves once no process of the group is left (checked every 50 ms, for at most 5 s). */
function groupGone(pgid: number): Promise<void> {
  return new Promise((resolve) => {
    let tries = 0;
    const check = () => {
      try {
        process.kill(-pgid, 0);
      } catch {
        return resolve();
      }
      if (++tries >= KILL_WAIT_MS / 50) return resolve();
      setTimeout(check, 50);
    };
    check();
  });
}

export class Kiosk {
  private readonly windows = new Map<string, Window>();
  private readonly isRoot = process.getuid?.() === 0;
  /** Set by stopAll: the daemon is going away, so no window may start any more. */
  private closed = false;

  constructor(private readonly o: KioskOptions) {}

  current(): OverlayState[] {
    return [...this.windows.entries()].map(([linux_username, w]) => ({
      linux_username,
      reason: w.args.reason,
      since: w.since,
    }));
  }

  /** Shows (or shows again with new arguments) the account's window; resolves once it is up. */
  async show(args: ShowOverlayArgs): Promise<void> {
    const username = args.linux_username;
    if (this.closed) throw new Error('the agent is stopping');
    if (!this.o.account(username)) throw new Error(`no account named ${username} on this device`);
    const old = this.windows.get(username);
    const w: Window = {
      args,
      since: old && old.args.reason === args.reason ? old.since : new Date().toISOString(),
      token: this.o.server.newToken(username),
      failures: 0,
      generation: (old?.generation ?? 0) + 1,
    };
    if (old) await this.end(old);
    this.windows.set(username, w);
    try {
      await this.launch(username, w);
    } catch (err) {
      // A window that cannot start at all is not kept: the parent is told, and nothing retries blindly.
      if (this.windows.get(username) === w) {
        this.windows.delete(username);
        this.o.server.revoke(username);
        await this.end(w);
      }
      this.o.changed();
      throw err;
    }
    this.o.changed();
  }

  async dismiss(username: string): Promise<void> {
    const w = this.windows.get(username);
    if (!w) return;
    this.windows.delete(username);
    this.o.server.revoke(username);
    await this.end(w);
    this.o.log.info('overlay dismissed', { linux_username: username });
    this.o.changed();
  }

  async stopAll(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.windows.keys()].map((u) => this.dismiss(u)));
  }

  /** The process id of the account's window, if one runs (for status and tests). */
  pidOf(username: string): number | undefined {
    return this.windows.get(username)?.child?.pid;
  }

  private async end(w: Window): Promise<void> {
    w.generation += 1;
    clearTimeout(w.restart);
    const child = w.child;
    if (!child?.pid || !w.exited) return;
    const pid = child.pid;
    killGroup(pid, 'SIGTERM');
    const timer = setTimeout(() => killGroup(pid, 'SIGKILL'), KILL_WAIT_MS);
    await w.exited;
    clearTimeout(timer);
    // Helpers left behind by the browser share its process group; the window is gone once they are.
    killGroup(pid, 'SIGKILL');
    await groupGone(pid);
  }

  private profileDir(account: HumanAccount, switching: boolean): string {
    const parent = path.join(this.o.paths.runDir, 'kiosk');
    mkdirSync(parent, { recursive: true, mode: 0o711 });
    chmodSync(parent, 0o711);
    // A fresh profile each start: no "restore pages" bubble after a kill, nothing kept between children.
    const dir = path.join(parent, String(account.uid));
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { mode: 0o700 });
    if (switching) chownSync(dir, account.uid, account.gid);
    return dir;
  }

  private async launch(username: string, w: Window): Promise<void> {
    const { paths, log, env, server } = this.o;
    // Taken before the first await: a dismiss (or stopAll) while the display is looked up makes it stale.
    const generation = w.generation;
    const stale = () => this.closed || w.generation !== generation || this.windows.get(username) !== w;
    const account = this.o.account(username);
    if (!account) throw new Error(`no account named ${username} on this device`);
    const browser = findChromium(env);
    if (!browser) throw new Error('no Chromium found (set HEARTH_AGENT_CHROMIUM or install chromium)');
    if (!server.hasPage()) throw new Error('the overlay page blockedv2.html is not installed');
    const display = await findDisplay(paths, account, env);
    if (!display) throw new Error(`${username} has no graphical session to show the overlay on`);
    if (stale()) throw new Error('the overlay was dismissed while its window was starting');

    const switching = this.isRoot && account.uid !== process.getuid?.();
    const profile = this.profileDir(account, switching);
    const runtime =
      display.source === 'logind' ? runtimeDirOf(paths, account.uid) : env.XDG_RUNTIME_DIR || null;
    const childEnv: Record<string, string> = {
      PATH: env.PATH || '/usr/local/bin:/usr/bin:/bin',
      HOME: underRoot(paths, account.home),
      USER: account.username,
      LOGNAME: account.username,
      LANG: env.LANG || 'C.UTF-8',
      // Chromium's config and cache stay in the throw-away profile, not in the child's home.
      XDG_CONFIG_HOME: path.join(profile, 'config'),
      XDG_CACHE_HOME: path.join(profile, 'cache'),
      ...display.env,
      ...(runtime ? { XDG_RUNTIME_DIR: runtime } : {}),
    };

    const q = new URLSearchParams({
      reason: w.args.reason,
      age: w.args.age_tier,
      device: w.args.device_name,
    });
    if (w.args.parent_note) q.set('note', w.args.parent_note);
    if (w.args.context) q.set('context', w.args.context);
    if (env.HEARTH_AGENT_OVERLAY_LANG) q.set('lang', env.HEARTH_AGENT_OVERLAY_LANG);
    q.set('bridge', server.bridgeUrl);
    q.set('bridge_token', w.token);

    let loaded!: () => void;
    const whenLoaded = new Promise<void>((resolve) => {
      loaded = resolve;
    });
    const launchUrl = server.launchUrl(username, q, () => loaded());
    const args = [
      '--kiosk',
      `--app=${launchUrl}`,
      `--user-data-dir=${profile}`,
      '--no-first-run',
      '--no-default-browser-check',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-gpu',
      '--disable-session-crashed-bubble',
      '--disable-features=Translate,MediaRouter',
      '--password-store=basic',
      '--noerrdialogs',
      `--ozone-platform=${display.wayland ? 'wayland' : 'x11'}`,
      // Chromium refuses to run as root with its sandbox; a child's window never runs as root.
      ...(this.isRoot && !switching ? ['--no-sandbox'] : []),
      ...(env.HEARTH_AGENT_KIOSK_FLAGS ?? '').split(/\s+/).filter(Boolean),
    ];

    const child = spawn(browser, args, {
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: childEnv,
      cwd: profile,
      ...(switching ? { uid: account.uid, gid: account.gid } : {}),
    });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-STDERR_KEEP);
    });
    const startedAt = Date.now();
    w.child = child;
    w.exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const died = new Promise<Error>((resolve) => {
      child.once('error', (err) => resolve(err));
      child.once('exit', (code, signal) =>
        resolve(
          new Error(`the kiosk window exited (${signal ?? code}) before it loaded: ${stderr.slice(-800)}`),
        ),
      );
    });
    child.once('exit', (code, signal) => {
      if (w.child === child) w.child = undefined;
      if (stale()) return;
      log.warn('kiosk window ended while it should be shown; it comes back', {
        linux_username: username,
        code,
        signal,
      });
      if (Date.now() - startedAt > HEALTHY_MS) w.failures = 0;
      this.scheduleRestart(username, w);
    });

    let waited: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      whenLoaded.then(() => 'loaded' as const),
      died,
      new Promise<'waited'>((resolve) => {
        waited = setTimeout(() => resolve('waited'), LOAD_WAIT_MS);
      }),
    ]);
    clearTimeout(waited);
    if (outcome instanceof Error) throw outcome;
    if (outcome === 'waited')
      log.warn('kiosk window runs but has not fetched the page yet', { linux_username: username });
    log.info('kiosk window shown', {
      linux_username: username,
      reason: w.args.reason,
      pid: child.pid,
      display: display.env.WAYLAND_DISPLAY ?? display.env.DISPLAY,
      display_from: display.source,
    });
  }

  private scheduleRestart(username: string, w: Window): void {
    const delay = Math.min(RESTART_MIN_MS * 2 ** w.failures, RESTART_MAX_MS);
    w.failures += 1;
    const generation = w.generation;
    clearTimeout(w.restart);
    w.restart = setTimeout(() => {
      w.restart = undefined;
      if (w.generation !== generation || this.windows.get(username) !== w) return;
      this.launch(username, w).catch((err) => {
        this.o.log.warn('kiosk window did not come back', { linux_username: username, err });
        // A window that died on its way up has scheduled its own return already.
        if (w.generation === generation && this.windows.get(username) === w && !w.child && !w.restart)
          this.scheduleRestart(username, w);
      });
    }, delay);
    w.restart.unref();
  }
}
