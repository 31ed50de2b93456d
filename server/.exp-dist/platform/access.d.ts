import { type ParentRole } from '@hearth/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
/**
 * Every route declares who may call it, in `config.access`:
 * - `public`: anyone;
 * - `bearer`: an agent with its per-device token;
 * - `session`: a signed-in parent (finer checks on children happen in the services);
 * - `session:admin`: a signed-in owner or admin.
 */
export type Access = 'public' | 'bearer' | 'session' | 'session:admin';
export interface SessionAuth {
  sessionId: string;
  parentId: string;
  username: string;
  householdId: string;
  householdName: string;
  role: ParentRole;
  csrfToken: string;
}
declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    auth: SessionAuth | null;
  }
  interface FastifyInstance {
    /** Every route with its declared access, for the route-table tests and the docs. */
    routeTable: DeclaredRoute[];
  }
}
export interface DeclaredRoute {
  method: string;
  url: string;
  access: Access;
}
export interface AccessOptions {
  resolveSession(cookieValue: string): Promise<SessionAuth | null>;
  /** Route prefixes that plugins fill (API docs); they are public and read-only. */
  publicPrefixes: string[];
}
export declare function isAdmin(role: ParentRole): boolean;
export declare function requireSession(request: FastifyRequest): SessionAuth;
/** Default-deny: a route registered without an access declaration stops the app from starting. */
export declare function installAccessControl(app: FastifyInstance, options: AccessOptions): void;
