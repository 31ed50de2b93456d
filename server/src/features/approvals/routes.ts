import {
  AgentAccountQuery,
  AgentAccountView,
  AgentApprovalRequestBody,
  ApprovalQuery,
  ApprovalSettingsBody,
  ApprovalSettingsView,
  ApprovalView,
  ApproveBody,
  CreateGrantBody,
  GrantView,
  Items,
  LogLoginBody,
  OnlineAccountQuery,
  OnlineAccountView,
  RegistrationCheckQuery,
  RegistrationCheckView,
  RegistrationRequestBody,
  RegistrationRequestView,
} from '@hearth/protocol';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { optionalBody } from '../../platform/http.js';
import { errorBodies, IdParams, routeGroup } from '../../platform/route-kit.js';
import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';

const errors = errorBodies(400, 401, 403, 404, 409, 429);
const PASSWORD_LIKE = /pass|pwd|secret|token|otp|pin|credential/i;

/**
 * Login capture never keeps a password: any password-like field is removed before validation, by name,
 * without its value being read, copied or logged.
 */
async function dropPasswordFields(request: FastifyRequest): Promise<void> {
  const body = request.body as Record<string, unknown> | null;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return;
  for (const key of Object.keys(body)) if (PASSWORD_LIKE.test(key)) delete body[key];
}

export function approvalRoutes(app: HearthApp, { approvals, signups, onlineAccounts }: Services): void {
  const agent = routeGroup(app, { access: 'bearer', tags: ['registration'], errors });
  agent.get(
    '/api/registration/check',
    {
      summary: 'May this account sign up on this domain?',
      querystring: RegistrationCheckQuery,
      reply: RegistrationCheckView,
    },
    (device, request) => signups.check(device, request.query.domain, request.query.linux_username),
  );
  agent.get(
    '/api/agent/account',
    {
      summary:
        "One account of the device: its child, the child's overlay tier and note, and whether sign-ups wait",
      querystring: AgentAccountQuery,
      reply: AgentAccountView,
    },
    (device, request) => signups.account(device, request.query.linux_username),
  );
  agent.post(
    '/api/registration/request',
    {
      summary: 'Ask a parent to allow a sign-up (201 new, 200 already pending or already allowed)',
      body: RegistrationRequestBody,
      reply: RegistrationRequestView,
      also: { 201: RegistrationRequestView },
    },
    async (device, request, reply) => {
      const { created, view } = await signups.requestSignup(device, request.body);
      reply.code(created ? 201 : 200);
      return view;
    },
  );
  agent.post(
    '/api/registration/log-login',
    {
      summary: 'Record a login seen by the extension (the password is never sent or kept)',
      preValidation: dropPasswordFields,
      body: LogLoginBody,
      reply: OnlineAccountView,
    },
    (device, request) => onlineAccounts.logLogin(device, request.body),
  );
  agent.post(
    '/api/approvals/request',
    {
      tags: ['approvals'],
      summary: 'An agent asks for more time, an app or an unblocked domain',
      body: AgentApprovalRequestBody,
      reply: RegistrationRequestView,
      also: { 201: RegistrationRequestView },
    },
    async (device, request, reply) => {
      const { created, view } = await approvals.requestOther(device, request.body);
      reply.code(created ? 201 : 200);
      return view;
    },
  );

  const parent = routeGroup(app, { access: 'session', tags: ['approvals'], errors });
  parent.get(
    '/api/approvals',
    { summary: 'Approval requests, newest first', querystring: ApprovalQuery, reply: Items(ApprovalView) },
    async (actor, request) => ({ items: await approvals.list(actor, request.query) }),
  );
  parent.post(
    '/api/approvals/:id/approve',
    {
      summary: 'Approve (grant once by default, or persistent; minutes for time extensions)',
      params: IdParams,
      body: ApproveBody,
      reply: ApprovalView,
      preValidation: optionalBody,
    },
    (actor, request) => approvals.approve(actor, request.params.id, request.body),
  );
  parent.post(
    '/api/approvals/:id/deny',
    { summary: 'Deny', params: IdParams, reply: ApprovalView },
    (actor, request) => approvals.deny(actor, request.params.id),
  );
  parent.get(
    '/api/mappings/:id/approval-settings',
    { summary: 'Approval settings of a device mapping', params: IdParams, reply: ApprovalSettingsView },
    (actor, request) => signups.settings(actor, request.params.id),
  );
  parent.post(
    '/api/mappings/:id/approval-settings',
    {
      summary: 'Turn Enforce Sign-up Approvals on or off (takes effect on the next check)',
      params: IdParams,
      body: ApprovalSettingsBody,
      reply: ApprovalSettingsView,
    },
    (actor, request) => signups.settings(actor, request.params.id, request.body),
  );
  parent.get(
    '/api/mappings/:id/approval-grants',
    { summary: 'Sign-up grants of a mapping', params: IdParams, reply: Items(GrantView) },
    async (actor, request) => ({ items: await signups.grants(actor, request.params.id) }),
  );
  parent.post(
    '/api/mappings/:id/approval-grants',
    {
      summary: 'Allow sign-ups on a domain',
      params: IdParams,
      body: CreateGrantBody,
      reply: GrantView,
      status: 201,
    },
    (actor, request) => signups.addGrant(actor, request.params.id, request.body),
  );
  parent.delete(
    '/api/mappings/:id/approval-grants/:grant_id',
    {
      summary: 'Revoke a grant',
      params: Type.Object({
        id: Type.String({ minLength: 1, maxLength: 64 }),
        grant_id: Type.String({ minLength: 1, maxLength: 64 }),
      }),
      reply: Type.Object({ id: Type.String(), deleted: Type.Boolean() }),
    },
    (actor, request) => signups.removeGrant(actor, request.params.id, request.params.grant_id),
  );
  parent.get(
    '/api/online-accounts',
    {
      tags: ['online-accounts'],
      summary: 'Accounts children signed in to, searchable and sortable',
      querystring: OnlineAccountQuery,
      reply: Items(OnlineAccountView),
    },
    async (actor, request) => ({ items: await onlineAccounts.list(actor, request.query) }),
  );
}
