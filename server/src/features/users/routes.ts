import {
  AddMappingBody,
  CreateUserBody,
  DeletedView,
  Items,
  ManagedUserView,
  MappingView,
  OverlayBody,
  OverlayView,
  RenameUserBody,
  ValidationView,
} from '@hearth/protocol';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { requireSession } from '../../platform/access.js';
import { errorBodies, IdParams, routeGroup } from '../../platform/route-kit.js';
import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';

const tags = ['users'];
const errors = errorBodies(400, 401, 403, 404, 409);
const UserIdParams = Type.Object({ user_id: Type.String({ minLength: 1, maxLength: 64 }) });

/** Form posts from a browser get a redirect; API clients that send or accept JSON get JSON. */
export function wantsJson(request: FastifyRequest): boolean {
  if ((request.headers['content-type'] ?? '').startsWith('application/json')) return true;
  const accept = request.headers.accept ?? '';
  return accept.includes('application/json') && !accept.includes('text/html');
}

export function userRoutes(app: HearthApp, { users }: Services): void {
  const parent = routeGroup(app, { access: 'session', tags, errors });
  parent.get(
    '/api/users',
    {
      summary: 'Children the parent may see, newest first',
      reply: Items(ManagedUserView),
      errors: errorBodies(401),
    },
    async (actor) => ({ items: await users.list(actor) }),
  );
  parent.get(
    '/api/user/:id',
    { summary: 'One child', params: IdParams, reply: ManagedUserView },
    (actor, request) => users.get(actor, request.params.id),
  );
  parent.post(
    '/api/user/create',
    {
      access: 'session:admin',
      summary: 'Create a child (JSON)',
      body: CreateUserBody,
      reply: ManagedUserView,
      status: 201,
    },
    (actor, request) => users.create(actor, request.body),
  );

  app.post(
    '/managed-users/add',
    {
      config: { access: 'session:admin' },
      schema: {
        tags,
        summary: 'Create a child from a form (303 to its page) or JSON (201)',
        body: CreateUserBody,
        response: { 201: ManagedUserView, 303: Type.Null(), ...errors },
      },
    },
    async (request, reply) => {
      const user = await users.create(requireSession(request), request.body);
      if (wantsJson(request)) return reply.code(201).send(user);
      return reply.redirect(`/children/${encodeURIComponent(user.id)}`, 303);
    },
  );

  app.post(
    '/managed-users/:id/mappings/add',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Map an account on a device to the child',
        params: IdParams,
        body: AddMappingBody,
        response: { 201: MappingView, 303: Type.Null(), ...errors },
      },
    },
    async (request, reply) => {
      const mapping = await users.addMapping(requireSession(request), request.params.id, request.body);
      if (wantsJson(request)) return reply.code(201).send(mapping);
      return reply.redirect(`/children/${encodeURIComponent(request.params.id)}`, 303);
    },
  );

  parent.patch(
    '/api/managed-users/:id',
    {
      access: 'session:admin',
      summary: 'Rename a child (owner or admin)',
      params: IdParams,
      body: RenameUserBody,
      reply: ManagedUserView,
    },
    (actor, request) => users.rename(actor, request.params.id, request.body),
  );
  parent.delete(
    '/api/managed-users/:id',
    {
      access: 'session:admin',
      summary:
        'Remove a child with their mappings, grants, requests and rules (owner or admin); alerts stay without the child',
      params: IdParams,
      reply: DeletedView,
    },
    (actor, request) => users.remove(actor, request.params.id),
  );
  parent.delete(
    '/api/mappings/:id',
    {
      summary: "Unlink a device account from its child (needs the right to manage the child's policies)",
      params: IdParams,
      reply: DeletedView,
    },
    (actor, request) => users.removeMapping(actor, request.params.id),
  );

  parent.get(
    '/users/validate/:id',
    { summary: 'Check every mapping of the child', params: IdParams, reply: ValidationView },
    (actor, request) => users.validate(actor, request.params.id),
  );
  parent.patch(
    '/managed-users/:user_id/overlay',
    {
      summary: 'Set the Hearth Space age tier and parent note (null clears)',
      params: UserIdParams,
      body: OverlayBody,
      reply: OverlayView,
    },
    (actor, request) => users.updateOverlay(actor, request.params.user_id, request.body),
  );
}
