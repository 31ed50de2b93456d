import { ErrorBody, HEARTH_VERSION } from '@hearth/protocol';
import { Type } from '@sinclair/typebox';
import { HttpError } from '../../platform/errors.js';

const Health = Type.Object({ status: Type.Literal('ok'), version: Type.String() });
export function healthRoutes(app, { db }) {
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
      return { status: 'ok', version: HEARTH_VERSION };
    },
  );
}
//# sourceMappingURL=routes.js.map
