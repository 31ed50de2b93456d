import { DashboardView, ErrorBody, TaskStatusView } from '@hearth/protocol';
import { Type } from '@sinclair/typebox';
import { requireSession } from '../../platform/access.js';
import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';

export function dashboardRoutes(app: HearthApp, { dashboard, worker }: Services): void {
  app.get(
    '/api/dashboard',
    {
      config: { access: 'session' },
      schema: {
        tags: ['dashboard'],
        summary: 'The household at a glance: counts, children, devices, recent alerts',
        response: { 200: DashboardView, 401: ErrorBody },
      },
    },
    async (request) => dashboard.view(requireSession(request)),
  );

  app.get(
    '/api/task-status',
    {
      config: { access: 'session' },
      schema: {
        tags: ['worker'],
        summary: 'Worker heartbeat and the last run of each task',
        response: { 200: TaskStatusView, 401: ErrorBody },
      },
    },
    async () => worker.status(),
  );

  app.post(
    '/restart-tasks',
    {
      config: { access: 'session:admin' },
      schema: {
        tags: ['worker'],
        summary: 'Ask the worker to run every task again now (POST only; CSRF token required)',
        response: {
          200: Type.Object({ restart_requested: Type.Boolean(), requested_at: Type.String() }),
          401: ErrorBody,
          403: ErrorBody,
        },
      },
    },
    async () => worker.requestRestart(),
  );
}
