export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  redisUrl: string | null;
  bootstrapAdmin: {
    username: string;
    password: string;
  } | null;
  agentToken: string | null;
  openSignup: boolean;
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
}
export declare class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]);
}
/** Reads `KEY=value` lines of a `.env` file without overriding variables already set. */
export declare function loadDotEnv(file: string, env?: NodeJS.ProcessEnv): void;
/** Turns `HEARTH_*` variables into a typed config, reporting every bad value at once. */
export declare function loadConfig(env?: NodeJS.ProcessEnv): Config;
