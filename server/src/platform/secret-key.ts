import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomToken } from './crypto.js';

/** HEARTH_SECRET_KEY, or a key generated once into the data directory and kept there. */
export function ensureSecretKey(dataDir: string, configured: string | null): string {
  if (configured) return configured;
  const file = path.join(dataDir, 'secret.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomToken(32);
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}
