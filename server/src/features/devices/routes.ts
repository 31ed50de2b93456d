import {
  ApproveDeviceBody,
  CommandOutcome,
  DeviceDecision,
  DeviceDeleted,
  DeviceView,
  ErrorBody,
  Items,
  OverlayControlBody,
  RenameDeviceBody,
  SystemIdParams,
} from '@hearth/protocol';
import { Type } from '@sinclair/typebox';
import { requireDevice } from '../../platform/access.js';
import { optionalBody } from '../../platform/http.js';
import { errorBodies, routeGroup } from '../../platform/route-kit.js';
import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';

const tags = ['devices'];
const errors = errorBodies(400, 401, 403, 404, 409);

export function deviceRoutes(app: HearthApp, { devices }: Services): void {
  const parent = routeGroup(app, { access: 'session', tags, errors });
  const listed = { reply: Items(DeviceView), errors: errorBodies(401) };
  parent.get(
    '/api/devices',
    { summary: 'Devices the parent may see, newest first', ...listed },
    async (actor) => ({
      items: await devices.list(actor, false),
    }),
  );
  parent.get(
    '/api/devices/pending',
    { summary: 'Devices waiting for approval', ...listed },
    async (actor) => ({
      items: await devices.list(actor, true),
    }),
  );
  const one = { params: SystemIdParams };
  parent.get(
    '/api/devices/:system_id',
    { summary: 'One device', ...one, reply: DeviceView },
    (actor, request) => devices.get(actor, request.params.system_id),
  );
  parent.patch(
    '/api/devices/:system_id',
    {
      summary:
        'Rename a device: the name shown everywhere and on Hearth Space (owner, admin, or managing a child on it)',
      ...one,
      body: RenameDeviceBody,
      reply: DeviceView,
    },
    (actor, request) => devices.rename(actor, request.params.system_id, request.body),
  );
  parent.delete(
    '/api/devices/:system_id',
    {
      summary: 'Remove a rejected or unenrolled device and what hangs on it (owner or admin)',
      ...one,
      reply: DeviceDeleted,
    },
    (actor, request) => devices.remove(actor, request.params.system_id),
  );
  parent.post(
    '/api/device/approve/:system_id',
    {
      summary: 'Approve a pending device; its agent receives its token (pairing_approved)',
      ...one,
      body: ApproveDeviceBody,
      reply: DeviceDecision,
      preValidation: optionalBody,
    },
    (actor, request) => devices.approve(actor, request.params.system_id, request.body),
  );
  parent.post(
    '/api/device/reject/:system_id',
    { summary: 'Reject a pending device', ...one, reply: DeviceDecision },
    (actor, request) => devices.reject(actor, request.params.system_id),
  );
  parent.post(
    '/api/device/:system_id/unenroll',
    { summary: 'Unenroll an approved device (owner or admin)', ...one, reply: DeviceDecision },
    (actor, request) => devices.unenroll(actor, request.params.system_id),
  );
  parent.post(
    '/api/devices/:system_id/overlay',
    {
      summary: 'Show or dismiss Hearth Space on a device account (queued while the device is offline)',
      ...one,
      body: OverlayControlBody,
      reply: CommandOutcome,
    },
    (actor, request) => devices.overlay(actor, request.params.system_id, request.body),
  );
  parent.post(
    '/api/devices/:system_id/clear-clock-tamper',
    { summary: 'Lift a clock-tamper lockdown (parent override)', ...one, reply: CommandOutcome },
    (actor, request) => devices.clearClockTamper(actor, request.params.system_id),
  );

  app.get(
    '/api/agent/accounts',
    {
      config: { access: 'bearer' },
      schema: {
        tags: ['agent'],
        summary: "The calling device's mapped accounts and their Hearth Space settings",
        security: [{ device: [] }],
        response: {
          200: Type.Object({
            system_id: Type.String(),
            display_name: Type.String(),
            accounts: Type.Array(
              Type.Object({
                linux_username: Type.String(),
                managed_user_id: Type.String(),
                managed_user_name: Type.String(),
                overlay_age_tier: Type.String(),
                overlay_parent_note: Type.Union([Type.String(), Type.Null()]),
              }),
            ),
          }),
          401: ErrorBody,
          429: ErrorBody,
        },
      },
    },
    async (request) => devices.agentAccounts(requireDevice(request)),
  );
}
