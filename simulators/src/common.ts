import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import type { SimConfig, SimFault, SimState } from './types.js';

// What both simulators share: call counting, injected faults, the control API's frame, listening
// on loopback. Each vendor's file holds its protocol and its state.

/** The sign-in page (never faulted), a token endpoint, or an API call. */
export type CallKind = 'page' | 'token' | 'api';

export interface VendorHooks<Family, Playtime> {
  kindOf(route: string): CallKind;
  /** Answers `status` in the vendor's error shape for a call of `kind` (faults). */
  sendError(reply: FastifyReply, kind: CallKind, status: number): FastifyReply;
  familySchema: object;
  playtimeSchema: object;
  reset(): void;
  setFamily(family: Family): void;
  setPlaytime(playtime: Playtime): string | null;
  expireAccess(): void;
  revoke(): void;
  config(): SimConfig;
  setConfig(config: SimConfig): void;
  limits(): Record<string, unknown>;
}

export const DAY_MS = 86_400_000;

export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

/** The UTC date of an instant, YYYY-MM-DD. */
export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A small real page whose `#continue` link is the redirect to paste. */
export function signInPage(title: string, lines: string[], redirect: string, label: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body>
<h1>${escapeHtml(title)}</h1>
${lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('\n')}
<p><a id="continue" href="${escapeHtml(redirect)}">${escapeHtml(label)}</a></p>
</body></html>
`;
}

export function wantsJson(accept: string | undefined): boolean {
  return (accept ?? '').toLowerCase().includes('application/json');
}

const DATE = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' };
export const SCHEMA = {
  date: DATE,
  id: { type: 'string', minLength: 1, maxLength: 200 },
  minutes: { type: 'integer', minimum: 0, maximum: 1440 },
};

export class SimCore<Family, Playtime> {
  readonly app: FastifyInstance;
  calls = new Map<string, number>();
  tokens = { issued: 0, refreshed: 0, rotated: 0 };
  lastHeaders: Record<string, string> | null = null;
  faults: SimFault[] = [];

  constructor(private readonly hooks: VendorHooks<Family, Playtime>) {
    const app = Fastify({ logger: false });
    this.app = app;
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );
    app.addHook('onRequest', async (request, reply) => {
      const route = request.routeOptions.url;
      if (!route || route.startsWith('/_sim')) return;
      const key = `${request.method} ${route}`;
      this.calls.set(key, (this.calls.get(key) ?? 0) + 1);
      const kind = hooks.kindOf(route);
      if (kind === 'api') {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(request.headers))
          if (name !== 'authorization' && name !== 'cookie' && typeof value === 'string')
            headers[name] = value;
        this.lastHeaders = headers;
      }
      if (kind === 'page') return;
      const fault = this.faults.find((f) => f.count > 0 && (!f.path || request.url.includes(f.path)));
      if (!fault) return;
      fault.count -= 1;
      this.faults = this.faults.filter((f) => f.count > 0);
      if (fault.status === 429) reply.header('retry-after', String(fault.retry_after ?? 1));
      return hooks.sendError(reply, kind, fault.status);
    });
    this.registerControl();
  }

  private registerControl(): void {
    const { app, hooks } = this;
    app.post('/_sim/reset', async () => {
      this.calls.clear();
      this.tokens = { issued: 0, refreshed: 0, rotated: 0 };
      this.lastHeaders = null;
      this.faults = [];
      hooks.reset();
      return { ok: true };
    });
    app.post<{ Body: Family }>('/_sim/family', { schema: { body: hooks.familySchema } }, async (request) => {
      hooks.setFamily(request.body as Family);
      return { ok: true };
    });
    app.post<{ Body: Playtime }>(
      '/_sim/playtime',
      { schema: { body: hooks.playtimeSchema } },
      async (request, reply) => {
        const problem = hooks.setPlaytime(request.body as Playtime);
        if (problem) return reply.code(400).send({ error: problem });
        return { ok: true };
      },
    );
    app.post<{ Body: SimFault }>(
      '/_sim/faults',
      {
        schema: {
          body: {
            type: 'object',
            required: ['status', 'count'],
            additionalProperties: false,
            properties: {
              status: { type: 'integer', minimum: 400, maximum: 599 },
              count: { type: 'integer', minimum: 1, maximum: 1000 },
              path: { type: 'string', minLength: 1 },
              retry_after: { type: 'integer', minimum: 0, maximum: 86400 },
            },
          },
        },
      },
      async (request) => {
        this.faults.push({ ...request.body });
        return { ok: true };
      },
    );
    // Clears every fault still waiting (a test's "the vendor is well again").
    app.delete('/_sim/faults', async () => {
      this.faults = [];
      return { ok: true };
    });
    app.post('/_sim/expire-access', async () => {
      hooks.expireAccess();
      return { ok: true };
    });
    app.post('/_sim/revoke', async () => {
      hooks.revoke();
      return { ok: true };
    });
    app.post<{ Body: SimConfig }>(
      '/_sim/config',
      {
        schema: {
          body: {
            type: 'object',
            additionalProperties: false,
            properties: {
              access_ttl_s: { type: 'integer', minimum: 1, maximum: 86400 },
              min_app_version: { type: 'string', pattern: '^\\d+(\\.\\d+)*$' },
            },
          },
        },
      },
      async (request) => {
        hooks.setConfig(request.body ?? {});
        return hooks.config();
      },
    );
    app.get('/_sim/state', async (): Promise<SimState> => {
      const calls = Object.fromEntries([...this.calls].sort(([a], [b]) => a.localeCompare(b)));
      return {
        calls,
        total_calls: [...this.calls.values()].reduce((a, b) => a + b, 0),
        tokens: { ...this.tokens },
        limits: hooks.limits(),
        last_headers: this.lastHeaders,
        config: hooks.config(),
      };
    });
  }

  /** Listens on 127.0.0.1 only and answers the root URL. */
  async listen(port = 0): Promise<string> {
    await this.app.listen({ host: '127.0.0.1', port });
    const address = this.app.server.address() as AddressInfo;
    return `http://127.0.0.1:${address.port}`;
  }
}
