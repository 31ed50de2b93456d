import {
  AddMappingBody,
  CreateUserBody,
  ErrorBody,
  Items,
  ManagedUserView,
  MappingView,
  OverlayBody,
  OverlayView,
  StatsView,
  UsageView,
  ValidationView,
} from '@hearth/protocol';
import { Type } from '@sinclair/typebox';
import { requireSession } from '../../platform/access.js';

const tags = ['users'];
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody };
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const UserIdParams = Type.Object({ user_id: Type.String({ minLength: 1, maxLength: 64 }) });
/** Form posts from a browser get a redirect; API clients that send or accept JSON get JSON. */
export function wantsJson(request) {
  if ((request.headers['content-type'] ?? '').startsWith('application/json')) return true;
  const accept = request.headers.accept ?? '';
  return accept.includes('application/json') && !accept.includes('text/html');
}
export function userRoutes(app, { users }) {
  app.get(
    '/api/users',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Children the parent may see, newest first',
        response: { 200: Items(ManagedUserView), 401: ErrorBody },
      },
    },
    async (request) => ({ items: await users.list(requireSession(request)) }),
  );
  app.get(
    '/api/user/:id',
    {
      config: { access: 'session' },
      schema: { tags, summary: 'One child', params: IdParams, response: { 200: ManagedUserView, ...errors } },
    },
    async (request) => users.get(requireSession(request), request.params.id),
  );
  app.post(
    '/api/user/create',
    {
      config: { access: 'session:admin' },
      schema: {
        tags,
        summary: 'Create a child (JSON)',
        body: CreateUserBody,
        response: { 201: ManagedUserView, ...errors },
      },
    },
    async (request, reply) => reply.code(201).send(await users.create(requireSession(request), request.body)),
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
  app.get(
    '/users/validate/:id',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Check every mapping of the child',
        params: IdParams,
        response: { 200: ValidationView, ...errors },
      },
    },
    async (request) => users.validate(requireSession(request), request.params.id),
  );
  app.patch(
    '/managed-users/:user_id/overlay',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Set the Hearth Space age tier and parent note (null clears)',
        params: UserIdParams,
        body: OverlayBody,
        response: { 200: OverlayView, ...errors },
      },
    },
    async (request) => users.updateOverlay(requireSession(request), request.params.user_id, request.body),
  );
  app.get(
    '/api/user/:id/usage',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: "Today's usage snapshot",
        params: IdParams,
        response: { 200: UsageView, ...errors },
      },
    },
    async (request) => users.usage(requireSession(request), request.params.id),
  );
  app.get(
    '/api/user/:id/stats',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Daily usage over recent days',
        params: IdParams,
        querystring: Type.Object(
          { days: Type.Optional(Type.Integer({ minimum: 1, maximum: 90, default: 7 })) },
          { additionalProperties: false },
        ),
        response: { 200: StatsView, ...errors },
      },
    },
    async (request) => users.stats(requireSession(request), request.params.id, request.query.days ?? 7),
  );
}
//# sourceMappingURL=routes.js.map
