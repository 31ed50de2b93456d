import {
  AddSourceBody,
  AgentDomainPolicyQuery,
  AgentDomainPolicyView,
  AssignBlocklistsBody,
  DeletedView,
  DomainCheckQuery,
  DomainCheckView,
  DomainPolicySyncView,
  DomainPolicyView,
  Items,
  PreviewBody,
  PreviewView,
  SourceRefreshView,
  SourceView,
  UpdateSourceBody,
} from '@hearth/protocol';
import type { FastifyRequest } from 'fastify';
import { requireDevice } from '../../platform/access.js';
import { errorBodies, IdParams, routeGroup } from '../../platform/route-kit.js';
import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';

const tags = ['blocklists'];
const errors = errorBodies(400, 401, 403, 404, 409, 502);

const isForm = (request: FastifyRequest) =>
  (request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');

/**
 * A browser form sends text: an empty optional field is left out, and a list field (`source_ids`,
 * `block_domains`, `allow_domains`) may come repeated, as a JSON array, or as one text with an entry a
 * line (or separated by commas). Whatever does not fit is left for validation to refuse.
 */
async function formLists(request: FastifyRequest): Promise<void> {
  if (!isForm(request)) return;
  const body = request.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') return;
  for (const field of ['url', 'format']) if (body[field] === '') delete body[field];
  for (const field of ['source_ids', 'block_domains', 'allow_domains']) {
    const value = body[field];
    if (typeof value !== 'string') continue;
    if (value.trim().startsWith('[')) {
      try {
        body[field] = JSON.parse(value);
        continue;
      } catch {
        // left as text
      }
    }
    body[field] = value
      .split(/[\n,]/)
      .map((v) => v.trim())
      .filter(Boolean);
  }
  if (request.url.endsWith('/blocklists/update') && body.source_ids === undefined) body.source_ids = [];
}

export function blocklistRoutes(app: HearthApp, { blocklists, domainPolicy }: Services): void {
  const parent = routeGroup(app, { access: 'session', tags, errors });
  parent.post(
    '/blocklists/sources/add',
    {
      access: 'session:admin',
      summary: 'Add a blocklist: a manual list, or a URL fetched at once in the background (owner or admin)',
      body: AddSourceBody,
      reply: SourceView,
      status: 201,
      preValidation: formLists,
    },
    (actor, request) => blocklists.add(actor, request.body),
  );
  parent.get(
    '/api/blocklists/sources',
    { summary: "The household's blocklists, newest first", reply: Items(SourceView) },
    async (actor) => ({ items: await blocklists.list(actor) }),
  );
  parent.patch(
    '/api/blocklists/sources/:id',
    {
      access: 'session:admin',
      summary: "Rename a blocklist, or replace a manual list's domains (owner or admin)",
      params: IdParams,
      body: UpdateSourceBody,
      reply: SourceView,
    },
    (actor, request) => blocklists.update(actor, request.params.id, request.body),
  );
  parent.delete(
    '/api/blocklists/sources/:id',
    {
      access: 'session:admin',
      summary: 'Remove a blocklist; the children using it compile without it (owner or admin)',
      params: IdParams,
      reply: DeletedView,
    },
    (actor, request) => blocklists.remove(actor, request.params.id),
  );
  parent.post(
    '/blocklists/sources/:id/refresh',
    {
      access: 'session:admin',
      summary:
        'Fetch a url blocklist now (conditional; a failure keeps the last good content) (owner or admin)',
      params: IdParams,
      reply: SourceRefreshView,
    },
    (actor, request) => blocklists.refresh(actor, request.params.id),
  );
  parent.post(
    '/api/blocklists/preview',
    {
      access: 'session:admin',
      summary: 'Fetch a list URL and show its format, first lines and domain count, storing nothing',
      body: PreviewBody,
      reply: PreviewView,
    },
    (actor, request) => blocklists.preview(actor, request.body),
  );
  parent.post(
    '/managed-users/:id/blocklists/update',
    {
      summary: "Set a child's blocklists and own block and allow entries (JSON or a form)",
      params: IdParams,
      body: AssignBlocklistsBody,
      reply: DomainPolicyView,
      preValidation: formLists,
    },
    (actor, request) => domainPolicy.assign(actor, request.params.id, request.body),
  );
  parent.get(
    '/api/managed-users/:id/blocklists',
    { summary: "A child's domain policy", params: IdParams, reply: DomainPolicyView },
    (actor, request) => domainPolicy.view(actor, request.params.id),
  );
  parent.get(
    '/api/user/:id/blocklists/sync-status',
    {
      summary: "Whether each mapped account enforces the child's current domain policy",
      params: IdParams,
      reply: DomainPolicySyncView,
    },
    (actor, request) => domainPolicy.syncStatus(actor, request.params.id),
  );
  parent.get(
    '/api/managed-users/:id/domain-check',
    {
      summary: 'Whether a domain is blocked for the child, and which lists, entries or grants decide it',
      params: IdParams,
      querystring: DomainCheckQuery,
      reply: DomainCheckView,
    },
    (actor, request) => domainPolicy.domainCheck(actor, request.params.id, request.query.domain),
  );

  app.get(
    '/api/agent/domain-policy',
    {
      config: { access: 'bearer' },
      schema: {
        tags,
        summary:
          "The effective domain policy of one of the device's accounts (gzip when accepted; ETag is the version)",
        querystring: AgentDomainPolicyQuery,
        response: {
          200: AgentDomainPolicyView,
          304: { type: 'null', description: 'If-None-Match names the current version' },
          ...errorBodies(400, 401, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const device = requireDevice(request);
      const answer = await domainPolicy.agentPolicy(device, request.query.linux_username, {
        ifNoneMatch: request.headers['if-none-match'],
        acceptEncoding: request.headers['accept-encoding'],
      });
      reply.header('etag', answer.etag).header('cache-control', 'no-cache').header('vary', 'accept-encoding');
      if (answer.status === 304) return reply.code(304).send();
      if (answer.gzip) reply.header('content-encoding', 'gzip');
      return reply.type('application/json; charset=utf-8').send(answer.body);
    },
  );
}
