import { DashboardView, TaskStatusView } from '@hearth/protocol';
import { Type } from '@sinclair/typebox';
import { errorBodies, routeGroup } from '../../platform/route-kit.js';
import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';

export function dashboardRoutes(app: HearthApp, { dashboard, worker }: Services): void {
  const parent = routeGroup(app, { access: 'session', tags: ['worker'], errors: errorBodies(401) });
  parent.get(
    '/api/dashboard',
    {
      tags: ['dashboard'],
      summary: 'The household at a glance: counts, children, devices, recent alerts',
      reply: DashboardView,
    },
    (actor) => dashboard.view(actor),
  );
  parent.get(
    '/api/task-status',
    { summary: 'Worker heartbeat and the last run of each task', reply: TaskStatusView },
    () => worker.status(),
  );
  parent.post(
    '/restart-tasks',
    {
      access: 'session:admin',
      summary: 'Ask the worker to run every task again now (POST only; CSRF token required)',
      reply: Type.Object({ restart_requested: Type.Boolean(), requested_at: Type.String() }),
      errors: errorBodies(401, 403),
    },
    () => worker.requestRestart(),
  );
}
