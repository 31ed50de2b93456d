// The loopback server behind the kiosk window (DESIGN §7): it serves blockedv2.html and the page's bridge.
// Chromium lets a page reach a loopback bridge only from loopback, so page and bridge share one origin and
// no CORS header is ever sent: another origin can neither send the Authorization header (no preflight
// is answered) nor read an answer.
//
// The bridge token never appears on a command line (anyone may read /proc/<pid>/cmdline): Chromium is
// started on a one-time `/launch/<nonce>` address that redirects to the page with the token in its query.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log.js';

export const BRIDGE_BODY_MAX = 16 * 1024;
const PAGE_PATH = '/blockedv2.html';
const BRIDGE_PATH = '/bridge';

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), usb=(), payment=()',
  // The page's own meta CSP governs scripts and styles; these parts only work as a header.
  'content-security-policy': "frame-ancestors 'none'; base-uri 'none'; form-action 'none'; object-src 'none'",
};

const digest = (text: string) => createHash('sha256').update(text).digest();

export type BridgeHandler = (
  username: string,
  message: Record<string, unknown>,
) => Promise<Record<string, unknown>>;

interface Launch {
  username: string;
  query: URLSearchParams;
  onLoaded: () => void;
}

export class OverlayServer {
  private readonly server = http.createServer((req, res) => void this.route(req, res));
  private readonly tokens = new Map<string, Buffer>();
  private readonly launches = new Map<string, Launch>();
  private page: string | null = null;
  private port = 0;

  constructor(
    private readonly log: Logger,
    private readonly pageFile: () => string | null,
    private readonly handle: BridgeHandler,
  ) {}

  async start(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    this.server.requestTimeout = 30_000;
    this.server.headersTimeout = 10_000;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get bridgeUrl(): string {
    return `${this.origin}${BRIDGE_PATH}`;
  }

  /** A fresh bridge token for the account's overlay (the previous one stops working). */
  newToken(username: string): string {
    const token = randomBytes(32).toString('base64url');
    this.tokens.set(username, digest(token));
    return token;
  }

  revoke(username: string): void {
    this.tokens.delete(username);
    for (const [nonce, l] of this.launches) if (l.username === username) this.launches.delete(nonce);
  }

  /** A one-time address that sends the window on to the page with `query`; `onLoaded` once it is used. */
  launchUrl(username: string, query: URLSearchParams, onLoaded: () => void): string {
    for (const [nonce, l] of this.launches) if (l.username === username) this.launches.delete(nonce);
    const nonce = randomBytes(24).toString('base64url');
    this.launches.set(nonce, { username, query, onLoaded });
    return `${this.origin}/launch/${nonce}`;
  }

  /** Whether the page can be served (the asset is installed). */
  hasPage(): boolean {
    return this.loadPage() !== null;
  }

  private loadPage(): string | null {
    if (this.page !== null) return this.page;
    const file = this.pageFile();
    if (!file) return null;
    try {
      this.page = readFileSync(file, 'utf8');
    } catch (err) {
      this.log.warn('overlay page unreadable', { file, err });
    }
    return this.page;
  }

  /** Which account's overlay holds this token: every kept token is compared, each in constant time. */
  private accountOf(header: string | undefined): string | null {
    const m = /^Bearer ([A-Za-z0-9_-]{1,200})$/.exec(header ?? '');
    if (!m) return null;
    const given = digest(m[1] as string);
    let found: string | null = null;
    for (const [username, kept] of this.tokens) if (timingSafeEqual(given, kept)) found = username;
    return found;
  }

  private async route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      if (res.headersSent) return;
      res.writeHead(status, {
        'content-type': 'application/json',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        ...headers,
      });
      res.end(JSON.stringify(body));
    };
    try {
      // A name that resolves to loopback (DNS rebinding) is not us: only our own address is answered.
      if (req.headers.host !== `127.0.0.1:${this.port}`) return send(421, { ok: false, error: 'wrong_host' });
      const url = new URL(req.url ?? '/', this.origin);
      if (url.pathname === BRIDGE_PATH) return await this.bridge(req, send);
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, { ok: false, error: 'method' });
      if (url.pathname.startsWith('/launch/')) {
        const nonce = url.pathname.slice('/launch/'.length);
        const launch = this.launches.get(nonce);
        if (!launch) return send(404, { ok: false, error: 'gone' });
        this.launches.delete(nonce);
        res.writeHead(302, {
          location: `${PAGE_PATH}?${launch.query}`,
          'cache-control': 'no-store',
          'referrer-policy': 'no-referrer',
        });
        res.end();
        launch.onLoaded();
        return;
      }
      if (url.pathname === PAGE_PATH) {
        const page = this.loadPage();
        if (page === null) return send(503, { ok: false, error: 'overlay_page_missing' });
        res.writeHead(200, { ...PAGE_HEADERS, 'content-length': String(Buffer.byteLength(page)) });
        res.end(req.method === 'HEAD' ? undefined : page);
        return;
      }
      return send(404, { ok: false, error: 'not_found' });
    } catch (err) {
      this.log.warn('overlay server request failed', { err });
      send(500, { ok: false, error: 'internal' });
    }
  }

  private async bridge(
    req: http.IncomingMessage,
    send: (status: number, body: unknown, headers?: Record<string, string>) => void,
  ): Promise<void> {
    if (req.method !== 'POST') return send(405, { ok: false, error: 'method' }, { allow: 'POST' });
    const username = this.accountOf(req.headers.authorization);
    if (!username) {
      send(401, { ok: false, error: 'unauthorized' });
      req.resume();
      return;
    }
    // Refused bodies are read and dropped (not cut off) so the page gets the answer, not a reset.
    if (Number(req.headers['content-length'] ?? 0) > BRIDGE_BODY_MAX) {
      send(413, { ok: false, error: 'too_large' }, { connection: 'close' });
      req.resume();
      return;
    }
    const body = await new Promise<Buffer | null>((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= BRIDGE_BODY_MAX) chunks.push(chunk);
      });
      req.on('end', () => resolve(size > BRIDGE_BODY_MAX ? null : Buffer.concat(chunks)));
      req.on('error', () => resolve(null));
    });
    if (!body) return send(413, { ok: false, error: 'too_large' }, { connection: 'close' });
    let message: unknown;
    try {
      message = JSON.parse(body.toString('utf8'));
    } catch {
      return send(400, { ok: false, error: 'bad_json' });
    }
    if (!message || typeof message !== 'object' || Array.isArray(message))
      return send(400, { ok: false, error: 'bad_message' });
    send(200, await this.handle(username, message as Record<string, unknown>));
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
