// Who this device is to its server: the server's address, the system id, the enrolment token while
// waiting for approval, and the device token once approved (its own file, 0600, never logged).
import { randomUUID } from 'node:crypto';
import type { StateStore } from './state.js';

export interface Identity {
  /** The server's base URL, http(s)://host[:port]. */
  server_url: string;
  system_id: string;
  /** Kept until the device is approved, so that the daemon can go on waiting after `enroll` returns. */
  enrollment_token?: string;
}

const IDENTITY = 'identity.json';
const TOKEN = 'token';
const TOKEN_PATTERN = /^[0-9a-f]{64}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const isIdentity = (d: unknown): d is Identity =>
  !!d &&
  typeof d === 'object' &&
  typeof (d as Identity).server_url === 'string' &&
  /^https?:\/\//.test((d as Identity).server_url) &&
  typeof (d as Identity).system_id === 'string' &&
  UUID.test((d as Identity).system_id) &&
  ((d as Identity).enrollment_token === undefined || typeof (d as Identity).enrollment_token === 'string');

export function readIdentity(state: StateStore): Identity | null {
  return state.read(IDENTITY, isIdentity);
}

export function writeIdentity(state: StateStore, identity: Identity): void {
  state.write(IDENTITY, identity);
}

export function readToken(state: StateStore): string | null {
  return state.readSecret(TOKEN, TOKEN_PATTERN);
}

export function writeToken(state: StateStore, token: string): void {
  if (!TOKEN_PATTERN.test(token)) throw new Error('the server sent a device token of an unexpected form');
  state.writeSecret(TOKEN, token);
}

export function forgetToken(state: StateStore): void {
  state.remove(TOKEN);
}

/**
 * Accepts what a parent pastes or the Add device page shows: http(s) or ws(s) URL, with or without the
 * `/ws` path. Answers the http(s) base.
 */
export function normaliseServerUrl(input: string): string {
  const url = new URL(input.trim());
  if (url.protocol === 'ws:') url.protocol = 'http:';
  else if (url.protocol === 'wss:') url.protocol = 'https:';
  else if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`not an http(s) or ws(s) URL: ${input}`);
  if (url.username || url.password) throw new Error('the server URL must not carry a user name or password');
  let pathname = url.pathname.replace(/\/+$/, '');
  if (pathname.endsWith('/ws')) pathname = pathname.slice(0, -3);
  return `${url.protocol}//${url.host}${pathname}`;
}

export function wsUrlOf(serverUrl: string): string {
  return `${serverUrl.replace(/^http/, 'ws')}/ws`;
}

export function newIdentity(serverUrl: string, enrollmentToken?: string): Identity {
  return {
    server_url: normaliseServerUrl(serverUrl),
    system_id: randomUUID(),
    ...(enrollmentToken ? { enrollment_token: enrollmentToken } : {}),
  };
}
