import { isIP } from 'node:net';
import path from 'node:path';
import { FormatRegistry, type StaticDecode, type TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  redisUrl: string | null;
  bootstrapAdmin: { username: string; password: string } | null;
  agentToken: string | null;
  openSignup: boolean;
  /**
   * Behind reverse proxies: how many hops (a number) or which proxy addresses (IPs, CIDRs or
   * `loopback`/`linklocal`/`uniquelocal`) may set X-Forwarded-For/-Proto/-Host; false trusts none.
   */
  trustProxy: false | number | string[];
  publicUrl: string | null;
  secretKey: string | null;
  fetchAllowCidrs: string[];
  /** DNS servers (`ip` or `ip:port`) the safe fetch asks instead of the system resolver; empty = system. */
  fetchDnsServers: string[];
  xboxAuthBase: string;
  xboxApiBase: string;
  nintendoAuthBase: string;
  nintendoApiBase: string;
  /** The Nintendo app version the X-Moon-App-* headers carry (docs/consoles.md). */
  nintendoAppVersion: string;
  logLevel: string;
  /** Directory of the built admin UI; absent in API-only deployments. */
  webDir: string | null;
  /** Directory of the built Hearth Space page. */
  overlayDir: string | null;
  /** Directory of the built browser extension (served packed and signed, /extension/update.xml). */
  extensionDir: string | null;
  /** The worker deletes alerts older than this many days. */
  alertRetentionDays: number;
  /** The worker deletes screenshots older than this many days (DESIGN §12). */
  screenshotRetentionDays: number;
  /** Where screenshot bytes live: files under <data>/screenshots/, or the database (PostgreSQL only). */
  screenshotStorage: 'file' | 'database';
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function validCidr(text: string): boolean {
  const [addr, bits, extra] = text.split('/');
  if (extra !== undefined || !addr || bits === undefined || !/^\d+$/.test(bits)) return false;
  const family = isIP(addr);
  return family !== 0 && Number(bits) <= (family === 4 ? 32 : 128);
}

/** A DNS server as Node's resolver takes it: `1.2.3.4`, `1.2.3.4:53`, `::1` or `[::1]:53`. */
function validDnsServer(text: string): boolean {
  const match = /^\[([^\]]+)\]:(\d+)$/.exec(text) ?? /^([^:]+):(\d+)$/.exec(text);
  const [address, port] = match ? [match[1] ?? '', match[2]] : [text, undefined];
  return isIP(address) !== 0 && (port === undefined || (Number(port) > 0 && Number(port) <= 65535));
}

function httpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

// TypeBox keeps formats in one registry; these names are ours alone.
FormatRegistry.Set('hearth-port', (v) => /^\d+$/.test(v) && Number(v) <= 65535);
FormatRegistry.Set('hearth-boolean', (v) => TRUE.has(v.toLowerCase()) || FALSE.has(v.toLowerCase()));
FormatRegistry.Set('hearth-http-url', httpUrl);
FormatRegistry.Set('hearth-cidr', validCidr);
FormatRegistry.Set('hearth-dns-server', validDnsServer);
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
/** One entry of HEARTH_TRUST_PROXY's list: an address, a CIDR or one of proxy-addr's names. */
const proxyEntry = (v: string) => PROXY_NAMES.has(v) || isIP(v) !== 0 || validCidr(v);
FormatRegistry.Set(
  'hearth-trust-proxy',
  (v) =>
    FALSE.has(v.toLowerCase()) ||
    /^[1-9]\d{0,1}$/.test(v) ||
    v
      .split(',')
      .map((x) => x.trim())
      .every(proxyEntry),
);
FormatRegistry.Set('hearth-log-level', (v) => LOG_LEVELS.includes(v.toLowerCase()));

/** Each checked variable names its own problem; the message gets the variable's name in front. */
type Problem = (value: string) => string;
const problem = (describe: Problem) => ({ problem: describe });

const withoutTrailingSlash = (v: string) => v.replace(/\/+$/, '');

const Port = Type.Transform(
  Type.String({
    format: 'hearth-port',
    default: '8080',
    ...problem((v) => `must be a port number 0-65535, got "${v}"`),
  }),
)
  .Decode(Number)
  .Encode(String);

const Flag = () =>
  Type.Transform(
    Type.String({
      format: 'hearth-boolean',
      default: 'false',
      ...problem((v) => `must be a boolean (true/false, 1/0, yes/no, on/off), got "${v}"`),
    }),
  )
    .Decode((v) => TRUE.has(v.toLowerCase()))
    .Encode(String);

const HttpUrl = (fallback?: string) =>
  Type.Transform(
    Type.String({
      format: 'hearth-http-url',
      ...(fallback === undefined ? {} : { default: fallback }),
      ...problem((v) => `must be an http(s) URL, got "${v}"`),
    }),
  )
    .Decode(withoutTrailingSlash)
    .Encode((v) => v);

const BootstrapAdmin = Type.Transform(
  Type.String({
    pattern: '^[^:]+:[\\s\\S]{12,}$',
    ...problem((v) =>
      v.indexOf(':') > 0 ? 'password must be at least 12 characters' : 'must be "username:password"',
    ),
  }),
)
  .Decode((v) => {
    const colon = v.indexOf(':');
    return { username: v.slice(0, colon), password: v.slice(colon + 1) };
  })
  .Encode((v) => `${v.username}:${v.password}`);

/**
 * HEARTH_TRUST_PROXY: off (false), a hop count (1-99: the proxies in front of Hearth) or a comma list of
 * the proxies' addresses. `true` is refused: it trusted every hop, so a client could name its own
 * address in X-Forwarded-For and slip past the sign-in and access-request limits.
 */
const TrustProxy = Type.Transform(
  Type.String({
    format: 'hearth-trust-proxy',
    default: 'false',
    ...problem((v) =>
      TRUE.has(v.toLowerCase()) && v !== '1'
        ? `"${v}" would trust every hop, so any client could choose its own address with X-Forwarded-For; ` +
          'set the number of proxies in front of Hearth (usually 1) or their addresses (e.g. 127.0.0.1 or 10.0.0.0/8)'
        : `must be false, a number of proxies (1-99) or a comma list of proxy addresses or CIDRs, got "${v}"`,
    ),
  }),
)
  .Decode((v): false | number | string[] => {
    if (FALSE.has(v.toLowerCase())) return false;
    if (/^\d+$/.test(v)) return Number(v);
    return v
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
  })
  .Encode((v) => (v === false ? 'false' : Array.isArray(v) ? v.join(',') : String(v)));

/** Every variable Hearth reads, with its default and check (README's table documents the operator's ones). */
const Environment = Type.Object({
  HEARTH_PORT: Port,
  HEARTH_HOST: Type.String({ default: '127.0.0.1' }),
  HEARTH_DATA_DIR: Type.Transform(Type.String({ default: './data' }))
    .Decode((v) => path.resolve(v))
    .Encode((v) => v),
  HEARTH_DATABASE_URL: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://',
      ...problem(() => 'must be a postgres:// URL (leave it unset for SQLite in the data directory)'),
    }),
  ),
  HEARTH_REDIS_URL: Type.Optional(
    Type.String({ pattern: '^rediss?://', ...problem(() => 'must be a redis:// or rediss:// URL') }),
  ),
  HEARTH_BOOTSTRAP_ADMIN: Type.Optional(BootstrapAdmin),
  HEARTH_AGENT_TOKEN: Type.Optional(Type.String()),
  HEARTH_TRUST_PROXY: TrustProxy,
  HEARTH_OPEN_SIGNUP: Flag(),
  HEARTH_PUBLIC_URL: Type.Optional(HttpUrl()),
  HEARTH_SECRET_KEY: Type.Optional(
    Type.String({ minLength: 32, ...problem(() => 'must be at least 32 characters') }),
  ),
  HEARTH_FETCH_ALLOW_CIDRS: Type.Array(
    Type.String({
      format: 'hearth-cidr',
      ...problem((v) => `has an invalid CIDR "${v}" (e.g. 192.168.1.0/24)`),
    }),
    { default: [] },
  ),
  HEARTH_FETCH_DNS_SERVERS: Type.Array(
    Type.String({
      format: 'hearth-dns-server',
      ...problem(
        (v) => `has an invalid DNS server "${v}" (an IP address with an optional port, e.g. 127.0.0.1:5353)`,
      ),
    }),
    { default: [] },
  ),
  HEARTH_ALERT_RETENTION_DAYS: Type.Transform(
    Type.String({
      pattern: '^0*[1-9]\\d*$',
      default: '90',
      ...problem((v) => `must be a whole number of days (1 or more), got "${v}"`),
    }),
  )
    .Decode(Number)
    .Encode(String),
  HEARTH_SCREENSHOT_RETENTION_DAYS: Type.Transform(
    Type.String({
      pattern: '^0*[1-9]\\d*$',
      default: '14',
      ...problem((v) => `must be a whole number of days (1 or more), got "${v}"`),
    }),
  )
    .Decode(Number)
    .Encode(String),
  HEARTH_SCREENSHOT_STORAGE: Type.Transform(
    Type.String({
      pattern: '^(?:[Ff][Ii][Ll][Ee]|[Dd][Aa][Tt][Aa][Bb][Aa][Ss][Ee])$',
      default: 'file',
      ...problem((v) => `must be file or database, got "${v}"`),
    }),
  )
    .Decode((v) => v.toLowerCase() as 'file' | 'database')
    .Encode((v) => v),
  HEARTH_LOG_LEVEL: Type.Transform(
    Type.String({
      format: 'hearth-log-level',
      default: 'info',
      ...problem(() => `must be one of ${LOG_LEVELS.join(', ')}`),
    }),
  )
    .Decode((v) => v.toLowerCase())
    .Encode((v) => v),
  HEARTH_XBOX_AUTH_BASE: HttpUrl('https://login.live.com'),
  HEARTH_XBOX_API_BASE: HttpUrl('https://mobileaggregator.family.microsoft.com/api'),
  HEARTH_NINTENDO_AUTH_BASE: HttpUrl('https://accounts.nintendo.com'),
  HEARTH_NINTENDO_API_BASE: HttpUrl('https://app.lp1.znma.srv.nintendo.net'),
  HEARTH_NINTENDO_APP_VERSION: Type.String({
    pattern: '^\\d+(\\.\\d+){1,3}$',
    default: '2.3.0',
    ...problem((v) => `must be a dotted version number such as 2.3.0, got "${v}"`),
  }),
  HEARTH_WEB_DIR: Type.Optional(Type.String()),
  HEARTH_OVERLAY_DIR: Type.Optional(Type.String()),
  HEARTH_EXTENSION_DIR: Type.Optional(Type.String()),
});
type Environment = StaticDecode<typeof Environment>;

/** Picks the known variables, trimmed; blank counts as unset and lists are split on commas. */
function readVariables(env: NodeJS.ProcessEnv): Record<string, string | string[]> {
  const values: Record<string, string | string[]> = {};
  for (const [key, schema] of Object.entries(Environment.properties) as [string, TSchema][]) {
    const text = env[key]?.trim();
    if (!text) continue;
    values[key] =
      schema.type === 'array'
        ? text
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : text;
  }
  return values;
}

/** One line per problem: the first failed check of a variable, or of each item of a list. */
function describeProblems(values: unknown): string[] {
  const lines = new Map<string, string>();
  for (const error of Value.Errors(Environment, values)) {
    if (lines.has(error.path)) continue;
    const name = error.path.split('/')[1] ?? '';
    const describe = (error.schema as { problem?: Problem }).problem;
    lines.set(error.path, `${name} ${describe ? describe(String(error.value)) : error.message}`);
  }
  return [...lines.values()];
}

/** Turns `HEARTH_*` variables into a typed config, reporting every bad value at once. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const values = Value.Default(Environment, readVariables(env));
  const problems = describeProblems(values);
  if (problems.length) throw new ConfigError(problems);
  const v: Environment = Value.Decode(Environment, values);
  if (v.HEARTH_SCREENSHOT_STORAGE === 'database' && !v.HEARTH_DATABASE_URL)
    throw new ConfigError([
      'HEARTH_SCREENSHOT_STORAGE database needs PostgreSQL (HEARTH_DATABASE_URL); with SQLite screenshots are files in the data directory',
    ]);
  return {
    port: v.HEARTH_PORT,
    host: v.HEARTH_HOST,
    dataDir: v.HEARTH_DATA_DIR,
    databaseUrl: v.HEARTH_DATABASE_URL ?? null,
    redisUrl: v.HEARTH_REDIS_URL ?? null,
    bootstrapAdmin: v.HEARTH_BOOTSTRAP_ADMIN ?? null,
    agentToken: v.HEARTH_AGENT_TOKEN ?? null,
    openSignup: v.HEARTH_OPEN_SIGNUP,
    trustProxy: v.HEARTH_TRUST_PROXY,
    publicUrl: v.HEARTH_PUBLIC_URL ?? null,
    secretKey: v.HEARTH_SECRET_KEY ?? null,
    fetchAllowCidrs: v.HEARTH_FETCH_ALLOW_CIDRS,
    fetchDnsServers: v.HEARTH_FETCH_DNS_SERVERS,
    xboxAuthBase: v.HEARTH_XBOX_AUTH_BASE,
    xboxApiBase: v.HEARTH_XBOX_API_BASE,
    nintendoAuthBase: v.HEARTH_NINTENDO_AUTH_BASE,
    nintendoApiBase: v.HEARTH_NINTENDO_API_BASE,
    nintendoAppVersion: v.HEARTH_NINTENDO_APP_VERSION,
    logLevel: v.HEARTH_LOG_LEVEL,
    webDir: v.HEARTH_WEB_DIR ?? null,
    overlayDir: v.HEARTH_OVERLAY_DIR ?? null,
    extensionDir: v.HEARTH_EXTENSION_DIR ?? null,
    alertRetentionDays: v.HEARTH_ALERT_RETENTION_DAYS,
    screenshotRetentionDays: v.HEARTH_SCREENSHOT_RETENTION_DAYS,
    screenshotStorage: v.HEARTH_SCREENSHOT_STORAGE,
  };
}

/**
 * Loads a `.env` file into `process.env` with Node's own parser; variables already set win and a
 * missing file is not an error.
 */
export function loadDotEnv(file: string): void {
  try {
    process.loadEnvFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
