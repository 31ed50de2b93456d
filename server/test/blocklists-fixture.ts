import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

/** What the list server answers at one path. */
export interface ListAnswer {
  body?: string;
  status?: number;
  etag?: string;
  lastModified?: string;
  /** Send the body gzipped with Content-Encoding (as list mirrors do). */
  gzip?: boolean;
}

/**
 * A list server on loopback (the only address tests reach, through HEARTH_FETCH_ALLOW_CIDRS): answers
 * each path as told, honours If-None-Match and If-Modified-Since with 304, and records every request.
 */
export class ListServer {
  readonly requests: { path: string; headers: IncomingHttpHeaders }[] = [];
  private readonly answers = new Map<string, ListAnswer>();
  private server: Server | null = null;
  private waiters: (() => void)[] = [];
  base = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const path = req.url ?? '/';
      this.requests.push({ path, headers: req.headers });
      for (const w of this.waiters.splice(0)) w();
      const answer = this.answers.get(path);
      if (!answer) {
        res.writeHead(404).end('not here');
        return;
      }
      const headers: Record<string, string> = { 'content-type': 'text/plain; charset=utf-8' };
      if (answer.etag) headers.etag = answer.etag;
      if (answer.lastModified) headers['last-modified'] = answer.lastModified;
      const status = answer.status ?? 200;
      const unchanged =
        status === 200 &&
        ((answer.etag && req.headers['if-none-match'] === answer.etag) ||
          (answer.lastModified && req.headers['if-modified-since'] === answer.lastModified));
      if (unchanged) {
        res.writeHead(304, headers).end();
        return;
      }
      let body: Buffer = Buffer.from(answer.body ?? '');
      if (answer.gzip) {
        body = gzipSync(body);
        headers['content-encoding'] = 'gzip';
      }
      res.writeHead(status, headers).end(body);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  set(path: string, answer: ListAnswer): string {
    this.answers.set(path, answer);
    return `${this.base}${path}`;
  }

  requestsTo(path: string) {
    return this.requests.filter((r) => r.path === path);
  }

  /** Resolves once `count` requests reached `path`. */
  async waitForRequests(path: string, count: number, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.requestsTo(path).length < count) {
      if (Date.now() > deadline)
        throw new Error(`${path}: ${this.requestsTo(path).length} requests, not ${count}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 100);
      });
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** Polls `read` until `ok` holds (bounded), and answers the last value read. */
export async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, tries = 200): Promise<T> {
  let v = await read();
  for (let i = 0; i < tries && !ok(v); i++) {
    await new Promise((r) => setTimeout(r, 25));
    v = await read();
  }
  return v;
}

/** A hosts list in the usual style, with the machine header. */
export function hostsList(domains: readonly string[]): string {
  return [
    '# Title: test list',
    '127.0.0.1 localhost',
    '::1 localhost ip6-localhost',
    '',
    ...domains.map((d) => `0.0.0.0 ${d}`),
    '',
  ].join('\n');
}

export const ALLOW_LOOPBACK = { HEARTH_FETCH_ALLOW_CIDRS: '127.0.0.0/8' };
