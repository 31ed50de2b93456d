import {
  AndroidDevicePolicy,
  AndroidDevicePolicyView,
  LinuxDevicePolicy,
  LinuxDevicePolicyView,
  SystemIdParams,
} from '@hearth/protocol';
import { errorBodies, IdParams, routeGroup } from '../../platform/route-kit.js';
import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';

const errors = errorBodies(400, 401, 403, 404, 409);

/** DESIGN §12: the Linux and Android device policies, each a whole document replaced by PUT. */
export function devicePolicyRoutes(app: HearthApp, { devicePolicies }: Services): void {
  const parent = routeGroup(app, { access: 'session', tags: ['device policy'], errors });
  parent.get(
    '/api/mappings/:id/linux-device-policy',
    {
      summary: "A Linux account's restrictions, with their delivery",
      params: IdParams,
      reply: LinuxDevicePolicyView,
    },
    (actor, request) => devicePolicies.mappingPolicy(actor, request.params.id, 'linux'),
  );
  parent.put(
    '/api/mappings/:id/linux-device-policy',
    {
      summary: "Replace a Linux account's restrictions (pushed to the device)",
      params: IdParams,
      body: LinuxDevicePolicy,
      reply: LinuxDevicePolicyView,
    },
    (actor, request) =>
      devicePolicies.replaceMappingPolicy(actor, request.params.id, 'linux', request.body) as Promise<
        typeof LinuxDevicePolicyView.static
      >,
  );
  parent.get(
    '/api/mappings/:id/android-device-policy',
    {
      summary: "An Android profile's policy, with its delivery",
      params: IdParams,
      reply: AndroidDevicePolicyView,
    },
    (actor, request) => devicePolicies.mappingPolicy(actor, request.params.id, 'android'),
  );
  parent.put(
    '/api/mappings/:id/android-device-policy',
    {
      summary: "Replace an Android profile's policy (pushed to the device)",
      params: IdParams,
      body: AndroidDevicePolicy,
      reply: AndroidDevicePolicyView,
    },
    (actor, request) =>
      devicePolicies.replaceMappingPolicy(actor, request.params.id, 'android', request.body) as Promise<
        typeof AndroidDevicePolicyView.static
      >,
  );
  parent.get(
    '/api/devices/:system_id/android-device-policy',
    {
      summary: "An Android device's device-owner policy, with its delivery",
      params: SystemIdParams,
      reply: AndroidDevicePolicyView,
    },
    (actor, request) => devicePolicies.devicePolicy(actor, request.params.system_id),
  );
  parent.put(
    '/api/devices/:system_id/android-device-policy',
    {
      summary: "Replace an Android device's device-owner policy (a sensitive device route)",
      params: SystemIdParams,
      body: AndroidDevicePolicy,
      reply: AndroidDevicePolicyView,
    },
    (actor, request) => devicePolicies.replaceDevicePolicy(actor, request.params.system_id, request.body),
  );
}
