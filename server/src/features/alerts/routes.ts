import {
  AccessRequestBody,
  AccessRequestCreated,
  AlertPage,
  AlertQuery,
  AlertView,
  ErrorBody,
  PruneBody,
} from '@hearth/protocol';
import { Type } from '@sinclair/typebox';
import { requireDevice, requireSession } from '../../platform/access.js';
import { optionalBody } from '../../platform/http.js';
import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';

const tags = ['alerts'];
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };
/** SPEC "Limits": 30 access requests per client IP per minute. */
export const ACCESS_REQUEST_LIMIT = { max: 30, windowMs: 60_000 };

export function alertRoutes(app: HearthApp, { alerts }: Services): void {
  app.post(
    '/api/access-request',
    {
      config: { access: 'bearer', ipLimit: ACCESS_REQUEST_LIMIT },
      schema: {
        tags,
        summary: "A child's message from Hearth Space, sent by the device agent (per-device bearer token)",
        body: AccessRequestBody,
        response: { 201: AccessRequestCreated, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await alerts.accessRequest(requireDevice(request), request.body)),
  );

  app.get(
    '/api/access-request',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Recent access requests from children, newest first',
        querystring: Type.Pick(
          AlertQuery,
          ['managed_user_id', 'system_id', 'unacknowledged', 'limit', 'before'],
          { additionalProperties: false },
        ),
        response: { 200: AlertPage, ...errors },
      },
    },
    async (request) => alerts.list(requireSession(request), { ...request.query, kind: 'access_requested' }),
  );

  app.get(
    '/api/alerts',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Alerts, newest first, with filters and cursor paging',
        querystring: AlertQuery,
        response: { 200: AlertPage, ...errors },
      },
    },
    async (request) => alerts.list(requireSession(request), request.query),
  );

  app.post(
    '/api/alerts/:id/acknowledge',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Mark an alert as read',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: AlertView, ...errors },
      },
    },
    async (request) => alerts.acknowledge(requireSession(request), request.params.id),
  );

  app.post(
    '/api/alerts/prune',
    {
      config: { access: 'session:admin' },
      preValidation: optionalBody,
      schema: {
        tags,
        summary: 'Delete alerts older than a number of days (default 30)',
        body: PruneBody,
        response: { 200: Type.Object({ deleted: Type.Integer() }), ...errors },
      },
    },
    async (request) => alerts.prune(requireSession(request), request.body.older_than_days ?? 30),
  );
}
