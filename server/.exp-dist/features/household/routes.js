import { CreateParentBody, ErrorBody, Items, ParentView, UpdateParentBody } from '@hearth/protocol';
import { Type } from '@sinclair/typebox';
import { requireSession } from '../../platform/access.js';

const tags = ['household'];
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody };
export function householdRoutes(app, { household }) {
  app.get(
    '/api/household/parents',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Parents of the household',
        response: { 200: Items(ParentView), 401: ErrorBody },
      },
    },
    async (request) => ({ items: await household.listParents(requireSession(request)) }),
  );
  app.post(
    '/api/household/parents',
    {
      config: { access: 'session:admin' },
      schema: {
        tags,
        summary: 'Add a parent or carer',
        body: CreateParentBody,
        response: { 201: ParentView, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await household.createParent(requireSession(request), request.body)),
  );
  app.patch(
    '/api/household/parents/:id',
    {
      config: { access: 'session:admin' },
      schema: {
        tags,
        summary: "Change a parent's role, children or password",
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
        body: UpdateParentBody,
        response: { 200: ParentView, ...errors },
      },
    },
    async (request) => household.updateParent(requireSession(request), request.params.id, request.body),
  );
}
//# sourceMappingURL=routes.js.map
