// What the signed-in parent may do for each child (DESIGN §3): owners and admins hold every right; a
// member holds what an owner or admin granted them per child, which the household's parent list says.
import { useSession } from '../session';
import { keys } from './keys';
import { useResource } from './query';
import type { ParentList } from './types';

export interface ChildRights {
  /** False until a member's grants are loaded; owners and admins know at once. */
  known: boolean;
  /** May change the child's device restrictions, take and see screenshots (`can_manage_policies`). */
  canManage(childId: string): boolean;
}

export function useChildRights(): ChildRights {
  const { session, isAdmin } = useSession();
  const parents = useResource<ParentList>(keys.parents(), '/api/household/parents', { enabled: !isAdmin });
  if (isAdmin) return { known: true, canManage: () => true };
  const me = parents.data?.items.find((p) => p.id === session?.parent.id);
  const managed = new Set(me?.children.filter((c) => c.can_manage_policies).map((c) => c.managed_user_id));
  return { known: !!parents.data, canManage: (childId) => managed.has(childId) };
}
