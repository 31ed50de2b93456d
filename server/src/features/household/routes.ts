import { CreateParentBody, DeletedView, Items, ParentView, UpdateParentBody } from '@hearth/protocol';
import { errorBodies, IdParams, routeGroup } from '../../platform/route-kit.js';
import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';

const tags = ['household'];
const errors = errorBodies(400, 401, 403, 404, 409);

export function householdRoutes(app: HearthApp, { household }: Services): void {
  const parent = routeGroup(app, { access: 'session', tags, errors });
  parent.get(
    '/api/household/parents',
    { summary: 'Parents of the household', reply: Items(ParentView), errors: errorBodies(401) },
    async (actor) => ({ items: await household.listParents(actor) }),
  );
  const admin = routeGroup(app, { access: 'session:admin', tags, errors });
  admin.post(
    '/api/household/parents',
    { summary: 'Add a parent or carer', body: CreateParentBody, reply: ParentView, status: 201 },
    (actor, request) => household.createParent(actor, request.body),
  );
  admin.patch(
    '/api/household/parents/:id',
    {
      summary: "Change a parent's username, role, children or password",
      params: IdParams,
      body: UpdateParentBody,
      reply: ParentView,
    },
    (actor, request) => household.updateParent(actor, request.params.id, request.body),
  );
  admin.delete(
    '/api/household/parents/:id',
    {
      summary: 'Remove a parent or carer (not yourself, nor the last owner)',
      params: IdParams,
      reply: DeletedView,
    },
    (actor, request) => household.removeParent(actor, request.params.id),
  );
}
