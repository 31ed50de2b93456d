// The agent's state directory: small JSON documents written atomically (temporary file, fsync, rename)
// with mode 0600, each wrapped with the SHA-256 of its content so that a truncated or edited file is
// noticed, logged and treated as absent instead of crashing the daemon or being half believed.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import type { Logger } from './log.js';

export class StateStore {
  constructor(
    readonly dir: string,
    private readonly log: Logger,
  ) {}

  /** Creates the directory root-only (0700) if missing and tightens it if it is looser. */
  ensure(): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
  }

  file(name: string): string {
    return path.join(this.dir, name);
  }

  /** The document, or null when it is missing, unreadable or fails its checksum (logged). */
  read<T>(name: string, valid: (data: unknown) => data is T = (d): d is T => d !== undefined): T | null {
    let text: string;
    try {
      text = readFileSync(this.file(name), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        this.log.warn('state file unreadable', { file: name, err });
      return null;
    }
    try {
      const doc = JSON.parse(text) as { sha256?: unknown; data?: unknown };
      const body = JSON.stringify(doc.data);
      if (typeof doc.sha256 !== 'string' || doc.sha256 !== sha256(body)) throw new Error('checksum mismatch');
      if (!valid(doc.data)) throw new Error('unexpected content');
      return doc.data;
    } catch (err) {
      this.log.error('state file damaged; ignoring it', { file: name, err });
      this.quarantine(name);
      return null;
    }
  }

  write(name: string, data: unknown): void {
    const body = JSON.stringify(data);
    writeAtomic(this.file(name), JSON.stringify({ sha256: sha256(body), data }));
  }

  /** A bare secret file (the device token): one line, 0600. */
  readSecret(name: string, pattern: RegExp): string | null {
    let text: string;
    try {
      text = readFileSync(this.file(name), 'utf8').trim();
    } catch {
      return null;
    }
    if (pattern.test(text)) return text;
    this.log.error('secret file damaged; ignoring it', { file: name });
    this.quarantine(name);
    return null;
  }

  writeSecret(name: string, value: string): void {
    writeAtomic(this.file(name), `${value}\n`);
  }

  remove(name: string): void {
    rmSync(this.file(name), { force: true });
  }

  /** Keeps a damaged file aside for a person to look at, so that it is not read again. */
  private quarantine(name: string): void {
    try {
      renameSync(this.file(name), this.file(`${name}.damaged`));
    } catch {
      // already gone
    }
  }
}

export function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

export function writeAtomic(file: string, content: string | Buffer, mode = 0o600): void {
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', mode);
  try {
    writeSync(fd, typeof content === 'string' ? Buffer.from(content) : content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  chmodSync(tmp, mode);
  renameSync(tmp, file);
}
