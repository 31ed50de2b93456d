import { LIMITS, type ParentRole, type SessionView } from '@hearth/protocol';
import type { SessionAuth } from '../../platform/access.js';
import { nowIso } from '../../platform/clock.js';
import { hashPassword, newId, randomToken, sha256Hex, verifyPassword } from '../../platform/crypto.js';
import { conflict, HttpError, invalidRequest, rateLimited } from '../../platform/errors.js';
import type { CounterStore } from '../../platform/rate-limit.js';
import { type CacheSpace, cacheTags, type ReadCache } from '../../platform/read-cache.js';
import type { HouseholdRepository } from '../household/repository.js';
import { serverTimeZone } from '../time/service.js';
import type { SessionRepository } from './repository.js';

const SIGN_IN_WINDOW_MS = 60_000;
const IDLE_MS = LIMITS.sessionIdleDays * 24 * 60 * 60 * 1000;
/** last_seen_at is refreshed at most this often, so a busy dashboard does not write on every request. */
const TOUCH_EVERY_MS = 5 * 60 * 1000;

/** A session as cached: what the access check needs, and when it was last recorded as seen. */
interface CachedSession {
  auth: SessionAuth;
  lastSeen: number;
}

export interface IssuedSession {
  cookie: string;
  view: SessionView;
}

export const usernameKey = (username: string) => username.trim().toLowerCase();

export class AuthService {
  /** Sessions by cookie; sign-out and changes to the parent invalidate them (see ReadCache). */
  private readonly cachedSessions: CacheSpace<CachedSession | null>;

  constructor(
    private readonly sessions: SessionRepository,
    private readonly households: HouseholdRepository,
    private readonly counters: CounterStore,
    private readonly cache: ReadCache,
  ) {
    this.cachedSessions = cache.space('session');
  }

  async setupRequired(): Promise<boolean> {
    return (await this.households.countParents()) === 0;
  }

  /** Creates a household with its first owner. */
  async createHouseholdWithOwner(
    input: { username: string; password: string; household_name: string },
    onlyIfEmpty: boolean,
  ) {
    if (input.password.length < LIMITS.passwordMinLength) {
      throw invalidRequest(`The password must be at least ${LIMITS.passwordMinLength} characters.`);
    }
    const passwordHash = await hashPassword(input.password);
    const at = nowIso();
    const householdId = newId();
    const parentId = newId();
    return this.households.transaction(async (repo) => {
      if (onlyIfEmpty && (await repo.countParents()) > 0)
        throw conflict('Hearth is already set up; sign in instead.');
      if (await repo.usernameTaken(usernameKey(input.username)))
        throw conflict('That username is already taken.');
      await repo.createHousehold({
        id: householdId,
        name: input.household_name.trim(),
        // Days are read in the server's zone until a parent sets the household's own.
        timezone: serverTimeZone(),
        enrollment_token: randomToken(24),
        created_at: at,
      });
      await repo.insertParent({
        id: parentId,
        household_id: householdId,
        username: input.username.trim(),
        username_key: usernameKey(input.username),
        password_hash: passwordHash,
        role: 'owner',
        created_at: at,
        updated_at: at,
      });
      return { householdId, parentId };
    });
  }

  /** HEARTH_BOOTSTRAP_ADMIN: household "Home" and its owner, only while no parent exists. */
  async bootstrapAdmin(username: string, password: string): Promise<boolean> {
    if (!(await this.setupRequired())) return false;
    try {
      await this.createHouseholdWithOwner({ username, password, household_name: 'Home' }, true);
      return true;
    } catch (err) {
      if (err instanceof HttpError && err.statusCode === 409) return false;
      throw err;
    }
  }

  /**
   * The attempt is counted before the password is looked at, in one atomic step of the counter store
   * (shared through Redis between instances), so a burst cannot have more than ten passwords checked
   * for one (IP, username) pair in a minute: the eleventh attempt and every later one answers 429,
   * the right password included. A sign-in that succeeds takes its count back, since DESIGN §3 limits
   * failed sign-ins; the count therefore holds the failures plus the attempts still being checked.
   */
  async signIn(ip: string, username: string, password: string): Promise<IssuedSession> {
    const key = `signin:${ip}|${usernameKey(username)}`;
    const window = await this.counters.hit(key, SIGN_IN_WINDOW_MS);
    if (window.count > LIMITS.signInFailuresPerMinute) {
      throw rateLimited(
        Math.ceil((window.resetAt - Date.now()) / 1000),
        'Too many failed sign-ins; please wait a minute and try again.',
      );
    }
    const parent = await this.households.findParentByUsernameKey(usernameKey(username));
    const ok = await verifyPassword(parent?.password_hash, password);
    if (!parent || !ok)
      throw new HttpError(401, 'invalid_credentials', 'The username or password is not right.');
    await this.counters.release(key);
    return this.issueSession(parent.id);
  }

  async issueSession(parentId: string): Promise<IssuedSession> {
    const cookie = randomToken(32);
    const csrf = randomToken(24);
    const at = nowIso();
    await this.sessions.insert({
      id: sha256Hex(cookie),
      parent_id: parentId,
      csrf_token: csrf,
      created_at: at,
      last_seen_at: at,
    });
    const auth = await this.resolveSession(cookie);
    if (!auth) throw new Error('session vanished right after creation');
    return { cookie, view: sessionView(auth) };
  }

  async resolveSession(cookie: string): Promise<SessionAuth | null> {
    if (cookie.length > 128) return null;
    // Kept by the cookie itself, so a cached session costs no hashing; the database knows only its hash.
    const session = await this.cachedSessions.load(cookie, () => this.readSession(cookie));
    if (!session) return null;
    const now = Date.now();
    if (now - session.lastSeen > TOUCH_EVERY_MS) {
      session.lastSeen = now;
      await this.sessions.touch(session.auth.sessionId, new Date(now).toISOString());
    }
    return session.auth;
  }

  /** The session behind a cookie, tagged for the cache; an unknown or idle one is not kept. */
  private async readSession(cookie: string) {
    const id = sha256Hex(cookie);
    const row = await this.sessions.find(id);
    if (!row) return { value: null, tags: null };
    const lastSeen = Date.parse(row.last_seen_at);
    if (Date.now() - lastSeen > IDLE_MS) {
      await this.sessions.delete(id);
      return { value: null, tags: null };
    }
    const auth: SessionAuth = {
      sessionId: row.session_id,
      parentId: row.parent_id,
      username: row.username,
      householdId: row.household_id,
      householdName: row.household_name,
      householdTimezone: row.household_timezone,
      role: row.role as ParentRole,
      csrfToken: row.csrf_token,
    };
    return { value: { lastSeen, auth }, tags: [cacheTags.session(id), cacheTags.parent(row.parent_id)] };
  }

  async sessionExists(sessionId: string): Promise<boolean> {
    return (await this.sessions.exists(sessionId)) !== undefined;
  }

  async signOut(sessionId: string): Promise<void> {
    await this.sessions.delete(sessionId);
    await this.cache.invalidate(cacheTags.session(sessionId));
  }

  async pruneIdleSessions(): Promise<number> {
    return this.sessions.deleteIdleBefore(new Date(Date.now() - IDLE_MS).toISOString());
  }
}

export function sessionView(auth: SessionAuth): SessionView {
  return {
    parent: { id: auth.parentId, username: auth.username },
    household: { id: auth.householdId, name: auth.householdName, timezone: auth.householdTimezone },
    role: auth.role,
    csrf_token: auth.csrfToken,
  };
}
