import {
  AppPolicyBody,
  AppPolicyView,
  ChildInventoryView,
  DeviceInventoryView,
  ErrorBody,
  RefreshView,
  SystemIdParams,
} from '@hearth/protocol';
import { Type } from '@sinclair/typebox';
import { requireSession } from '../../platform/access.js';
import { notFound } from '../../platform/errors.js';
import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';

const tags = ['installed-apps'];
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody };
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export function inventoryRoutes(app: HearthApp, { inventory, appPolicy }: Services): void {
  app.get(
    '/api/devices/:system_id/installed-apps',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: "A device's installed applications",
        params: SystemIdParams,
        querystring: Type.Object(
          { linux_username: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) },
          { additionalProperties: false },
        ),
        response: { 200: DeviceInventoryView, ...errors },
      },
    },
    async (request) =>
      inventory.deviceInventory(
        requireSession(request),
        request.params.system_id,
        request.query.linux_username,
      ),
  );

  app.get(
    '/api/managed-users/:id/installed-apps',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: "The union of a child's apps across their devices",
        params: IdParams,
        response: { 200: ChildInventoryView, ...errors },
      },
    },
    async (request) => inventory.childInventory(requireSession(request), request.params.id),
  );

  app.post(
    '/api/devices/:system_id/installed-apps/refresh',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Ask the agent to rescan now (queued while the device is offline)',
        params: SystemIdParams,
        response: { 202: RefreshView, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(202).send(await inventory.refresh(requireSession(request), request.params.system_id)),
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

  app.get(
    '/api/managed-users/:id/app-policy',
    {
      config: { access: 'session' },
      schema: {
        tags: ['app-policy'],
        summary: "A child's application rules and each device's sync state",
        params: IdParams,
        response: { 200: AppPolicyView, ...errors },
      },
    },
    async (request) => appPolicy.get(requireSession(request), request.params.id),
  );

  app.put(
    '/api/managed-users/:id/app-policy',
    {
      config: { access: 'session' },
      schema: {
        tags: ['app-policy'],
        summary: 'Replace the rules (send the version you read to avoid overwriting a newer one)',
        params: IdParams,
        body: AppPolicyBody,
        response: { 200: AppPolicyView, ...errors },
      },
    },
    async (request) => appPolicy.put(requireSession(request), request.params.id, request.body),
  );
}
