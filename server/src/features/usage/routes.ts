import { STATS_RANGES, type StatsRange, StatsView } from '@hearth/protocol';
import { Type } from '@sinclair/typebox';
import { errorBodies, IdParams, routeGroup } from '../../platform/route-kit.js';
import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';

const tags = ['users'];
const errors = errorBodies(400, 401, 404);

export function usageRoutes(app: HearthApp, { usage }: Services): void {
  const parent = routeGroup(app, { access: 'session', tags, errors });
  parent.get(
    '/api/user/:id/stats',
    {
      summary: 'Use per day against the limit, top apps and devices over the last 7, 14 or 30 days',
      params: IdParams,
      querystring: Type.Object(
        { days: Type.Optional(Type.Unsafe<StatsRange>({ type: 'integer', enum: [...STATS_RANGES] })) },
        { additionalProperties: false },
      ),
      reply: StatsView,
    },
    (actor, request) => usage.stats(actor, request.params.id, request.query.days ?? 7),
  );
}
