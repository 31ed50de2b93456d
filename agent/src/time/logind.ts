// Sessions from logind through the `loginctl` command (no D-Bus library: loginctl is the stable,
// documented boundary, and tests put a stand-in first on PATH). Two commands a poll: the session list
// (only its first three columns, SESSION UID USER, which every systemd version prints alike, unlike
// `-o json`, which some versions ignore) and one `show-session` for all of them.
import { execFile } from 'node:child_process';
import type { Logger } from '../log.js';

export interface LogindSession {
  id: string;
  uid: number;
  username: string;
  active: boolean;
  locked: boolean;
  idle: boolean;
  /** active | online | closing */
  state: string;
  /** x11 | wayland | tty | mir | unspecified */
  type: string;
  /** X11 display (":0") or "" */
  display: string;
  remote: boolean;
}

export interface ActivitySource {
  /** The sessions now; null when logind cannot be asked (nothing is counted then). */
  sessions(): Promise<LogindSession[] | null>;
  lock(sessionId: string): Promise<boolean>;
}

export const SHOW_PROPERTIES = [
  'Id',
  'Name',
  'User',
  'Active',
  'LockedHint',
  'IdleHint',
  'State',
  'Type',
  'Display',
  'Remote',
];

/** `loginctl list-sessions --no-legend`: "      2 1000 ann  seat0 tty2" per line. */
export function parseSessionList(text: string): { id: string; uid: number; username: string }[] {
  const out: { id: string; uid: number; username: string }[] = [];
  for (const line of text.split('\n')) {
    const [id, uid, username] = line.trim().split(/\s+/);
    if (!id || !username || !/^\d+$/.test(uid ?? '')) continue;
    out.push({ id, uid: Number(uid), username });
  }
  return out;
}

/** `loginctl show-session A B -p …`: Key=value lines, one block per session, blocks split by a blank line. */
export function parseShowSession(text: string): Record<string, string>[] {
  const blocks: Record<string, string>[] = [];
  let current: Record<string, string> = {};
  for (const line of `${text}\n`.split('\n')) {
    if (line.trim() === '') {
      if (Object.keys(current).length) blocks.push(current);
      current = {};
      continue;
    }
    const eq = line.indexOf('=');
    if (eq > 0) current[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return blocks;
}

const yes = (v: string | undefined) => v === 'yes';

export class Loginctl implements ActivitySource {
  private failing = false;

  constructor(
    private readonly log: Logger,
    private readonly command = 'loginctl',
    private readonly timeoutMs = 10_000,
  ) {}

  async sessions(): Promise<LogindSession[] | null> {
    try {
      const list = parseSessionList(await this.run(['list-sessions', '--no-legend']));
      const sessions: LogindSession[] = [];
      if (list.length) {
        const shown = parseShowSession(
          await this.run([
            'show-session',
            ...list.map((s) => s.id),
            ...SHOW_PROPERTIES.flatMap((p) => ['-p', p]),
          ]),
        );
        for (const [i, listed] of list.entries()) {
          // Blocks come in the order asked; Id (when printed) confirms which session each is.
          const p =
            shown.find((b) => b.Id === listed.id) ?? (shown.every((b) => !b.Id) ? shown[i] : undefined);
          if (!p) continue;
          sessions.push({
            id: listed.id,
            uid: listed.uid,
            username: p.Name || listed.username,
            active: yes(p.Active),
            locked: yes(p.LockedHint),
            idle: yes(p.IdleHint),
            state: p.State ?? '',
            type: p.Type ?? '',
            display: p.Display ?? '',
            remote: yes(p.Remote),
          });
        }
      }
      if (this.failing) this.log.info('logind answers again');
      this.failing = false;
      return sessions;
    } catch (err) {
      // Once per outage, not every poll: a system without logind would fill the journal.
      if (!this.failing) this.log.warn('cannot read sessions from logind; no time is counted', { err });
      this.failing = true;
      return null;
    }
  }

  async lock(sessionId: string): Promise<boolean> {
    try {
      await this.run(['lock-session', sessionId]);
      return true;
    } catch (err) {
      this.log.warn('could not lock the session', { session: sessionId, err });
      return false;
    }
  }

  private run(args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(
        this.command,
        ['--no-pager', ...args],
        { timeout: this.timeoutMs, maxBuffer: 1024 * 1024, env: { ...process.env, SYSTEMD_COLORS: '0' } },
        (err, stdout, stderr) => {
          if (err) reject(new Error(`${this.command} ${args[0]}: ${stderr.trim() || err.message}`));
          else resolve(stdout);
        },
      );
    });
  }
}
