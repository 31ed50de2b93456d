// One inventory pass: each account's apps (scan.ts) with their icons found in the account's theme and
// rastered (icons.ts), as the wire's InstalledApp rows plus the PNGs they reference.
import { createHash } from 'node:crypto';
import type { InstalledApp } from '@hearth/protocol';
import type { HumanAccount } from '../accounts.js';
import type { AgentPaths } from '../paths.js';
import { underRoot } from '../paths.js';
import { accountIconTheme, IconCache, IconFinder, iconBaseDirs } from './icons.js';
import { AppScanner, systemDataDirs, userDataDirs } from './scan.js';

export interface AccountInventory {
  username: string;
  apps: InstalledApp[];
  /** The PNGs the apps reference, by content hash. */
  icons: Map<string, Buffer>;
}

/** The hash the server compares reports by: the account and its sorted apps (DESIGN §5). */
export function inventoryHash(username: string, apps: InstalledApp[]): string {
  const rows = apps
    .map(
      (a) => [a.identifier, a.match_type, a.application_name, a.version_name, a.icon_hash || null] as const,
    )
    .sort((x, y) => (x[0] === y[0] ? (x[1] < y[1] ? -1 : 1) : x[0] < y[0] ? -1 : 1));
  return createHash('sha256')
    .update(JSON.stringify([username, rows]))
    .digest('hex');
}

export class InventoryCollector {
  private readonly scanner: AppScanner;
  readonly icons: IconCache;

  constructor(
    private readonly paths: AgentPaths,
    private readonly env: NodeJS.ProcessEnv,
    onIconSkipped: (file: string, err: unknown) => void = () => {},
  ) {
    this.scanner = new AppScanner(paths, env);
    this.icons = new IconCache(onIconSkipped);
  }

  async collect(accounts: Pick<HumanAccount, 'username' | 'home'>[]): Promise<AccountInventory[]> {
    const root = (p: string) => underRoot(this.paths, p);
    const scanned = await this.scanner.scan(accounts);
    const systemDirs = systemDataDirs(this.env);
    const out: AccountInventory[] = [];
    for (const account of accounts) {
      const theme = await accountIconTheme(root, account.home, this.env);
      const finder = new IconFinder(
        root,
        iconBaseDirs(account.home, [...userDataDirs(account), ...systemDirs]),
      );
      const icons = new Map<string, Buffer>();
      const apps: InstalledApp[] = [];
      for (const app of scanned.get(account.username) ?? []) {
        let iconHash: string | null = null;
        const file = app.icon ? await finder.find(app.icon, theme) : null;
        const icon = file ? await this.icons.get(root(file)) : null;
        if (icon) {
          icons.set(icon.hash, icon.png);
          iconHash = icon.hash;
        }
        apps.push({
          application_name: app.application_name,
          identifier: app.identifier,
          match_type: 'executable',
          version_name: app.version_name,
          icon_hash: iconHash,
        });
      }
      out.push({ username: account.username, apps, icons });
    }
    this.icons.prune();
    return out;
  }
}
