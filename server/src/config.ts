import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  redisUrl: string | null;
  bootstrapAdmin: { username: string; password: string } | null;
  agentToken: string | null;
  openSignup: boolean;
  /** Behind a reverse proxy: take the client address and protocol from X-Forwarded-* headers. */
  trustProxy: boolean;
  publicUrl: string | null;
  secretKey: string | null;
  fetchAllowCidrs: string[];
  xboxAuthBase: string;
  xboxApiBase: string;
  nintendoAuthBase: string;
  nintendoApiBase: string;
  logLevel: string;
  /** Directory of the built admin UI; absent in API-only deployments. */
  webDir: string | null;
  /** Directory of the built Hearth Space page. */
  overlayDir: string | null;
  /** The worker deletes alerts older than this many days. */
  alertRetentionDays: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off', '']);
const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** Reads `KEY=value` lines of a `.env` file without overriding variables already set. */
export function loadDotEnv(file: string, env: NodeJS.ProcessEnv = process.env): void {
  if (!existsSync(file)) return;
  for (const raw of readFileSync(file, 'utf8').split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    let value = line.slice(eq + 1).trim();
    if ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"))) {
      value = value.slice(1, -1);
    }
    if (env[key] === undefined) env[key] = value;
  }
}

function validCidr(text: string): boolean {
  const [addr, bits, extra] = text.split('/');
  if (extra !== undefined || !addr || bits === undefined || !/^\d+$/.test(bits)) return false;
  const family = isIP(addr);
  return family !== 0 && Number(bits) <= (family === 4 ? 32 : 128);
}

function httpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Turns `HEARTH_*` variables into a typed config, reporting every bad value at once. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const get = (key: string) => {
    const v = env[key];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const bool = (key: string) => {
    const v = (env[key] ?? '').trim().toLowerCase();
    if (TRUE.has(v)) return true;
    if (!FALSE.has(v))
      problems.push(`${key} must be a boolean (true/false, 1/0, yes/no, on/off), got "${env[key]}"`);
    return false;
  };
  const url = (key: string, fallback: string) => {
    const v = get(key) ?? fallback;
    if (!httpUrl(v)) problems.push(`${key} must be an http(s) URL, got "${v}"`);
    return v.replace(/\/+$/, '');
  };

  let port = 8080;
  const portText = get('HEARTH_PORT');
  if (portText !== undefined) {
    port = Number(portText);
    if (!/^\d+$/.test(portText) || port > 65535)
      problems.push(`HEARTH_PORT must be a port number 0-65535, got "${portText}"`);
  }

  const host = get('HEARTH_HOST') ?? '127.0.0.1';
  const dataDir = path.resolve(get('HEARTH_DATA_DIR') ?? './data');

  const databaseUrl = get('HEARTH_DATABASE_URL') ?? null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push(
      'HEARTH_DATABASE_URL must be a postgres:// URL (leave it unset for SQLite in the data directory)',
    );
  }

  const redisUrl = get('HEARTH_REDIS_URL') ?? null;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl))
    problems.push('HEARTH_REDIS_URL must be a redis:// or rediss:// URL');

  let bootstrapAdmin: Config['bootstrapAdmin'] = null;
  const bootstrap = get('HEARTH_BOOTSTRAP_ADMIN');
  if (bootstrap !== undefined) {
    const colon = bootstrap.indexOf(':');
    const username = colon > 0 ? bootstrap.slice(0, colon) : '';
    const password = colon > 0 ? bootstrap.slice(colon + 1) : '';
    if (!username) problems.push('HEARTH_BOOTSTRAP_ADMIN must be "username:password"');
    else if (password.length < 12)
      problems.push('HEARTH_BOOTSTRAP_ADMIN password must be at least 12 characters');
    else bootstrapAdmin = { username, password };
  }

  const publicUrl = get('HEARTH_PUBLIC_URL') ?? null;
  if (publicUrl && !httpUrl(publicUrl))
    problems.push(`HEARTH_PUBLIC_URL must be an http(s) URL, got "${publicUrl}"`);

  const secretKey = get('HEARTH_SECRET_KEY') ?? null;
  if (secretKey && secretKey.length < 32) problems.push('HEARTH_SECRET_KEY must be at least 32 characters');

  const fetchAllowCidrs = (get('HEARTH_FETCH_ALLOW_CIDRS') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const cidr of fetchAllowCidrs) {
    if (!validCidr(cidr))
      problems.push(`HEARTH_FETCH_ALLOW_CIDRS has an invalid CIDR "${cidr}" (e.g. 192.168.1.0/24)`);
  }

  let alertRetentionDays = 90;
  const retention = get('HEARTH_ALERT_RETENTION_DAYS');
  if (retention !== undefined) {
    alertRetentionDays = Number(retention);
    if (!/^\d+$/.test(retention) || alertRetentionDays < 1)
      problems.push(
        `HEARTH_ALERT_RETENTION_DAYS must be a whole number of days (1 or more), got "${retention}"`,
      );
  }

  const logLevel = (get('HEARTH_LOG_LEVEL') ?? 'info').toLowerCase();
  if (!LOG_LEVELS.has(logLevel))
    problems.push(`HEARTH_LOG_LEVEL must be one of ${[...LOG_LEVELS].join(', ')}`);

  const config: Config = {
    port,
    host,
    dataDir,
    databaseUrl,
    redisUrl,
    bootstrapAdmin,
    agentToken: get('HEARTH_AGENT_TOKEN') ?? null,
    openSignup: bool('HEARTH_OPEN_SIGNUP'),
    trustProxy: bool('HEARTH_TRUST_PROXY'),
    publicUrl: publicUrl?.replace(/\/+$/, '') ?? null,
    secretKey,
    fetchAllowCidrs,
    xboxAuthBase: url('HEARTH_XBOX_AUTH_BASE', 'https://login.live.com'),
    xboxApiBase: url('HEARTH_XBOX_API_BASE', 'https://familysafety.microsoft.com'),
    nintendoAuthBase: url('HEARTH_NINTENDO_AUTH_BASE', 'https://accounts.nintendo.com'),
    nintendoApiBase: url('HEARTH_NINTENDO_API_BASE', 'https://api-lp1.pctl.srv.nintendo.net'),
    logLevel,
    webDir: get('HEARTH_WEB_DIR') ?? null,
    overlayDir: get('HEARTH_OVERLAY_DIR') ?? null,
    alertRetentionDays,
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
}
