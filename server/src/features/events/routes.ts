import { ErrorBody } from '@hearth/protocol';
import { requireSession } from '../../platform/access.js';
import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';

export function eventRoutes(app: HearthApp, { eventHub }: Services): void {
  app.get(
    '/api/dashboard/events',
    {
      config: { access: 'session' },
      schema: {
        tags: ['dashboard'],
        summary:
          'Live events (Server-Sent Events): access_requested, approval_created, approval_decided, device_pending, device_status, alert_created, installed_apps_updated, console_synced. Send Last-Event-ID to resume.',
        response: { 401: ErrorBody },
      },
    },
    async (request, reply) => {
      const actor = requireSession(request);
      const lastEventId = request.headers['last-event-id'];
      reply.hijack();
      // The hub reads who the parent may hear, and reads it again whenever that changes.
      eventHub.open(actor, reply.raw, typeof lastEventId === 'string' ? lastEventId : undefined);
    },
  );
}
