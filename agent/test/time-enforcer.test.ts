// The time enforcer's decisions with an injected clock, logind and overlay (pure logic; the process,
// the server and the stand-in loginctl are time.test.ts's).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { localDate, openWeek, type ShowOverlayArgs, type WeeklyDays } from '@hearth/protocol';
import type { HumanAccount } from '../src/accounts.js';
import type { Frame } from '../src/channel.js';
import type { OverlayControl } from '../src/context.js';
import { createLogger } from '../src/log.js';
import { StateStore } from '../src/state.js';
import { DEFAULT_OVERLAY_DETAILS, TimeEnforcer } from '../src/time/enforcer.js';
import type { LedgerStore } from '../src/time/ledger.js';
import { type LogindSession, parseSessionList, parseShowSession } from '../src/time/logind.js';
import type { KeptTimePolicy } from '../src/time/policy.js';

const ZONE = 'Asia/Kathmandu';
const ANN: HumanAccount = { username: 'ann', uid: 1000, gid: 1000, home: '/home/ann' };
const BEN: HumanAccount = { username: 'ben', uid: 1001, gid: 1001, home: '/home/ben' };

class MemoryStore implements LedgerStore {
  docs = new Map<string, string>();
  read<T>(name: string, valid: (d: unknown) => d is T): T | null {
    const text = this.docs.get(name);
    if (text === undefined) return null;
    const d = JSON.parse(text);
    return valid(d) ? d : null;
  }
  write(name: string, data: unknown): void {
    this.docs.set(name, JSON.stringify(data));
  }
}

function session(over: Partial<LogindSession> = {}): LogindSession {
  return {
    id: '2',
    uid: 1000,
    username: 'ann',
    active: true,
    locked: false,
    idle: false,
    state: 'active',
    type: 'wayland',
    display: '',
    remote: false,
    ...over,
  };
}

function week(limit: number | null, windows: { start: string; end: string }[] = []): WeeklyDays {
  const days = openWeek();
  for (const d of Object.keys(days) as (keyof WeeklyDays)[]) days[d] = { limit_minutes: limit, windows };
  return days;
}

function policy(over: Partial<KeptTimePolicy> = {}): KeptTimePolicy {
  return {
    managed_user_id: 'child-1',
    linux_username: 'ann',
    version: 1,
    timezone: ZONE,
    days: week(null),
    adjustments: {},
    paused_until: null,
    ...over,
  };
}

/** An enforcer on a fake machine: clocks moved by hand, sessions set by hand, everything recorded. */
function rig(store: LedgerStore = new MemoryStore()) {
  // Noon in Kathmandu, so that a few hours either way stay on one day.
  const t = { wall: Date.parse('2025-03-12T06:15:00Z'), steady: 1_000_000, mono: 5_000 };
  const sessions: LogindSession[] = [];
  const locks: string[] = [];
  const sent: { frame: Frame; key?: string }[] = [];
  const overlay: { shown: ShowOverlayArgs[]; dismissed: string[] } = { shown: [], dismissed: [] };
  const notes: string[] = [];
  const logs: { msg: string }[] = [];
  let serverMinusWall: number | null = 0;
  const control: OverlayControl = {
    show: async (args) => void overlay.shown.push(args),
    dismiss: async (u) => void overlay.dismissed.push(u),
    current: () => [],
  };
  const enforcer = new TimeEnforcer({
    clocks: { wall: () => t.wall, steady: () => t.steady, mono: () => t.mono },
    activity: {
      sessions: async () => sessions.map((s) => ({ ...s })),
      lock: async (id) => {
        locks.push(id);
        return true;
      },
    },
    log: createLogger('debug', {}, (line) => logs.push(JSON.parse(line))),
    store,
    accounts: () => [ANN, BEN],
    overlay: () => control,
    overlayDetails: () => DEFAULT_OVERLAY_DETAILS('family-laptop'),
    sendDurable: (frame, key) => void sent.push({ frame, key }),
    notify: async (_target, _title, body) => void notes.push(body),
    serverMinusWall: async () => serverMinusWall,
    deviceZone: 'UTC',
    pollMs: 15_000,
    graceSeconds: 60,
  });
  /** Real time passing: every clock moves. */
  const pass = (ms: number) => {
    t.wall += ms;
    t.steady += ms;
    t.mono += ms;
  };
  /** Time passing with the daemon's polls every 15 s. */
  const live = async (ms: number) => {
    while (ms > 0) {
      const step = Math.min(ms, 15_000);
      pass(step);
      ms -= step;
      await enforcer.poll();
    }
  };
  return {
    t,
    live,
    enforcer,
    sessions,
    locks,
    sent,
    overlay,
    notes,
    logs,
    pass,
    setServer: (v: number | null) => {
      serverMinusWall = v;
    },
    today: () => localDate(t.wall, ZONE),
  };
}

describe('time enforcer', () => {
  test('counts only an active, unlocked, non-idle local session, on the household day, and reports each new total once', async () => {
    const r = rig();
    r.enforcer.applyPolicy(policy());
    r.sessions.push(session());
    await r.enforcer.poll();
    r.pass(15_000);
    await r.enforcer.poll();
    r.pass(15_000);
    await r.enforcer.poll();
    assert.equal(r.enforcer.ledger.localSeconds('ann', r.today()), 30);

    r.sessions[0] = session({ locked: true });
    await r.enforcer.poll(); // the interval before counts (it was unlocked then)
    r.pass(60_000);
    await r.enforcer.poll();
    r.sessions[0] = session({ idle: true });
    r.pass(15_000);
    await r.enforcer.poll();
    r.sessions[0] = session({ remote: true, type: 'tty' });
    r.pass(15_000);
    await r.enforcer.poll();
    r.sessions[0] = session({ active: false });
    r.pass(15_000);
    await r.enforcer.poll();
    r.pass(15_000);
    await r.enforcer.poll();
    assert.equal(
      r.enforcer.ledger.localSeconds('ann', r.today()),
      30,
      'locked, idle, remote, background: nothing',
    );

    r.enforcer.report();
    assert.deepEqual(r.sent, [
      {
        frame: { type: 'usage_report', linux_username: 'ann', date: r.today(), seconds_used: 30 },
        key: `usage:ann:${r.today()}`,
      },
    ]);
    r.enforcer.report();
    assert.equal(r.sent.length, 1, 'an unchanged total is not sent again');
  });

  test('two sessions of one account count once; a stalled process does not count the gap', async () => {
    const r = rig();
    r.sessions.push(session(), session({ id: '7' }), session({ id: '9', uid: 1001, username: 'ben' }));
    await r.enforcer.poll();
    r.pass(10_000);
    await r.enforcer.poll();
    r.pass(3_600_000);
    await r.enforcer.poll();
    // ben has no policy: his day is the device's (UTC here).
    assert.equal(r.enforcer.ledger.localSeconds('ann', localDate(r.t.wall, 'UTC')), 10 + 40);
    assert.equal(r.enforcer.ledger.localSeconds('ben', localDate(r.t.wall, 'UTC')), 10 + 40);
    assert.equal(r.overlay.shown.length, 0, 'accounts of no child are never held');
  });

  test('warnings at 5 and 1 minutes, the overlay at zero, the lock after the grace, dismissed when time is added', async () => {
    const r = rig();
    r.enforcer.applyPolicy(policy({ days: week(10) }));
    r.sessions.push(session());
    await r.enforcer.poll();
    r.enforcer.serverUsage('ann', r.today(), 5 * 60 + 1); // the other devices used 5:01 of 10:00
    assert.deepEqual(r.notes, ['Five minutes of screen time left.']);
    assert.equal(r.enforcer.statusOf('ann')?.warning, 5);
    // The next instant anything changes is the one-minute warning, 3:59 of use away (4:59 left).
    assert.equal(r.enforcer.wakeDelay(), 239_000);
    await r.live(239_000);
    assert.deepEqual(r.notes, ['Five minutes of screen time left.', 'One minute of screen time left.']);
    assert.equal(r.enforcer.wakeDelay(), 60_000);
    await r.live(60_000);
    assert.equal(r.overlay.shown.length, 1);
    assert.deepEqual(r.overlay.shown[0], {
      reason: 'locked',
      linux_username: 'ann',
      age_tier: 'eight12',
      parent_note: null,
      device_name: 'family-laptop',
    });
    assert.equal(r.enforcer.statusOf('ann')?.state, 'locked');
    assert.deepEqual(r.locks, []);
    assert.equal(r.enforcer.wakeDelay(), 60_000, 'the grace');
    await r.live(45_000);
    assert.deepEqual(r.locks, []);
    await r.live(15_000);
    assert.deepEqual(r.locks, ['2']);
    r.enforcer.evaluate();
    assert.equal(r.overlay.shown.length, 1, 'shown once');

    // A parent adds ten minutes: the overlay goes, the warnings may come again.
    r.enforcer.applyPolicy(policy({ version: 2, days: week(10), adjustments: { [r.today()]: 10 } }));
    assert.deepEqual(r.overlay.dismissed, ['ann']);
    assert.equal(r.enforcer.statusOf('ann')?.state, 'ok');
  });

  test('a pause shows locked with context paused; outside the windows shows sleep; the lock grace of the policy wins', async () => {
    const r = rig();
    r.sessions.push(session());
    await r.enforcer.poll();
    r.enforcer.applyPolicy(policy({ paused_until: 'indefinite', lock_grace_seconds: 5 }));
    assert.equal(r.overlay.shown.at(-1)?.reason, 'locked');
    assert.equal(r.overlay.shown.at(-1)?.context, 'paused');
    r.pass(5_000);
    r.enforcer.evaluate();
    assert.deepEqual(r.locks, ['2']);

    // 12:00 in Kathmandu; allowed only 15:00–18:00.
    r.enforcer.applyPolicy(policy({ version: 2, days: week(null, [{ start: '15:00', end: '18:00' }]) }));
    assert.equal(r.overlay.shown.at(-1)?.reason, 'sleep');
    assert.equal(r.overlay.shown.at(-1)?.context, undefined);
    assert.equal(
      r.enforcer.statusOf('ann')?.next_change_at,
      new Date(Date.parse('2025-03-12T09:15:00Z')).toISOString(),
    );
    await r.live(3 * 3_600_000);
    assert.deepEqual(r.overlay.dismissed, ['ann'], 'the window opened');
  });

  test('versions count per child; a release opens the week', () => {
    const r = rig();
    assert.deepEqual(r.enforcer.applyPolicy(policy({ version: 3, days: week(0) })), { applied_version: 3 });
    assert.deepEqual(
      r.enforcer.applyPolicy(policy({ version: 2 })),
      { applied_version: 3 },
      'older: ignored',
    );
    assert.deepEqual(r.enforcer.applyPolicy(policy({ version: 3 })), { applied_version: 3 }, 'repeated');
    assert.equal(r.enforcer.policies.get('ann')?.days.monday.limit_minutes, 0);
    assert.deepEqual(
      r.enforcer.applyPolicy(policy({ managed_user_id: 'child-2', version: 1 })),
      { applied_version: 1 },
      'another child: applied whatever its version',
    );
    assert.deepEqual(r.enforcer.applyPolicy(policy({ managed_user_id: null, version: 0 })), {
      applied_version: 0,
    });
    assert.equal(r.enforcer.policies.get('ann')?.managed_user_id, null);
  });

  test('the policy, totals and tamper flag survive a restart; a damaged state file is ignored', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hearth-time-'));
    try {
      const logs: string[] = [];
      const state = new StateStore(
        dir,
        createLogger('debug', {}, (l) => logs.push(l)),
      );
      const r = rig(state);
      r.enforcer.applyPolicy(policy({ days: week(60) }));
      r.sessions.push(session());
      await r.enforcer.poll();
      r.pass(15_000);
      await r.enforcer.poll();
      r.enforcer.report();
      const again = rig(state);
      again.t.wall = r.t.wall;
      assert.equal(again.enforcer.ledger.localSeconds('ann', again.today()), 15);
      assert.equal(again.enforcer.policies.get('ann')?.version, 1);

      writeFileSync(path.join(dir, 'time-usage.json'), '{"sha256":"00","data":{"ann":{}}}');
      const damaged = rig(state);
      assert.equal(damaged.enforcer.ledger.localSeconds('ann', damaged.today()), 0);
      assert.ok(logs.some((l) => l.includes('state file damaged') && l.includes('time-usage.json')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a wall clock jump against the steady clock and the server raises clock_tamper until cleared', async () => {
    const r = rig();
    r.enforcer.applyPolicy(policy());
    r.sessions.push(session());
    await r.enforcer.poll();

    // Suspend: every clock but the process's moves together — no jump.
    r.t.wall += 3_600_000;
    r.t.steady += 3_600_000;
    await r.enforcer.poll();
    // NTP fixing a wrong clock: a jump, but the server agrees with the result.
    r.t.wall += 600_000;
    r.setServer(0);
    await r.enforcer.poll();
    assert.equal(r.enforcer.tampered, false);

    r.t.wall -= 2 * 3_600_000;
    r.setServer(2 * 3_600_000);
    await r.enforcer.poll();
    assert.equal(r.enforcer.tampered, true);
    const alert = r.sent.find((s) => s.frame.type === 'alert_event');
    assert.equal(alert?.frame.event_type, 'clock_tamper');
    assert.equal(alert?.frame.linux_username, 'ann');
    assert.deepEqual((alert?.frame.detail as { jump_seconds: number } | undefined)?.jump_seconds, -7200);
    assert.equal(r.overlay.shown.at(-1)?.reason, 'clock_tamper');

    // Offline (no server to ask): a jump fails closed, but a flag already raised is not raised twice.
    r.setServer(null);
    r.t.wall += 3_600_000;
    await r.enforcer.poll();
    assert.equal(r.sent.filter((s) => s.frame.type === 'alert_event').length, 1);

    r.enforcer.clearTamper();
    assert.equal(r.enforcer.tampered, false);
    assert.deepEqual(r.overlay.dismissed, ['ann']);
  });

  test('loginctl output: the list (any systemd version) and show-session blocks', () => {
    assert.deepEqual(
      parseSessionList(
        '      2 1000 ann  seat0 tty2\n     c1  120 gdm  seat0 tty1\n  7 1001 ben        pts/0 no  -\n',
      ),
      [
        { id: '2', uid: 1000, username: 'ann' },
        { id: 'c1', uid: 120, username: 'gdm' },
        { id: '7', uid: 1001, username: 'ben' },
      ],
    );
    assert.deepEqual(parseShowSession('Id=2\nName=ann\nDisplay=\n\nId=7\nName=ben\nDisplay=:0\n'), [
      { Id: '2', Name: 'ann', Display: '' },
      { Id: '7', Name: 'ben', Display: ':0' },
    ]);
  });
});
