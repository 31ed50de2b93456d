// What enforcement does for one account at one instant: pure, so that the tests can walk it through
// a day with an injected clock. The rules themselves are the shared engine's (protocol/src/time).
import { evaluateTime, type OverlayReason, type TimeRulesResult } from '@hearth/protocol';
import type { KeptTimePolicy } from './policy.js';

export const WARN_MINUTES = [5, 1] as const;

export interface Verdict {
  rules: TimeRulesResult;
  /** The overlay the account should see now, or null when it may use the device. */
  overlay: { reason: OverlayReason; context?: 'paused' } | null;
  /** The warning due now (minutes left: 5 or 1), or null. */
  warning: 5 | 1 | null;
  /** The next instant (wall ms) this verdict may change while the child keeps using the device, or null. */
  wakeAt: number | null;
}

export function decide(policy: KeptTimePolicy, usedSeconds: number, now: number, tampered: boolean): Verdict {
  const rules = evaluateTime({
    timezone: policy.timezone,
    days: policy.days,
    adjustments: policy.adjustments,
    used_seconds: usedSeconds,
    paused_until: policy.paused_until,
    now,
  });
  let overlay: Verdict['overlay'] = null;
  if (tampered) overlay = { reason: 'clock_tamper' };
  else if (rules.state === 'paused') overlay = { reason: 'locked', context: 'paused' };
  else if (rules.state === 'sleep') overlay = { reason: 'sleep' };
  else if (rules.state === 'locked') overlay = { reason: 'locked' };

  const left = rules.state === 'ok' ? rules.remaining_seconds : null;
  let warning: Verdict['warning'] = null;
  if (left !== null && left > 0) {
    if (left <= 60) warning = 1;
    else if (left <= 300) warning = 5;
  }
  let wakeAt = rules.next_change_at === null ? null : Date.parse(rules.next_change_at);
  // The next warning threshold, reached after that much more use.
  if (left !== null) {
    for (const minutes of WARN_MINUTES) {
      const at = now + (left - minutes * 60) * 1000;
      if (left > minutes * 60 && (wakeAt === null || at < wakeAt)) wakeAt = at;
    }
  }
  return { rules, overlay, warning, wakeAt };
}
