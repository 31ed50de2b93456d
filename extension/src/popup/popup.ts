// The toolbar popup: whether Hearth is connected (and if not, why, in plain words), what the agent says
// about the device and account, the blocked-sites list and the last sign-up check. It asks the worker
// (HEARTH_STATUS) when it opens and every two seconds while it stays open.
import type { ExtensionStatus } from '../messages.ts';
import { failsClosed } from '../worker/rules.ts';
import { type PopupText, pickText } from './locales.ts';

const REFRESH_MS = 2_000;

const t: PopupText = pickText(navigator.languages?.length ? navigator.languages : [navigator.language]);
document.documentElement.lang = t.lang;

const $ = (name: string) => document.querySelector(`[data-popup="${name}"]`) as HTMLElement;
for (const dt of document.querySelectorAll<HTMLElement>('[data-label]'))
  dt.textContent = t.labels[dt.dataset.label as keyof PopupText['labels']];

const numbers = new Intl.NumberFormat(t.lang);
const relative = new Intl.RelativeTimeFormat(t.lang, { numeric: 'auto' });

function ago(at: number): string {
  const seconds = Math.round((at - Date.now()) / 1000);
  if (Math.abs(seconds) < 60) return relative.format(seconds, 'second');
  const minutes = Math.round(seconds / 60);
  if (Math.abs(minutes) < 60) return relative.format(minutes, 'minute');
  const hours = Math.round(minutes / 60);
  if (Math.abs(hours) < 24) return relative.format(hours, 'hour');
  return relative.format(Math.round(hours / 24), 'day');
}

function render(status: ExtensionStatus, version: string): void {
  const state =
    status.connection === 'connected' && status.serverReachable === false ? 'serverAway' : status.connection;
  document.body.dataset.connection = state;
  $('headline').textContent = t.headline[state];
  $('detail').textContent = t.detail[state];
  const paused = $('paused');
  paused.hidden = status.connection === 'connected' || !failsClosed(status);
  paused.textContent = t.signupsPaused;

  const agent = status.agent;
  const unknown = status.agentInfoUnsupported ? t.notShared : t.notKnown;
  const deviceRow = $('device').parentElement as HTMLElement;
  const accountRow = $('account').parentElement as HTMLElement;
  // Until the agent shares who and where, one row says so instead of two.
  accountRow.hidden = !agent;
  (deviceRow.querySelector('dt') as HTMLElement).textContent = agent
    ? t.labels.device
    : t.labels.deviceAndAccount;
  $('device').textContent = agent?.device_name ?? unknown;
  const who = agent?.child_name ?? agent?.linux_username ?? unknown;
  $('account').textContent =
    agent?.child_name && agent.linux_username ? `${agent.child_name} (${agent.linux_username})` : who;
  $('signups').textContent =
    status.enforced === null ? t.notKnown : status.enforced ? t.signupsOn : t.signupsOff;
  $('policy').textContent = status.policy
    ? t.policyLine(status.policy.version, status.policy.blocked, numbers.format(status.policy.blocked))
    : t.policyNone;
  $('last-check').textContent = status.lastCheck
    ? `${status.lastCheck.domain} · ${t.checkOutcome[status.lastCheck.outcome]} · ${ago(status.lastCheck.at)}`
    : t.noChecks;
  $('footer').textContent = t.footer(version);
  document.body.dataset.ready = 'true';
}

async function refresh(): Promise<void> {
  try {
    const reply = (await chrome.runtime.sendMessage({ type: 'HEARTH_STATUS' })) as
      | { ok: true; version: string; status: ExtensionStatus }
      | undefined;
    if (reply?.ok) render(reply.status, reply.version);
  } catch {
    // The worker is starting; the next round asks again.
  }
}

void refresh();
setInterval(() => void refresh(), REFRESH_MS);
