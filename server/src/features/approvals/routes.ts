import {
  AgentApprovalRequestBody,
  ApprovalQuery,
  ApprovalSettingsBody,
  ApprovalSettingsView,
  ApprovalView,
  ApproveBody,
  CreateGrantBody,
  ErrorBody,
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
import { requireDevice, requireSession } from '../../platform/access.js';
import { optionalBody } from '../../platform/http.js';
import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';

const errors = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  429: ErrorBody,
};
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
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
  const reg = ['registration'];
  app.get(
    '/api/registration/check',
    {
      config: { access: 'bearer' },
      schema: {
        tags: reg,
        summary: 'May this account sign up on this domain?',
        querystring: RegistrationCheckQuery,
        response: { 200: RegistrationCheckView, ...errors },
      },
    },
    async (request) =>
      signups.check(requireDevice(request), request.query.domain, request.query.linux_username),
  );

  app.post(
    '/api/registration/request',
    {
      config: { access: 'bearer' },
      schema: {
        tags: reg,
        summary: 'Ask a parent to allow a sign-up (201 new, 200 already pending or already allowed)',
        body: RegistrationRequestBody,
        response: { 200: RegistrationRequestView, 201: RegistrationRequestView, ...errors },
      },
    },
    async (request, reply) => {
      const { created, view } = await signups.requestSignup(requireDevice(request), request.body);
      return reply.code(created ? 201 : 200).send(view);
    },
  );

  app.post(
    '/api/registration/log-login',
    {
      config: { access: 'bearer' },
      preValidation: dropPasswordFields,
      schema: {
        tags: reg,
        summary: 'Record a login seen by the extension (the password is never sent or kept)',
        body: LogLoginBody,
        response: { 200: OnlineAccountView, ...errors },
      },
    },
    async (request) => onlineAccounts.logLogin(requireDevice(request), request.body),
  );

  const tags = ['approvals'];
  app.post(
    '/api/approvals/request',
    {
      config: { access: 'bearer' },
      schema: {
        tags,
        summary: 'An agent asks for more time, an app or an unblocked domain',
        body: AgentApprovalRequestBody,
        response: { 200: RegistrationRequestView, 201: RegistrationRequestView, ...errors },
      },
    },
    async (request, reply) => {
      const { created, view } = await approvals.requestOther(requireDevice(request), request.body);
      return reply.code(created ? 201 : 200).send(view);
    },
  );

  app.get(
    '/api/approvals',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Approval requests, newest first',
        querystring: ApprovalQuery,
        response: { 200: Items(ApprovalView), ...errors },
      },
    },
    async (request) => ({ items: await approvals.list(requireSession(request), request.query) }),
  );

  app.post(
    '/api/approvals/:id/approve',
    {
      config: { access: 'session' },
      preValidation: optionalBody,
      schema: {
        tags,
        summary: 'Approve (grant once by default, or persistent; minutes for time extensions)',
        params: IdParams,
        body: ApproveBody,
        response: { 200: ApprovalView, ...errors },
      },
    },
    async (request) => approvals.approve(requireSession(request), request.params.id, request.body),
  );

  app.post(
    '/api/approvals/:id/deny',
    {
      config: { access: 'session' },
      schema: { tags, summary: 'Deny', params: IdParams, response: { 200: ApprovalView, ...errors } },
    },
    async (request) => approvals.deny(requireSession(request), request.params.id),
  );

  app.get(
    '/api/mappings/:id/approval-settings',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Approval settings of a device mapping',
        params: IdParams,
        response: { 200: ApprovalSettingsView, ...errors },
      },
    },
    async (request) => signups.settings(requireSession(request), request.params.id),
  );

  app.post(
    '/api/mappings/:id/approval-settings',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Turn Enforce Sign-up Approvals on or off (takes effect on the next check)',
        params: IdParams,
        body: ApprovalSettingsBody,
        response: { 200: ApprovalSettingsView, ...errors },
      },
    },
    async (request) => signups.settings(requireSession(request), request.params.id, request.body),
  );

  app.get(
    '/api/mappings/:id/approval-grants',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Sign-up grants of a mapping',
        params: IdParams,
        response: { 200: Items(GrantView), ...errors },
      },
    },
    async (request) => ({ items: await signups.grants(requireSession(request), request.params.id) }),
  );

  app.post(
    '/api/mappings/:id/approval-grants',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Allow sign-ups on a domain',
        params: IdParams,
        body: CreateGrantBody,
        response: { 201: GrantView, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await signups.addGrant(requireSession(request), request.params.id, request.body)),
  );

  app.delete(
    '/api/mappings/:id/approval-grants/:grant_id',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Revoke a grant',
        params: Type.Object({
          id: Type.String({ minLength: 1, maxLength: 64 }),
          grant_id: Type.String({ minLength: 1, maxLength: 64 }),
        }),
        response: { 200: Type.Object({ id: Type.String(), deleted: Type.Boolean() }), ...errors },
      },
    },
    async (request) =>
      signups.removeGrant(requireSession(request), request.params.id, request.params.grant_id),
  );

  app.get(
    '/api/online-accounts',
    {
      config: { access: 'session' },
      schema: {
        tags: ['online-accounts'],
        summary: 'Accounts children signed in to, searchable and sortable',
        querystring: OnlineAccountQuery,
        response: { 200: Items(OnlineAccountView), ...errors },
      },
    },
    async (request) => ({ items: await onlineAccounts.list(requireSession(request), request.query) }),
  );
}
