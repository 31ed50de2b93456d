import { Kysely } from 'kysely';
import type { Database } from './schema.js';
export type Dialect = 'sqlite' | 'postgres';
export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /** Cheap liveness probe for /healthz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
export declare class SchemaTooNewError extends Error {}
export declare function openDatabase(options: { databaseUrl: string | null; dataDir: string }): Db;
/** Applies pending migrations; refuses a database written by a newer Hearth. */
export declare function migrateToLatest(db: Db): Promise<string[]>;
