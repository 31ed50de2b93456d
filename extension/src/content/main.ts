// The content script, in every frame of every web page (isolated world). It looks for a sign-up form with
// the five layers of SPEC (detect.ts) when the page is ready, when a single-page app changes route, and when
// the page adds a form later; the first match is reported to the worker, which decides. On a login form it
// reports the username when the form is sent. It reads no password value, listens to no message from the
// page (window.postMessage, a `chrome` object the page made up: none of it reaches this world) and
// answers the page nothing.
import { detectSignup, findLoginForm, loginUsername } from './detect.ts';

/** At most one scan this often; a page whose scans are slow is scanned less often (10× the last cost). */
const SCAN_MIN_MS = 400;
/** Words on a button that sends a login form whose script does not use a real submit. */
const LOGIN_WORDS =
  /\b(log ?in|sign ?in|continue|next|submit|anmelden|einloggen|weiter|connexion|se connecter|continuer|suivant|iniciar sesi[oó]n|entrar|continuar|siguiente|acceder)\b/i;

let href = location.href;
/** A sign-up match on this route was reported (the worker redirects or lets it be): no more scans. */
let reported = false;
let timer: ReturnType<typeof setTimeout> | null = null;
let lastCost = 0;
const loginsSent = new Set<string>();

function send(message: Record<string, unknown>): void {
  try {
    void chrome.runtime.sendMessage(message).catch(() => {});
  } catch {
    // The extension was reloaded or removed: this script is an orphan now and has nobody to tell.
  }
}

function routeChanged(): boolean {
  if (location.href === href) return false;
  href = location.href;
  reported = false;
  loginsSent.clear();
  return true;
}

function scan(): void {
  timer = null;
  routeChanged();
  if (reported) return;
  const started = performance.now();
  const match = detectSignup(document, location.href);
  lastCost = performance.now() - started;
  if (!match) return;
  reported = true;
  send({ type: 'CHECK_REGISTRATION', layer: match.layer, reason: match.reason });
}

function schedule(): void {
  if (timer !== null) return;
  if (reported && location.href === href) return;
  timer = setTimeout(scan, Math.max(SCAN_MIN_MS, lastCost * 10));
}

function isLoginButton(node: EventTarget | undefined): boolean {
  if (!(node instanceof Element)) return false;
  const control = node.closest(
    'button, input[type="submit"], input[type="image"], input[type="button"], [role="button"]',
  );
  if (!control) return false;
  const type = (control.getAttribute('type') ?? '').toLowerCase();
  if (control instanceof HTMLInputElement && (type === 'submit' || type === 'image')) return true;
  if (control instanceof HTMLButtonElement && (type === '' || type === 'submit') && control.form) return true;
  const label = `${control.textContent ?? ''} ${control.getAttribute('aria-label') ?? ''} ${
    control instanceof HTMLInputElement ? control.value : ''
  }`;
  return LOGIN_WORDS.test(label);
}

/** A login form is being sent: its username (never its password) goes to the worker once per route. */
function loginAttempt(event: Event): void {
  routeChanged();
  if (reported) return;
  const form = findLoginForm(document, location.href);
  if (!form || !event.composedPath().includes(form.root)) return;
  if (detectSignup(document, location.href)) return;
  const username = loginUsername(form);
  if (!username || loginsSent.has(username)) return;
  loginsSent.add(username);
  send({ type: 'LOGIN_DETECTED', username });
}

document.addEventListener('submit', loginAttempt, true);
document.addEventListener(
  'click',
  (event) => {
    if (isLoginButton(event.composedPath()[0])) loginAttempt(event);
  },
  true,
);
document.addEventListener(
  'keydown',
  (event) => {
    const target = event.composedPath()[0];
    if (event.key === 'Enter' && target instanceof HTMLInputElement) loginAttempt(event);
  },
  true,
);

// A form in a shadow root escapes the observer below; the child focusing one of its fields does not.
document.addEventListener('focusin', schedule, true);
new MutationObserver(schedule).observe(document, {
  childList: true,
  subtree: true,
  attributes: true,
  attributeFilter: ['type', 'autocomplete', 'name', 'id', 'hidden'],
});
// Route changes of single-page apps: the Navigation API where there is one, history events otherwise.
const nav = (globalThis as { navigation?: EventTarget }).navigation;
nav?.addEventListener('navigatesuccess', schedule);
window.addEventListener('popstate', schedule);
window.addEventListener('hashchange', schedule);

// A page Chromium prerendered (the address bar does, for a likely URL) or restored from the back/forward
// cache was never navigated to in a way the worker sees: the top frame says when it is shown, so that the
// worker can check it against the blocked-sites list all the same.
if (window.top === window) {
  const shown = () => send({ type: 'PAGE_SHOWN' });
  if ((document as { prerendering?: boolean }).prerendering)
    document.addEventListener('prerenderingchange', shown, { once: true });
  window.addEventListener('pageshow', (event) => {
    if (event.persisted) shown();
  });
}

scan();
