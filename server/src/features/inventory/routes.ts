import {
  AppPolicyBody,
  AppPolicyView,
  ChildInventoryView,
  DeviceInventoryView,
  RefreshView,
  SystemIdParams,
} from '@hearth/protocol';
import { Type } from '@sinclair/typebox';
import { notFound } from '../../platform/errors.js';
import { errorBodies, IdParams, routeGroup } from '../../platform/route-kit.js';
import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';

const tags = ['installed-apps'];
const errors = errorBodies(400, 401, 403, 404, 409);

export function inventoryRoutes(app: HearthApp, { inventory, appPolicy }: Services): void {
  const parent = routeGroup(app, { access: 'session', tags, errors });
  parent.get(
    '/api/devices/:system_id/installed-apps',
    {
      summary: "A device's installed applications",
      params: SystemIdParams,
      querystring: Type.Object(
        { linux_username: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) },
        { additionalProperties: false },
      ),
      reply: DeviceInventoryView,
    },
    (actor, request) =>
      inventory.deviceInventory(actor, request.params.system_id, request.query.linux_username),
  );
  parent.get(
    '/api/managed-users/:id/installed-apps',
    {
      summary: "The union of a child's apps across their devices",
      params: IdParams,
      reply: ChildInventoryView,
    },
    (actor, request) => inventory.childInventory(actor, request.params.id),
  );
  parent.post(
    '/api/devices/:system_id/installed-apps/refresh',
    {
      summary: 'Ask the agent to rescan now (queued while the device is offline)',
      params: SystemIdParams,
      reply: RefreshView,
      status: 202,
    },
    (actor, request) => inventory.refresh(actor, request.params.system_id),
  );

  app.get(
    '/api/apps/icons/:content_hash',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'An application icon (PNG), by the SHA-256 of its bytes; public and cacheable',
        params: Type.Object({ content_hash: Type.String({ maxLength: 128 }) }),
      },
    },
    async (request, reply) => {
      const hash = request.params.content_hash;
      const etag = `"${hash}"`;
      if (request.headers['if-none-match'] === etag) return reply.code(304).header('etag', etag).send();
      const bytes = await inventory.icon(hash);
      if (!bytes) throw notFound('The icon');
      return reply
        .type('image/png')
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('etag', etag)
        .header('x-content-type-options', 'nosniff')
        .send(bytes);
    },
  );

  const policy = routeGroup(app, { access: 'session', tags: ['app-policy'], errors });
  policy.get(
    '/api/managed-users/:id/app-policy',
    {
      summary: "A child's application rules and each device's sync state",
      params: IdParams,
      reply: AppPolicyView,
    },
    (actor, request) => appPolicy.get(actor, request.params.id),
  );
  policy.put(
    '/api/managed-users/:id/app-policy',
    {
      summary: 'Replace the rules (send the version you read to avoid overwriting a newer one)',
      params: IdParams,
      body: AppPolicyBody,
      reply: AppPolicyView,
    },
    (actor, request) => appPolicy.put(actor, request.params.id, request.body),
  );
}
