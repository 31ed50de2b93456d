// logind stood in for: a `loginctl` first on the agent's PATH that prints what systemd 252's prints,
// answered from a JSON file the test edits, and that records `lock-session`.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface FakeSession {
  id: string;
  uid: number;
  user: string;
  active: boolean;
  locked: boolean;
  idle: boolean;
  state: string;
  type: string;
  display: string;
  remote: boolean;
}

export const STAND_IN = `#!${process.execPath}
// loginctl as systemd 252 prints it, answered from $HEARTH_TEST_LOGIND.
const fs = require('node:fs');
const file = process.env.HEARTH_TEST_LOGIND;
const args = process.argv.slice(2).filter((a) => a !== '--no-pager' && a !== '--no-legend');
const { sessions } = JSON.parse(fs.readFileSync(file, 'utf8'));
const yn = (b) => (b ? 'yes' : 'no');
const [verb, ...rest] = args;
if (verb === 'list-sessions') {
  for (const s of sessions)
    process.stdout.write(\`\${s.id.padStart(10)} \${String(s.uid).padStart(10)} \${s.user.padEnd(16)} \${(s.remote ? '' : 'seat0').padEnd(16)} \${s.remote ? 'pts/0' : 'tty2'}\\n\`);
} else if (verb === 'show-session') {
  const ids = [];
  const props = [];
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '-p') props.push(rest[++i]);
    else ids.push(rest[i]);
  }
  const blocks = [];
  for (const id of ids) {
    const s = sessions.find((x) => x.id === id);
    if (!s) {
      process.stderr.write(\`Failed to get session path: No session '\${id}' known\\n\`);
      process.exit(1);
    }
    // The D-Bus interface's order, whatever the order asked.
    const all = [['Id', s.id], ['User', s.uid], ['Name', s.user], ['Display', s.display], ['Remote', yn(s.remote)],
      ['Type', s.type], ['Active', yn(s.active)], ['State', s.state], ['IdleHint', yn(s.idle)],
      ['IdleSinceHint', s.idle ? '1700000000000000' : '0'], ['LockedHint', yn(s.locked)]];
    blocks.push(all.filter(([k]) => props.length === 0 || props.includes(k)).map(([k, v]) => \`\${k}=\${v}\\n\`).join(''));
  }
  process.stdout.write(blocks.join('\\n'));
} else if (verb === 'lock-session') {
  fs.appendFileSync(\`\${file}.locks\`, \`\${rest[0]}\\n\`);
} else {
  process.stderr.write(\`Unknown command verb \${verb}.\\n\`);
  process.exit(1);
}
`;

export class FakeLogind {
  /** Directory to put first on the agent's PATH. */
  readonly bin: string;
  readonly file: string;

  constructor(root: string) {
    this.bin = path.join(root, 'test-bin');
    mkdirSync(this.bin, { recursive: true });
    writeFileSync(path.join(this.bin, 'loginctl'), STAND_IN);
    chmodSync(path.join(this.bin, 'loginctl'), 0o755);
    this.file = path.join(root, 'logind.json');
    this.sessions([{}]);
  }

  /** The agent's environment for this stand-in. */
  env(): Record<string, string> {
    return { PATH: `${this.bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, HEARTH_TEST_LOGIND: this.file };
  }

  /** Sessions (ann's active graphical session unless told otherwise), written aside and renamed so that the stand-in never reads half a file. */
  sessions(list: Partial<FakeSession>[]): void {
    const full = list.map((s) => ({
      id: '2',
      uid: 1000,
      user: 'ann',
      active: true,
      locked: false,
      idle: false,
      state: 'active',
      type: 'wayland',
      display: '',
      remote: false,
      ...s,
    }));
    writeFileSync(`${this.file}.tmp`, JSON.stringify({ sessions: full }));
    renameSync(`${this.file}.tmp`, this.file);
  }

  /** Session ids `lock-session` was called with, in order. */
  locks(): string[] {
    return existsSync(`${this.file}.locks`)
      ? readFileSync(`${this.file}.locks`, 'utf8').split('\n').filter(Boolean)
      : [];
  }
}
