import {
  AccessRequestBody,
  AccessRequestCreated,
  AlertKindsView,
  AlertPage,
  AlertQuery,
  AlertView,
  PruneBody,
} from '@hearth/protocol';
import { Type } from '@sinclair/typebox';
import { optionalBody } from '../../platform/http.js';
import { errorBodies, routeGroup } from '../../platform/route-kit.js';
import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';

const tags = ['alerts'];
const errors = errorBodies(400, 401, 403, 404, 429);
/** 30 access requests per client IP per minute, refused ones counted too. */
export const ACCESS_REQUEST_LIMIT = { max: 30, windowMs: 60_000 };

export function alertRoutes(app: HearthApp, { alerts }: Services): void {
  routeGroup(app, { access: 'bearer', tags, errors }).post(
    '/api/access-request',
    {
      summary: "A child's message from Hearth Space, sent by the device agent (per-device bearer token)",
      body: AccessRequestBody,
      reply: AccessRequestCreated,
      status: 201,
      ipLimit: ACCESS_REQUEST_LIMIT,
    },
    (device, request) => alerts.accessRequest(device, request.body),
  );

  const parent = routeGroup(app, { access: 'session', tags, errors });
  parent.get(
    '/api/access-request',
    {
      summary: 'Recent access requests from children, newest first',
      querystring: Type.Pick(
        AlertQuery,
        ['managed_user_id', 'system_id', 'unacknowledged', 'limit', 'before'],
        {
          additionalProperties: false,
        },
      ),
      reply: AlertPage,
    },
    (actor, request) => alerts.list(actor, { ...request.query, kind: 'access_requested' }),
  );
  parent.get(
    '/api/alerts',
    {
      summary: 'Alerts, newest first, with filters and cursor paging',
      querystring: AlertQuery,
      reply: AlertPage,
    },
    (actor, request) => alerts.list(actor, request.query),
  );
  parent.get(
    '/api/alerts/kinds',
    {
      summary: "Every alert kind to filter by: Hearth's own, then any other kind the parent's alerts have",
      reply: AlertKindsView,
    },
    (actor) => alerts.kinds(actor),
  );
  parent.post(
    '/api/alerts/:id/acknowledge',
    {
      summary: 'Mark an alert as read',
      params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
      reply: AlertView,
    },
    (actor, request) => alerts.acknowledge(actor, request.params.id),
  );
  parent.post(
    '/api/alerts/prune',
    {
      access: 'session:admin',
      summary: 'Delete alerts older than a number of days (default 30)',
      body: PruneBody,
      reply: Type.Object({ deleted: Type.Integer() }),
      preValidation: optionalBody,
    },
    (actor, request) => alerts.prune(actor, request.body.older_than_days ?? 30),
  );
}
