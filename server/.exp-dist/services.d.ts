import type { Config } from './config.js';
import { AuthService } from './features/auth/service.js';
import { HouseholdService } from './features/household/service.js';
import { UserService } from './features/users/service.js';
import type { Db } from './platform/db/database.js';
import { type CounterStore } from './platform/rate-limit.js';
/** Everything a route module may call; built once per app. */
export interface Services {
  config: Config;
  db: Db;
  counters: CounterStore;
  auth: AuthService;
  household: HouseholdService;
  users: UserService;
  close(): Promise<void>;
}
export declare function buildServices(config: Config, db: Db): Services;
