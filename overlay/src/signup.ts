import type { AgeTier } from '@hearth/protocol';
import { el, uniqueId } from './dom.ts';
import type { Host } from './hosts/host.ts';
import { icon } from './icons.ts';
import type { Catalogue } from './locales/catalogue.ts';
import { showStatus } from './status.ts';

/** The sign-up page checks again every 10 seconds, and whenever the tab comes back. */
export const SIGNUP_POLL_MS = 10_000;

export interface SignupContext {
  host: Host;
  catalogue: Catalogue;
  tier: AgeTier;
  domain: string;
  /** Already checked to be http(s); null means there is nowhere to send the child back to. */
  url: string | null;
  status: HTMLElement;
  /** The extension held the sign-up back because it could not reach the agent. */
  unreachable?: boolean;
  navigate(url: string): void;
}

export interface SignupFlow {
  nodes: HTMLElement[];
  stop(): void;
}

type State = 'idle' | 'requesting' | 'waiting' | 'approved';

export function createSignup(ctx: SignupContext): SignupFlow {
  const { host, catalogue, tier, status } = ctx;
  const ui = catalogue.ui;
  let state: State = 'idle';
  let checking = false;
  let stopped = false;
  /** True once this page saw the request pending, so a later "not pending" means it was declined. */
  let sawPending = false;

  const domainId = uniqueId('domain');
  const button = el(
    'button',
    {
      type: 'button',
      class: 'button primary wide',
      'data-hearth': 'request-signup',
      'aria-describedby': domainId,
    },
    el('span', {}, ui.signupButton),
  );
  const site = el(
    'p',
    { class: 'site', id: domainId },
    icon('globe'),
    el('span', { class: 'site-label' }, `${ui.siteLabel}:`),
    el('strong', { class: 'site-name' }, ctx.domain || '—'),
  );
  const intro = el('p', { class: 'card-hint' }, ui.signupIntro[tier]);
  const held = ctx.unreachable
    ? [el('p', { class: 'card-hint', 'data-hearth-context': 'unreachable' }, ui.signupUnreachable[tier])]
    : [];

  function setState(next: State): void {
    state = next;
    if (next === 'idle') button.removeAttribute('aria-disabled');
    else button.setAttribute('aria-disabled', 'true');
    button.dataset.state = next;
  }

  function approved(): void {
    setState('approved');
    stop();
    if (ctx.url) {
      // At once: a poll every 10 s plus no delay keeps the promise of "back within 10 s of approval".
      showStatus(status, 'ok', ui.signupApproved);
      ctx.navigate(ctx.url);
    } else {
      showStatus(status, 'ok', ui.signupApprovedNoUrl);
    }
  }

  async function check(): Promise<void> {
    if (stopped || checking || state === 'approved' || !host.checkRegistration) return;
    checking = true;
    try {
      const result = await host.checkRegistration(ctx.domain);
      if (stopped) return;
      if (result.allowed) approved();
      else if (result.pending) {
        sawPending = true;
        if (state !== 'requesting') {
          setState('waiting');
          showStatus(status, 'pending', ui.signupWaiting[tier]);
        }
      } else if (state === 'waiting' && sawPending) {
        // The parent said no (or the request lapsed): say so kindly, and let the child ask again.
        sawPending = false;
        setState('idle');
        showStatus(status, 'info', ui.signupDeclined[tier]);
      }
    } catch {
      // A missed check is retried by the next poll; the child is not bothered with it.
    } finally {
      checking = false;
    }
  }

  button.addEventListener('click', async () => {
    if (state !== 'idle') return;
    if (!host.requestRegistration) {
      showStatus(status, 'info', ui.signupUnavailable);
      return;
    }
    setState('requesting');
    showStatus(status, 'pending', ui.signupRequesting);
    let ok = false;
    try {
      ok = (await host.requestRegistration(ctx.domain, ctx.url ?? '')).ok;
    } catch {
      ok = false;
    }
    if (stopped || (state as State) !== 'requesting') return;
    if (ok) {
      setState('waiting');
      showStatus(status, 'pending', ui.signupWaiting[tier]);
      void check();
    } else {
      setState('idle');
      showStatus(status, 'error', ui.signupFailed[tier]);
    }
  });

  const onFocus = () => void check();
  const onVisible = () => {
    if (document.visibilityState === 'visible') void check();
  };
  const timer = host.checkRegistration ? setInterval(() => void check(), SIGNUP_POLL_MS) : undefined;
  window.addEventListener('focus', onFocus);
  document.addEventListener('visibilitychange', onVisible);
  void check();

  function stop(): void {
    stopped = true;
    clearInterval(timer);
    window.removeEventListener('focus', onFocus);
    document.removeEventListener('visibilitychange', onVisible);
  }

  return { nodes: [...held, intro, site, button], stop };
}
