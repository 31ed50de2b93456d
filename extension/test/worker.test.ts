// The worker's parts without a browser: who may ask what (router), where a domain comes from and when a
// failed check blocks (rules), the native-messaging connection (native), and the policy's parts (keeper).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type ExtensionStatus, initialStatus } from '../src/messages.ts';
import { NativeChannel, type NativeError, type NativePort } from '../src/worker/native.ts';
import { AgentAnswerError, fetchPolicy, PolicyKeeper } from '../src/worker/policy-keeper.ts';
import { type BlockRecord, createRouter, FORBIDDEN, type RouterDeps } from '../src/worker/router.ts';
import { failsClosed, overlayUrl, type Sender, senderDomain } from '../src/worker/rules.ts';

const ID = 'eddcfmgglegjhjheeojpncfhekfifdjo';
const BASE = `chrome-extension://${ID}/`;

function routerWith(records: Record<number, BlockRecord> = {}) {
  const calls: unknown[][] = [];
  const deps: RouterDeps = {
    extensionId: ID,
    pageUrl: (p) => `${BASE}${p}`,
    blockedIn: async (tabId) => records[tabId] ?? null,
    signupDetected: async (...args) => {
      calls.push(['signup', ...args]);
      return { allowed: false, pending: false };
    },
    loginDetected: async (...args) => {
      calls.push(['login', ...args]);
      return { ok: true };
    },
    pageShown: async (...args) => {
      calls.push(['shown', ...args]);
      return { ok: true };
    },
    checkRegistration: async (...args) => {
      calls.push(['check', ...args]);
      return { allowed: false, pending: true };
    },
    requestRegistration: async (...args) => {
      calls.push(['request', ...args]);
      return { ok: true, status: 'pending' };
    },
    accessRequest: async (...args) => {
      calls.push(['access', ...args]);
      return { ok: true };
    },
    status: () => initialStatus(0),
    version: '0.57.0',
  };
  return { route: createRouter(deps), calls };
}

const page = (url: string, extra: Partial<Sender> = {}): Sender => ({
  id: ID,
  url,
  origin: new URL(url).origin,
  frameId: 0,
  tab: { id: 7 },
  ...extra,
});

describe('router: who may ask the worker what', () => {
  test('a content script’s sign-up check is for its own frame’s domain, whatever the message names', async () => {
    const { route, calls } = routerWith();
    await route(
      { type: 'CHECK_REGISTRATION', domain: 'victim.example', layer: 'url' },
      page('https://Shop.Example.com./join?x=1', { frameId: 3 }),
    );
    assert.deepEqual(calls, [
      ['signup', 7, 3, 'shop.example.com', 'https://Shop.Example.com./join?x=1', 'url'],
    ]);
  });

  test('a login is recorded for the sender’s domain; the username is all the message gives', async () => {
    const { route, calls } = routerWith();
    await route(
      { type: 'LOGIN_DETECTED', username: '  mia ', domain: 'victim.example' },
      page('https://a.example/'),
    );
    assert.deepEqual(calls, [['login', 'a.example', 'mia']]);
    assert.deepEqual(await route({ type: 'LOGIN_DETECTED', username: 7 }, page('https://a.example/')), {
      ok: false,
      error: 'invalid',
    });
    assert.deepEqual(
      await route({ type: 'LOGIN_DETECTED', username: 'x'.repeat(321) }, page('https://a.example/')),
      {
        ok: false,
        error: 'invalid',
      },
    );
  });

  test('a top frame shown without a navigation (prerendered, back/forward cache) is checked for its own domain', async () => {
    const { route, calls } = routerWith();
    await route({ type: 'PAGE_SHOWN', domain: 'victim.example' }, page('https://Games.Example/'));
    assert.deepEqual(calls, [['shown', 7, 'games.example']]);
  });

  test('a form in an about:blank frame speaks for the page that made it (its origin)', async () => {
    const { route, calls } = routerWith();
    await route(
      { type: 'CHECK_REGISTRATION' },
      { id: ID, url: 'about:blank', origin: 'https://b.example', frameId: 2, tab: { id: 7 } },
    );
    assert.equal(calls[0]?.[3], 'b.example');
    assert.deepEqual(
      await route(
        { type: 'CHECK_REGISTRATION' },
        { id: ID, url: 'about:blank', origin: 'null', frameId: 2, tab: { id: 7 } },
      ),
      FORBIDDEN,
    );
  });

  test('content scripts may not ask for what only the overlay page or the popup asks', async () => {
    const { route, calls } = routerWith({
      7: { reason: 'signup', domain: 'a.example', url: 'https://a.example/', at: 0 },
    });
    for (const message of [
      { type: 'REQUEST_REGISTRATION', domain: 'a.example', url: 'https://a.example/' },
      { type: 'ACCESS_REQUEST', reason: 'signup', message: 'please' },
      { type: 'HEARTH_STATUS' },
      { type: 'GET_POLICY' },
      'CHECK_REGISTRATION',
      null,
    ])
      assert.deepEqual(await route(message, page('https://a.example/')), FORBIDDEN);
    assert.deepEqual(calls, []);
  });

  test('another extension, a page without a tab, and non-web frames are refused', async () => {
    const { route, calls } = routerWith();
    const message = { type: 'CHECK_REGISTRATION' };
    assert.deepEqual(
      await route(message, { ...page('https://a.example/'), id: 'abcdefghijklmnopabcdefghijklmnop' }),
      FORBIDDEN,
    );
    assert.deepEqual(await route(message, { ...page('https://a.example/'), tab: undefined }), FORBIDDEN);
    assert.deepEqual(await route(message, page('file:///etc/passwd')), FORBIDDEN);
    assert.deepEqual(
      await route(message, { id: ID, url: 'chrome://settings/', frameId: 0, tab: { id: 7 } }),
      FORBIDDEN,
    );
    assert.deepEqual(
      await route(message, { id: ID, url: `${BASE}other.html`, frameId: 0, tab: { id: 7 } }),
      FORBIDDEN,
    );
    assert.deepEqual(calls, []);
  });

  test('the overlay page speaks only for the domain and URL the worker blocked in its own tab', async () => {
    const record: BlockRecord = {
      reason: 'signup',
      domain: 'a.example',
      url: 'https://a.example/join',
      at: 0,
    };
    const { route, calls } = routerWith({ 7: record });
    const overlay = page(`${BASE}blockedv2.html?reason=signup&device=a.example`);
    assert.deepEqual(await route({ type: 'CHECK_REGISTRATION', domain: 'a.example' }, overlay), {
      allowed: false,
      pending: true,
    });
    await route(
      { type: 'REQUEST_REGISTRATION', domain: 'a.example', url: 'https://a.example/join' },
      overlay,
    );
    await route({ type: 'ACCESS_REQUEST', reason: 'signup', message: 'May I?' }, overlay);
    assert.deepEqual(calls, [
      ['check', 'a.example'],
      ['request', 'a.example', 'https://a.example/join'],
      ['access', 'signup', 'May I?', 'a.example'],
    ]);
    calls.length = 0;
    // Another domain, another URL, another reason, a framed overlay, a tab it never blocked: no.
    for (const [message, sender] of [
      [{ type: 'CHECK_REGISTRATION', domain: 'b.example' }, overlay],
      [{ type: 'REQUEST_REGISTRATION', domain: 'a.example', url: 'https://evil.example/' }, overlay],
      [{ type: 'ACCESS_REQUEST', reason: 'locked', message: 'hi' }, overlay],
      [
        { type: 'CHECK_REGISTRATION', domain: 'a.example' },
        { ...overlay, frameId: 4 },
      ],
      [
        { type: 'CHECK_REGISTRATION', domain: 'a.example' },
        { ...overlay, tab: { id: 8 } },
      ],
      [{ type: 'LOGIN_DETECTED', username: 'x' }, overlay],
    ] as [unknown, Sender][])
      assert.deepEqual(await route(message, sender), FORBIDDEN);
    assert.deepEqual(calls, []);
  });

  test('a filtered overlay may send an access request but not ask about sign-ups', async () => {
    const { route, calls } = routerWith({
      7: { reason: 'filtered', domain: 'games.example', url: null, at: 0 },
    });
    const overlay = page(`${BASE}blockedv2.html?reason=filtered&device=games.example`);
    assert.deepEqual(
      await route({ type: 'CHECK_REGISTRATION', domain: 'games.example' }, overlay),
      FORBIDDEN,
    );
    assert.deepEqual(await route({ type: 'ACCESS_REQUEST', reason: 'filtered', message: ' ' }, overlay), {
      ok: false,
      error: 'invalid',
    });
    await route({ type: 'ACCESS_REQUEST', reason: 'filtered', message: 'For school' }, overlay);
    assert.deepEqual(calls, [['access', 'filtered', 'For school', 'games.example']]);
  });

  test('the popup gets the status and nothing else', async () => {
    const { route } = routerWith();
    const popup = page(`${BASE}popup.html`);
    const reply = await route({ type: 'HEARTH_STATUS' }, popup);
    assert.equal(reply.ok, true);
    assert.equal((reply.status as ExtensionStatus).connection, 'connecting');
    assert.deepEqual(await route({ type: 'CHECK_REGISTRATION', domain: 'a.example' }, popup), FORBIDDEN);
  });
});

describe('rules', () => {
  test('domains come from the sender’s URL as the server stores them', () => {
    assert.equal(senderDomain({ url: 'https://WWW.Example.COM.:8443/a' }), 'www.example.com');
    assert.equal(senderDomain({ url: 'https://bücher.example/' }), 'xn--bcher-kva.example');
    assert.equal(senderDomain({ url: 'http://[::1]:3000/' }), '::1');
    assert.equal(senderDomain({ url: 'about:srcdoc', origin: 'https://c.example' }), 'c.example');
    assert.equal(senderDomain({ url: 'data:text/html,hi', origin: 'https://c.example' }), null);
    assert.equal(senderDomain({ url: 'chrome-extension://x/y.html' }), null);
  });

  test('the overlay URL carries DESIGN §7’s parameters, encoded', () => {
    const url = new URL(
      overlayUrl(`${BASE}blockedv2.html`, {
        reason: 'signup',
        device: 'a.example',
        url: 'https://a.example/join?next=/&x=1#top',
        age: 'teen',
        note: 'Ask me first & we’ll talk',
        context: 'unreachable',
      }),
    );
    assert.equal(url.pathname, '/blockedv2.html');
    assert.deepEqual(Object.fromEntries(url.searchParams), {
      reason: 'signup',
      device: 'a.example',
      url: 'https://a.example/join?next=/&x=1#top',
      age: 'teen',
      note: 'Ask me first & we’ll talk',
      context: 'unreachable',
    });
    assert.equal(
      new URL(overlayUrl(BASE, { reason: 'filtered', device: 'g.example', age: null })).search,
      '?reason=filtered&device=g.example',
    );
  });

  test('a failed check blocks when the account is enforced, or unknown on a computer with the agent', () => {
    const at = (enforced: boolean | null, connection: ExtensionStatus['connection']) =>
      failsClosed({ enforced, connection });
    assert.equal(at(true, 'agent_unreachable'), true);
    assert.equal(at(true, 'host_missing'), true);
    assert.equal(at(false, 'agent_unreachable'), false);
    assert.equal(at(null, 'agent_unreachable'), true);
    assert.equal(at(null, 'host_failed'), true);
    assert.equal(at(null, 'connecting'), true);
    assert.equal(at(null, 'host_missing'), false);
  });
});

class FakePort implements NativePort {
  sent: Record<string, unknown>[] = [];
  disconnected = false;
  private messageListeners: ((m: unknown) => void)[] = [];
  private disconnectListeners: (() => void)[] = [];
  onMessage = { addListener: (l: (m: unknown) => void) => this.messageListeners.push(l) };
  onDisconnect = { addListener: (l: () => void) => this.disconnectListeners.push(l) };
  postMessage(m: unknown) {
    if (this.disconnected) throw new Error('Attempting to use a disconnected port object');
    this.sent.push(m as Record<string, unknown>);
  }
  disconnect() {
    this.disconnected = true;
  }
  answer(m: unknown) {
    for (const l of this.messageListeners) l(m);
  }
  /** The host went away (Chromium calls onDisconnect with lastError set). */
  gone() {
    this.disconnected = true;
    for (const l of this.disconnectListeners) l();
  }
}

/** A channel over fake ports and a hand-driven clock. */
function channel(lastError = 'Native host has exited.') {
  const ports: FakePort[] = [];
  const timers = new Map<number, { fn: () => void; at: number }>();
  let now = 0;
  let next = 1;
  const events: string[] = [];
  const pushes: unknown[] = [];
  const ch = new NativeChannel({
    connect: () => {
      const p = new FakePort();
      ports.push(p);
      return p;
    },
    lastError: () => lastError,
    onPush: (m) => pushes.push(m),
    onOpen: () => events.push('open'),
    onTransport: (s) => events.push(s),
    timeoutMs: 5_000,
    backoffMs: [1_000, 8_000],
    setTimer: (fn, ms) => {
      const id = next++;
      timers.set(id, { fn, at: now + ms });
      return id;
    },
    clearTimer: (id) => timers.delete(id as number),
  });
  const advance = (ms: number) => {
    now += ms;
    for (const [id, t] of [...timers].sort((a, b) => a[1].at - b[1].at))
      if (t.at <= now && timers.has(id)) {
        timers.delete(id);
        t.fn();
      }
  };
  const pendingDelays = () => [...timers.values()].map((t) => t.at - now);
  return { ch, ports, events, pushes, advance, pendingDelays };
}

describe('native channel', () => {
  test('answers are matched by id, pushes come without one, late answers are dropped', async () => {
    const { ch, ports, pushes } = channel();
    const a = ch.request({ type: 'GET_POLICY' });
    const b = ch.request({ type: 'CHECK_REGISTRATION', domain: 'a.example' });
    const port = ports[0] as FakePort;
    assert.deepEqual(port.sent, [
      { type: 'GET_POLICY', id: 1 },
      { type: 'CHECK_REGISTRATION', domain: 'a.example', id: 2 },
    ]);
    port.answer({ id: 2, allowed: false, pending: false });
    port.answer({ type: 'POLICY_CHANGED', version: 4 });
    port.answer({ id: 1, version: 3, block: [], allow: [] });
    port.answer({ id: 99, ok: true });
    assert.deepEqual(await b, { allowed: false, pending: false });
    assert.deepEqual(await a, { version: 3, block: [], allow: [] });
    assert.deepEqual(pushes, [{ type: 'POLICY_CHANGED', version: 4 }]);
    assert.equal(ports.length, 1);
  });

  test('a host that never answers fails the request after the timeout, and twice in a row is restarted', async () => {
    const { ch, ports, events, advance } = channel();
    const first = ch.request({ type: 'GET_POLICY' });
    advance(5_000);
    await assert.rejects(first, (e: NativeError) => e.code === 'timeout');
    assert.equal(ports[0]?.disconnected, false);
    const second = ch.request({ type: 'GET_POLICY' });
    advance(5_000);
    await assert.rejects(second, (e: NativeError) => e.code === 'timeout');
    assert.equal(ports[0]?.disconnected, true);
    assert.ok(events.includes('host_failed'));
    // The answer to a request that timed out, were it to come now, changes nothing.
    (ports[0] as FakePort).answer({ id: 1, ok: true });
    advance(1_000);
    assert.equal(ports.length, 2, 'reconnected after the back-off');
  });

  test('garbage from the host fails what waits and reconnects with a growing back-off', async () => {
    const { ch, ports, advance, pendingDelays } = channel();
    const waiting = ch.request({ type: 'GET_POLICY' });
    (ports[0] as FakePort).answer([1, 2, 3]);
    await assert.rejects(waiting, (e: NativeError) => e.code === 'host_failed');
    assert.deepEqual(pendingDelays(), [1_000]);
    advance(1_000);
    (ports[1] as FakePort).answer('nonsense');
    assert.deepEqual(pendingDelays(), [2_000]);
    advance(2_000);
    (ports[2] as FakePort).gone();
    assert.deepEqual(pendingDelays(), [4_000]);
    advance(4_000);
    (ports[3] as FakePort).gone();
    assert.deepEqual(pendingDelays(), [8_000]);
    advance(8_000);
    (ports[4] as FakePort).gone();
    assert.deepEqual(pendingDelays(), [8_000], 'capped');
    // A request does not wait for the back-off: it connects at once.
    const now = ch.request({ type: 'GET_POLICY' });
    const last = ports[ports.length - 1] as FakePort;
    last.answer({ id: last.sent[0]?.id, version: 1, block: [], allow: [] });
    assert.equal((await now).version, 1);
  });

  test('no host registered reads as host_missing', async () => {
    const { ch, ports, events } = channel('Specified native messaging host not found.');
    const waiting = ch.request({ type: 'GET_POLICY' });
    (ports[0] as FakePort).gone();
    await assert.rejects(waiting, (e: NativeError) => e.code === 'host_missing');
    assert.deepEqual(events, ['open', 'host_missing']);
  });
});

describe('policy parts', () => {
  const agent = (answers: Record<string, unknown>[]) => {
    const asked: unknown[] = [];
    let i = 0;
    return {
      asked,
      request: async (m: { type: string; part?: number }) => {
        asked.push(m.part ?? 0);
        return answers[i++] ?? { ok: false, error: 'no_more' };
      },
    };
  };

  test('an agent without paging answers the whole policy at once', async () => {
    const a = agent([{ version: 5, block: ['games.example'], allow: ['ok.games.example'] }]);
    const policy = await fetchPolicy(a.request);
    assert.equal(policy.version, 5);
    assert.equal(policy.decide('www.games.example'), 'block');
    assert.equal(policy.decide('ok.games.example'), 'allow');
    assert.deepEqual(a.asked, [0]);
  });

  test('parts are fetched in order and make one policy', async () => {
    const a = agent([
      { version: 2, part: 0, parts: 3, block: ['a.example'], allow: [] },
      { version: 2, part: 1, parts: 3, block: ['b.example'], allow: [] },
      { version: 2, part: 2, parts: 3, block: [], allow: ['ok.a.example'] },
    ]);
    const policy = await fetchPolicy(a.request);
    assert.deepEqual(a.asked, [0, 1, 2]);
    assert.deepEqual([policy.blockCount, policy.allowCount], [2, 1]);
    assert.equal(policy.decide('x.b.example'), 'block');
    assert.equal(policy.decide('ok.a.example'), 'allow');
  });

  test('a version that changes between parts starts again from part 0', async () => {
    const a = agent([
      { version: 2, part: 0, parts: 2, block: ['old.example'], allow: [] },
      { version: 3, part: 1, parts: 2, block: ['new.example'], allow: [] },
      { version: 3, part: 0, parts: 2, block: ['a.example'], allow: [] },
      { version: 3, part: 1, parts: 2, block: ['new.example'], allow: [] },
    ]);
    const policy = await fetchPolicy(a.request);
    assert.deepEqual(a.asked, [0, 1, 0, 1]);
    assert.equal(policy.version, 3);
    assert.equal(policy.decide('old.example'), null);
  });

  test('an error or a malformed part fails the fetch', async () => {
    await assert.rejects(
      fetchPolicy(agent([{ ok: false, error: 'agent_unreachable' }]).request),
      AgentAnswerError,
    );
    await assert.rejects(
      fetchPolicy(agent([{ version: 1, block: 'x', allow: [] }]).request),
      AgentAnswerError,
    );
    await assert.rejects(
      fetchPolicy(agent([{ version: 1, block: [3], allow: [] }]).request),
      AgentAnswerError,
    );
    await assert.rejects(
      fetchPolicy(agent([{ version: 1, part: 0, parts: 0, block: [], allow: [] }]).request),
      AgentAnswerError,
    );
  });

  test('the keeper serves the empty policy until one loads, and skips a push of the version it has', async () => {
    let fetches = 0;
    const loaded: number[] = [];
    const keeper = new PolicyKeeper({
      fetch: async () => {
        fetches += 1;
        return fetchPolicy(async () => ({ version: 4, block: ['a.example'], allow: [] }));
      },
      onLoaded: (p) => loaded.push(p.version),
      onFailed: () => {},
    });
    assert.equal(keeper.policy.decide('a.example'), null);
    const ready = keeper.whenLoaded(1_000);
    keeper.refresh();
    assert.equal(await ready, true);
    assert.equal(keeper.policy.decide('a.example'), 'block');
    keeper.refresh(4);
    assert.equal(fetches, 1);
    assert.deepEqual(loaded, [4]);
    assert.equal(
      await new PolicyKeeper({ fetch: () => new Promise(() => {}), onLoaded() {}, onFailed() {} }).whenLoaded(
        10,
      ),
      false,
    );
  });
});
