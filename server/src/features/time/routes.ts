import {
  HouseholdView,
  ModifyTimeBody,
  ModifyTimeView,
  PauseBody,
  ScheduleSyncView,
  ScheduleView,
  UpdateHouseholdBody,
  UpdateScheduleBody,
  UsageView,
} from '@hearth/protocol';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { optionalBody } from '../../platform/http.js';
import { errorBodies, IdParams, routeGroup } from '../../platform/route-kit.js';
import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';

const tags = ['time'];
const errors = errorBodies(400, 401, 403, 404);
const UserIdParams = Type.Object({ user_id: Type.String({ minLength: 1, maxLength: 64 }) });

/**
 * A form post carries `days` as a JSON string (a form has no nested fields); it is read as the
 * object before validation. Anything that does not parse is left for validation to refuse.
 */
async function formDays(request: FastifyRequest): Promise<void> {
  const body = request.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object' || typeof body.days !== 'string') return;
  if (!(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return;
  try {
    body.days = JSON.parse(body.days);
  } catch {
    // validation answers "days must be an object" in plain words
  }
}

export function timeRoutes(app: HearthApp, { time }: Services): void {
  const parent = routeGroup(app, { access: 'session', tags, errors });
  parent.patch(
    '/api/household',
    {
      access: 'session:admin',
      summary: 'Rename the household or set its time zone (owner or admin)',
      body: UpdateHouseholdBody,
      reply: HouseholdView,
      errors: errorBodies(400, 401, 403),
    },
    (actor, request) => time.updateHousehold(actor, request.body),
  );
  parent.get(
    '/api/managed-users/:id/schedule',
    { summary: "The child's weekly schedule", params: IdParams, reply: ScheduleView },
    (actor, request) => time.schedule(actor, request.params.id),
  );
  parent.post(
    '/weekly-schedule/update',
    {
      summary: 'Change some days of a weekly schedule (JSON, or a form with days as a JSON string)',
      body: UpdateScheduleBody,
      reply: ScheduleView,
      preValidation: formDays,
    },
    (actor, request) => time.updateSchedule(actor, request.body),
  );
  parent.post(
    '/api/modify-time',
    { summary: 'Add or take away minutes for a day', body: ModifyTimeBody, reply: ModifyTimeView },
    (actor, request) => time.modifyTime(actor, request.body),
  );
  parent.post(
    '/api/managed-users/:id/pause',
    {
      summary: 'Pause the child on all devices, for some minutes or until resumed',
      params: IdParams,
      body: PauseBody,
      reply: UsageView,
      preValidation: optionalBody,
    },
    (actor, request) => time.pause(actor, request.params.id, request.body),
  );
  parent.post(
    '/api/managed-users/:id/resume',
    { summary: 'End the pause on all devices', params: IdParams, reply: UsageView },
    (actor, request) => time.resume(actor, request.params.id),
  );
  parent.get(
    '/api/schedule-sync-status/:user_id',
    {
      summary: 'Whether each mapped account has applied the current time policy',
      params: UserIdParams,
      reply: ScheduleSyncView,
    },
    (actor, request) => time.syncStatus(actor, request.params.user_id),
  );
  parent.get(
    '/api/user/:id/usage',
    { summary: "Today's usage and state", params: IdParams, reply: UsageView },
    (actor, request) => time.usage(actor, request.params.id),
  );
}
