import {
  ApproveDeviceBody,
  CommandOutcome,
  DeviceDecision,
  DeviceView,
  ErrorBody,
  Items,
  OverlayControlBody,
  SystemIdParams,
} from '@hearth/protocol';
import { Type } from '@sinclair/typebox';
import { requireDevice, requireSession } from '../../platform/access.js';
import { optionalBody } from '../../platform/http.js';
import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';

const tags = ['devices'];
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody };

export function deviceRoutes(app: HearthApp, { devices }: Services): void {
  app.get(
    '/api/devices',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Devices the parent may see, newest first',
        response: { 200: Items(DeviceView), 401: ErrorBody },
      },
    },
    async (request) => ({ items: await devices.list(requireSession(request), false) }),
  );

  app.get(
    '/api/devices/pending',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Devices waiting for approval',
        response: { 200: Items(DeviceView), 401: ErrorBody },
      },
    },
    async (request) => ({ items: await devices.list(requireSession(request), true) }),
  );

  app.get(
    '/api/devices/:system_id',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'One device',
        params: SystemIdParams,
        response: { 200: DeviceView, ...errors },
      },
    },
    async (request) => devices.get(requireSession(request), request.params.system_id),
  );

  app.post(
    '/api/device/approve/:system_id',
    {
      config: { access: 'session' },
      preValidation: optionalBody,
      schema: {
        tags,
        summary: 'Approve a pending device; its agent receives its token (pairing_approved)',
        params: SystemIdParams,
        body: ApproveDeviceBody,
        response: { 200: DeviceDecision, ...errors },
      },
    },
    async (request) => devices.approve(requireSession(request), request.params.system_id, request.body),
  );

  app.post(
    '/api/device/reject/:system_id',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Reject a pending device',
        params: SystemIdParams,
        response: { 200: DeviceDecision, ...errors },
      },
    },
    async (request) => devices.reject(requireSession(request), request.params.system_id),
  );

  app.post(
    '/api/device/:system_id/unenroll',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Unenroll an approved device (owner or admin)',
        params: SystemIdParams,
        response: { 200: DeviceDecision, ...errors },
      },
    },
    async (request) => devices.unenroll(requireSession(request), request.params.system_id),
  );

  app.post(
    '/api/devices/:system_id/overlay',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Show or dismiss Hearth Space on a device account (queued while the device is offline)',
        params: SystemIdParams,
        body: OverlayControlBody,
        response: { 200: CommandOutcome, ...errors },
      },
    },
    async (request) => devices.overlay(requireSession(request), request.params.system_id, request.body),
  );

  app.post(
    '/api/devices/:system_id/clear-clock-tamper',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Lift a clock-tamper lockdown (parent override)',
        params: SystemIdParams,
        response: { 200: CommandOutcome, ...errors },
      },
    },
    async (request) => devices.clearClockTamper(requireSession(request), request.params.system_id),
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
