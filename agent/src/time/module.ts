// The time part of the daemon: wires the enforcer to logind, the server connection and the overlay,
// and runs it on timers — a poll of the sessions (HEARTH_AGENT_ACTIVITY_POLL_MS, 15 s), a wake-up at
// the next instant the rules change, and a usage report (HEARTH_AGENT_USAGE_REPORT_MS, a minute).
import { AGE_TIERS, type AgeTier } from '@hearth/protocol';
import type { AgentContext, AgentModule } from '../context.js';
import { systemClocks } from './clock.js';
import { DEFAULT_OVERLAY_DETAILS, type OverlayDetails, TimeEnforcer } from './enforcer.js';
import { focusedExecutable } from './focus.js';
import { Loginctl } from './logind.js';
import { readPolicyArgs, USERNAME } from './policy.js';
import { runAs } from './run-as.js';

const ACCOUNTS_FILE = 'time-accounts.json';

interface AgentAccounts {
  display_name: string;
  accounts: { linux_username: string; overlay_age_tier: string; overlay_parent_note: string | null }[];
}

const isAgentAccounts = (d: unknown): d is AgentAccounts =>
  !!d &&
  typeof d === 'object' &&
  typeof (d as AgentAccounts).display_name === 'string' &&
  Array.isArray((d as AgentAccounts).accounts);

const positive = (text: string | undefined, fallback: number) => {
  const n = Number(text);
  return text && Number.isFinite(n) && n > 0 ? n : fallback;
};

export function timeModule(): AgentModule {
  const timers = new Set<NodeJS.Timeout>();
  let enforcer: TimeEnforcer | null = null;
  let stopped = false;
  return {
    name: 'time',
    start(ctx: AgentContext) {
      const env = process.env;
      const log = ctx.log.child({ part: 'time' });
      const pollMs = positive(env.HEARTH_AGENT_ACTIVITY_POLL_MS, 15_000);
      const reportMs = positive(env.HEARTH_AGENT_USAGE_REPORT_MS, 60_000);
      const clocks = systemClocks(env);

      // The child's Hearth Space settings and the device's name, as the server last said.
      let known: AgentAccounts | null = ctx.state.read(ACCOUNTS_FILE, isAgentAccounts);
      const fetchAccounts = async (): Promise<boolean> => {
        const res = await ctx.serverFetch('/api/agent/accounts');
        if (res.status !== 200) {
          await res.body?.cancel();
          return false;
        }
        const body = await res.json();
        if (isAgentAccounts(body)) {
          known = body;
          ctx.state.write(ACCOUNTS_FILE, body);
        }
        return true;
      };
      const details = (username: string): OverlayDetails => {
        const base = DEFAULT_OVERLAY_DETAILS(known?.display_name || ctx.hostname);
        const account = known?.accounts.find((a) => a.linux_username === username);
        if (!account) return base;
        const tier = (AGE_TIERS as readonly string[]).includes(account.overlay_age_tier)
          ? (account.overlay_age_tier as AgeTier)
          : base.age_tier;
        return { ...base, age_tier: tier, parent_note: account.overlay_parent_note };
      };

      const run = new TimeEnforcer({
        clocks,
        activity: new Loginctl(log),
        log,
        store: ctx.state,
        accounts: () => ctx.accounts(),
        overlay: () => ctx.overlay,
        overlayDetails: details,
        sendDurable: (frame, key) => ctx.sendDurable(frame, key),
        notify: async (target, title, body) => {
          await runAs(target, 'notify-send', ['--urgency=critical', '--app-name=Hearth', title, body]);
        },
        focused: env.HEARTH_AGENT_NO_FOCUS ? undefined : focusedExecutable,
        async serverMinusWall() {
          // A fresh Date header: the offset kept from an older answer predates the jump.
          if (!(await fetchAccounts().catch(() => false))) return null;
          const offset = ctx.serverClockOffset();
          return offset === null ? null : offset - (clocks.wall() - Date.now());
        },
        deviceZone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
        pollMs,
        graceSeconds: positive(env.HEARTH_AGENT_LOCK_GRACE_SECONDS, 60),
      });
      enforcer = run;

      const later = (fn: () => void, ms: number) => {
        const t = setTimeout(() => {
          timers.delete(t);
          fn();
        }, ms);
        timers.add(t);
        return t;
      };
      let wake: NodeJS.Timeout | null = null;
      // One timer at the next instant the rules change; the poll covers anything further off.
      const rearm = () => {
        if (wake) {
          clearTimeout(wake);
          timers.delete(wake);
          wake = null;
        }
        const delay = run.wakeDelay();
        if (stopped || delay === null || delay >= pollMs) return;
        wake = later(() => {
          wake = null;
          guarded(() => run.evaluate());
        }, Math.ceil(delay) + 5);
      };
      const guarded = (fn: () => void) => {
        try {
          fn();
        } catch (err) {
          log.error('time enforcement failed', { err });
        }
        rearm();
      };
      const poll = async () => {
        try {
          await run.poll();
        } catch (err) {
          log.error('time poll failed', { err });
        }
        rearm();
        if (!stopped) later(poll, pollMs);
      };
      const report = () => {
        guarded(() => run.report());
        if (!stopped) later(report, reportMs);
      };

      ctx.onCommand('set_time_policy', (args) => {
        const policy = readPolicyArgs(args);
        let answer: { applied_version: number } = { applied_version: 0 };
        guarded(() => {
          answer = run.applyPolicy(policy);
        });
        void fetchAccounts().catch(() => {});
        return answer;
      });
      ctx.onPush('time_status', (frame) => {
        const { linux_username, date, used_seconds } = frame;
        if (
          typeof linux_username !== 'string' ||
          !USERNAME.test(linux_username) ||
          typeof date !== 'string' ||
          !/^\d{4}-\d{2}-\d{2}$/.test(date) ||
          typeof used_seconds !== 'number' ||
          !Number.isFinite(used_seconds)
        )
          return log.warn('time_status ignored: unexpected shape');
        log.debug('time status from the server', { linux_username, date, used_seconds });
        guarded(() => run.serverUsage(linux_username, date, used_seconds));
      });
      ctx.onCommand('clear_clock_tamper', () => {
        guarded(() => run.clearTamper());
        return {};
      });
      ctx.events.on('authenticated', () => {
        void fetchAccounts().catch((err) => log.debug('could not read the accounts', { err }));
      });

      void poll();
      later(report, reportMs);
    },
    stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      try {
        enforcer?.report();
      } catch {
        // the outbox is gone with the daemon; the ledger was saved a minute ago at worst
      }
    },
  };
}
