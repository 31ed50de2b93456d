// The service worker: one native-messaging port to the agent, the sign-up flow, login capture, the domain
// policy for top-level navigations, and the popup's status. Every listener is registered at the top level
// (MV3 delivers the event that woke the worker only to listeners registered while its script first runs).
import { NATIVE_HOST_NAME } from '@hearth/protocol';
import { type AgentInfo, type ExtensionStatus, initialStatus } from '../messages.ts';
import { type Answer, NativeChannel, NativeError } from './native.ts';
import type { DomainPolicy } from './policy.ts';
import { fetchPolicy, PolicyKeeper } from './policy-keeper.ts';
import { type BlockRecord, createRouter, type Reply } from './router.ts';
import { failsClosed, hostOf, isHttpUrl, type OverlayQuery, overlayUrl } from './rules.ts';

/**
 * A domain no parent grants: the agent's answer for it says whether sign-ups are enforced for this
 * browser's account at all (allowed → not enforced), which the fail-closed rule needs (rules.ts).
 */
const PROBE_DOMAIN = 'hearth-enforcement-probe.invalid';
const PROBE_EVERY_MS = 30 * 60_000;
/** How long a top-level navigation waits for the policy of a worker that just started. */
const POLICY_WAIT_MS = 10_000;
const LOGIN_REPEAT_MS = 60_000;

const overlayPage = chrome.runtime.getURL('blockedv2.html');

// --- status, kept for the popup and for the fail-closed rule --------------------------------------------

let status: ExtensionStatus = initialStatus(Date.now());
const ready: Promise<void> = chrome.storage.local
  .get('status')
  .then((stored) => {
    const kept = stored.status as Partial<ExtensionStatus> | undefined;
    if (kept && typeof kept === 'object') status = { ...status, ...kept, policy: null };
  })
  .catch(() => {});
let saveTimer: ReturnType<typeof setTimeout> | null = null;

function update(patch: Partial<ExtensionStatus>): void {
  status = { ...status, ...patch };
  if (saveTimer) return;
  saveTimer = setTimeout(() => {
    saveTimer = null;
    void chrome.storage.local.set({ status }).catch(() => {});
  }, 100);
}

function setConnection(connection: ExtensionStatus['connection']): void {
  if (status.connection !== connection) update({ connection, since: Date.now() });
}

// --- the agent --------------------------------------------------------------------------------------------

const channel = new NativeChannel({
  connect: () => chrome.runtime.connectNative(NATIVE_HOST_NAME),
  lastError: () => chrome.runtime.lastError?.message,
  onPush(message) {
    if (message.type === 'POLICY_CHANGED')
      keeper.refresh(Number.isInteger(message.version) ? (message.version as number) : undefined);
  },
  onOpen() {
    keeper.refresh();
  },
  onTransport(state) {
    if (state !== 'open') setConnection(state === 'timeout' ? 'host_failed' : state);
  },
});

/** One request; notes what the answer says about the agent and the server. Throws NativeError. */
async function ask(message: { type: string } & Record<string, unknown>): Promise<Answer> {
  const answer = await channel.request(message);
  if (answer.ok === false && answer.error === 'agent_unreachable') {
    setConnection('agent_unreachable');
    return answer;
  }
  setConnection('connected');
  const patch: Partial<ExtensionStatus> = { lastContactAt: Date.now() };
  if (answer.error === 'offline') patch.serverReachable = false;
  else if (message.type !== 'GET_POLICY' && message.type !== 'GET_STATUS' && answer.ok !== false)
    patch.serverReachable = true;
  update(patch);
  return answer;
}

const failure = (err: unknown): Reply => ({
  ok: false,
  error: err instanceof NativeError ? err.code : 'internal',
});

const keeper = new PolicyKeeper({
  fetch: () => fetchPolicy((m) => ask(m)),
  onLoaded(policy, previous) {
    update({
      policy: {
        version: policy.version,
        blocked: policy.blockCount,
        allowed: policy.allowCount,
        loadedAt: Date.now(),
      },
    });
    if (!previous || previous.version !== policy.version) void sweepTabs(policy);
    void learnAboutAgent();
  },
  onFailed() {},
  retryMs: [2_000, 30_000],
});

/** Asked once per worker (the agent may have been upgraded since), and again with the enforcement check. */
let agentInfoAsked = false;

/** After a policy arrives: what the agent tells about the account, and whether sign-ups are enforced. */
async function learnAboutAgent(): Promise<void> {
  const due = status.enforcedCheckedAt === null || Date.now() - status.enforcedCheckedAt > PROBE_EVERY_MS;
  if (!agentInfoAsked || due) {
    const info = await ask({ type: 'GET_STATUS' }).catch(() => null);
    if (info?.error === 'unknown_type') {
      agentInfoAsked = true;
      update({ agent: null, agentInfoUnsupported: true });
    } else if (info && info.ok !== false) {
      agentInfoAsked = true;
      update({ agent: readAgentInfo(info), agentInfoUnsupported: false });
      // The server's own answer (GET /api/agent/account, through the agent) settles enforcement.
      if (typeof info.signup_enforced === 'boolean') {
        update({ enforced: info.signup_enforced, enforcedCheckedAt: Date.now() });
        return;
      }
    }
  }
  // An agent that does not say: a check of a domain no parent would ever grant tells the same.
  if (due) {
    const probe = await ask({ type: 'CHECK_REGISTRATION', domain: PROBE_DOMAIN }).catch(() => null);
    if (probe && probe.ok !== false && probe.error === undefined)
      update({ enforced: probe.allowed !== true, enforcedCheckedAt: Date.now() });
  }
}

const text = (value: unknown): string | null => (typeof value === 'string' && value ? value : null);

function readAgentInfo(a: Answer): AgentInfo {
  return {
    device_name: text(a.device_name),
    linux_username: text(a.linux_username),
    child_name: text(a.child_name),
    age_tier: text(a.age_tier),
    parent_note: text(a.parent_note),
  };
}

// --- redirects to the overlay ---------------------------------------------------------------------------

const recordKey = (tabId: number) => `tab:${tabId}`;

async function blockedIn(tabId: number): Promise<BlockRecord | null> {
  const got = await chrome.storage.session.get(recordKey(tabId));
  return (got[recordKey(tabId)] as BlockRecord | undefined) ?? null;
}

async function topFrameUrl(tabId: number): Promise<string | null> {
  const frame = await chrome.webNavigation.getFrame({ tabId, frameId: 0 }).catch(() => null);
  return frame?.url ?? null;
}

async function redirect(
  tabId: number,
  record: BlockRecord,
  extra: Partial<OverlayQuery> = {},
): Promise<void> {
  await chrome.storage.session.set({ [recordKey(tabId)]: record });
  const url = overlayUrl(overlayPage, {
    reason: record.reason,
    device: record.domain,
    ...(record.url ? { url: record.url } : {}),
    age: status.agent?.age_tier,
    note: status.agent?.parent_note,
    ...extra,
  });
  await chrome.tabs.update(tabId, { url }).catch(() => {});
}

// --- sign-ups ------------------------------------------------------------------------------------------

/** Checks running per tab and domain: every frame of a page that matched waits for the same answer. */
const checking = new Map<string, Promise<Reply>>();

function signupDetected(
  tabId: number,
  frameId: number,
  domain: string,
  frameUrl: string,
  layer: string,
): Promise<Reply> {
  const key = `${tabId}|${domain}`;
  const running = checking.get(key);
  if (running) return running;
  const job = checkSignup(tabId, frameId, domain, frameUrl, layer).finally(() => checking.delete(key));
  checking.set(key, job);
  return job;
}

async function checkSignup(
  tabId: number,
  frameId: number,
  domain: string,
  frameUrl: string,
  layer: string,
): Promise<Reply> {
  await ready;
  // The tab's URL now, not the sender's: a sender's URL is the one its document loaded with, and a
  // single-page app may have moved to its sign-up route since (same origin, so the domain holds).
  const topUrl = await topFrameUrl(tabId);
  // A frame inside one of our own pages, a tab that is gone, or a top frame that moved on to another site.
  if (!isHttpUrl(topUrl) || (frameId === 0 && hostOf(topUrl) !== hostOf(frameUrl)))
    return { allowed: true, pending: false };
  let answer: Answer | null = null;
  try {
    answer = await ask({ type: 'CHECK_REGISTRATION', domain });
  } catch {
    answer = null;
  }
  const at = Date.now();
  if (answer && answer.ok !== false && answer.error === undefined) {
    const allowed = answer.allowed === true;
    const pending = answer.pending === true;
    update({
      lastCheck: { at, domain, outcome: allowed ? 'allowed' : 'blocked', layer },
      ...(allowed ? {} : { enforced: true, enforcedCheckedAt: at }),
    });
    if (allowed) return { allowed, pending };
    if (await stillOn(tabId, topUrl)) await redirect(tabId, { reason: 'signup', domain, url: topUrl, at });
    return { allowed, pending, blocked: true };
  }
  if (!failsClosed(status)) {
    update({ lastCheck: { at, domain, outcome: 'failed_open', layer } });
    return { allowed: true, pending: false, unchecked: true };
  }
  update({ lastCheck: { at, domain, outcome: 'failed_closed', layer } });
  if (await stillOn(tabId, topUrl))
    await redirect(tabId, { reason: 'signup', domain, url: topUrl, at }, { context: 'unreachable' });
  return { allowed: false, pending: false, blocked: true };
}

/** The child may have moved on while we asked; only the page that matched is sent to the overlay. */
async function stillOn(tabId: number, topUrl: string): Promise<boolean> {
  return (await topFrameUrl(tabId)) === topUrl;
}

/** The overlay page's own checks: a failed one reads as "not yet" (the page asks again in 10 s). */
async function overlayCheck(domain: string): Promise<Reply> {
  try {
    const answer = await ask({ type: 'CHECK_REGISTRATION', domain });
    if (answer.ok === false || answer.error !== undefined) return { allowed: false, pending: false };
    // The page's own check keeps the layer that sent the child here, for the popup.
    const layer = status.lastCheck?.domain === domain ? status.lastCheck.layer : undefined;
    const outcome = answer.allowed === true ? 'allowed' : 'blocked';
    update({ lastCheck: { at: Date.now(), domain, outcome, ...(layer ? { layer } : {}) } });
    return { allowed: answer.allowed === true, pending: answer.pending === true };
  } catch {
    return { allowed: false, pending: false };
  }
}

async function relay(message: { type: string } & Record<string, unknown>): Promise<Reply> {
  try {
    return await ask(message);
  } catch (err) {
    return failure(err);
  }
}

// --- logins --------------------------------------------------------------------------------------------

const loginsSent = new Map<string, number>();

async function loginDetected(domain: string, username: string): Promise<Reply> {
  const key = `${domain}\n${username}`;
  const now = Date.now();
  for (const [k, at] of loginsSent) if (now - at > LOGIN_REPEAT_MS) loginsSent.delete(k);
  // A submit, the click that caused it and an Enter key may all report the same login.
  if (loginsSent.has(key)) return { ok: true, repeated: true };
  loginsSent.set(key, now);
  await ready;
  const answer = await relay({ type: 'LOGIN_DETECTED', domain, username });
  if (answer.ok !== true) loginsSent.delete(key);
  return answer;
}

// --- filtered sites ------------------------------------------------------------------------------------

/** Per tab, the URL whose navigation was sent to Hearth Space before it started (so its commit is not). */
const redirectedEarly = new Map<number, string>();

/**
 * A top-level navigation to `url`: before it starts, or once it committed (a server redirect from an
 * allowed site lands only there, and so does a navigation that got through while the policy loaded).
 */
async function checkNavigation(tabId: number, url: string, phase: 'before' | 'committed'): Promise<void> {
  if (tabId < 0) return;
  const host = hostOf(url);
  if (!host) return;
  await ready;
  if (!keeper.loaded) {
    channel.start();
    await keeper.whenLoaded(POLICY_WAIT_MS);
  }
  if (keeper.policy.decide(host) !== 'block') return;
  if (phase === 'before') redirectedEarly.set(tabId, url);
  else if (redirectedEarly.get(tabId) === url || !(await stillOn(tabId, url))) return;
  await redirect(tabId, { reason: 'filtered', domain: host, url: null, at: Date.now() });
}

/** A top frame shown without a navigation the worker saw: checked like one that committed. */
async function pageShown(tabId: number, domain: string): Promise<Reply> {
  const url = await topFrameUrl(tabId);
  if (url && hostOf(url) === domain) await checkNavigation(tabId, url, 'committed');
  return { ok: true };
}

/** After a new policy: tabs already showing a site it blocks go to the overlay too. */
async function sweepTabs(policy: DomainPolicy): Promise<void> {
  const tabs = await chrome.tabs.query({}).catch(() => [] as chrome.tabs.Tab[]);
  for (const tab of tabs) {
    if (tab.id === undefined || tab.id < 0) continue;
    const url = await topFrameUrl(tab.id);
    const host = url ? hostOf(url) : null;
    if (url && host && policy.decide(host) === 'block') await checkNavigation(tab.id, url, 'committed');
  }
}

// --- wiring --------------------------------------------------------------------------------------------

const route = createRouter({
  extensionId: chrome.runtime.id,
  pageUrl: (path) => chrome.runtime.getURL(path),
  blockedIn,
  signupDetected,
  loginDetected,
  pageShown,
  checkRegistration: overlayCheck,
  requestRegistration: (domain, url) =>
    relay({ type: 'REQUEST_REGISTRATION', domain, ...(url ? { url } : {}) }),
  accessRequest: (reason, message, domain) => relay({ type: 'ACCESS_REQUEST', reason, message, domain }),
  status: () => status,
  version: chrome.runtime.getManifest().version,
});

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  route(message, sender).then(sendResponse, () => sendResponse({ ok: false, error: 'internal' }));
  return true;
});

const webPages = { url: [{ schemes: ['http', 'https'] }] };
chrome.webNavigation.onBeforeNavigate.addListener((d) => {
  if (d.frameId !== 0) return;
  redirectedEarly.delete(d.tabId);
  void checkNavigation(d.tabId, d.url, 'before');
}, webPages);
// A redirect from an allowed site to a blocked one shows only here.
chrome.webNavigation.onCommitted.addListener((d) => {
  if (d.frameId === 0) void checkNavigation(d.tabId, d.url, 'committed');
}, webPages);

chrome.tabs.onRemoved.addListener((tabId) => {
  redirectedEarly.delete(tabId);
  void chrome.storage.session.remove(recordKey(tabId)).catch(() => {});
});

void ready.then(() => channel.start());
