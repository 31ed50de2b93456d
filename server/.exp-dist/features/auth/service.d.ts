import { type SessionView } from '@hearth/protocol';
import type { Kysely } from 'kysely';
import type { SessionAuth } from '../../platform/access.js';
import type { Database } from '../../platform/db/schema.js';
import type { CounterStore } from '../../platform/rate-limit.js';
export interface IssuedSession {
  cookie: string;
  view: SessionView;
}
export declare const usernameKey: (username: string) => string;
export declare class AuthService {
  private readonly db;
  private readonly counters;
  private readonly sessions;
  private readonly households;
  constructor(db: Kysely<Database>, counters: CounterStore);
  setupRequired(): Promise<boolean>;
  /** Creates a household with its first owner. */
  createHouseholdWithOwner(
    input: {
      username: string;
      password: string;
      household_name: string;
    },
    onlyIfEmpty: boolean,
  ): Promise<{
    householdId: string;
    parentId: string;
  }>;
  /** HEARTH_BOOTSTRAP_ADMIN: household "Home" and its owner, only while no parent exists. */
  bootstrapAdmin(username: string, password: string): Promise<boolean>;
  signIn(ip: string, username: string, password: string): Promise<IssuedSession>;
  issueSession(parentId: string): Promise<IssuedSession>;
  resolveSession(cookie: string): Promise<SessionAuth | null>;
  signOut(sessionId: string): Promise<void>;
  pruneIdleSessions(): Promise<number>;
}
export declare function sessionView(auth: SessionAuth): SessionView;
