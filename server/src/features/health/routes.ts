import { ErrorBody, HEARTH_VERSION } from '@hearth/protocol';
import { Type } from '@sinclair/typebox';
import { HttpError } from '../../platform/errors.js';
import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';

const Health = Type.Object({ status: Type.Literal('ok'), version: Type.String() });

export function healthRoutes(app: HearthApp, { db }: Services): void {
  app.get(
    '/healthz',
    {
      config: { access: 'public' },
      schema: {
        tags: ['health'],
        summary: 'Liveness and database reachability',
        response: { 200: Health, 503: ErrorBody },
      },
    },
    async () => {
      try {
        await db.ping();
      } catch {
        throw new HttpError(503, 'unavailable', 'The database cannot be reached.');
      }
      return { status: 'ok' as const, version: HEARTH_VERSION };
    },
  );
}
