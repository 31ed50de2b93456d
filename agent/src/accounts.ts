// The device's human accounts: uid 1000–59999 with a login shell, read from passwd under the sysroot.
import { readFileSync } from 'node:fs';
import type { AgentPaths } from './paths.js';
import { underRoot } from './paths.js';

export interface HumanAccount {
  username: string;
  uid: number;
  gid: number;
  home: string;
  display_name?: string;
}

const NO_LOGIN = /(?:^|\/)(?:nologin|false|sync|halt|shutdown)$/;

export function parsePasswd(text: string): HumanAccount[] {
  const out: HumanAccount[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const f = line.split(':');
    if (f.length < 7) continue;
    const [username, , uidText, gidText, gecos, home, shell] = f as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const uid = Number(uidText);
    const gid = Number(gidText);
    if (!/^[a-z_][a-z0-9_.-]{0,63}\$?$/i.test(username) || !Number.isInteger(uid) || !Number.isInteger(gid))
      continue;
    if (uid < 1000 || uid >= 60000 || !shell || NO_LOGIN.test(shell.trim())) continue;
    const display = gecos.split(',')[0]?.trim();
    out.push({ username, uid, gid, home, ...(display ? { display_name: display.slice(0, 128) } : {}) });
  }
  return out;
}

export function humanAccounts(paths: AgentPaths): HumanAccount[] {
  try {
    return parsePasswd(readFileSync(underRoot(paths, '/etc/passwd'), 'utf8'));
  } catch {
    return [];
  }
}
