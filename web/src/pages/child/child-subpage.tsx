import { Skeleton, Stack } from '@mantine/core';
import type { ReactNode } from 'react';
import type { Resource } from '../../api/query';
import { useUser } from '../../api/resources';
import type { ManagedUserView } from '../../api/types';
import { BackToChild, ChildAvatar, ChildNotFound } from '../../components/child-bits';
import { ErrorAlert, PageHeader } from '../../components/page';

/**
 * A child's page that edits one thing of theirs (the Routine, the Websites): the back link, the
 * header with the child's name, "not found" for a missing or hidden child, what failed to load, a
 * skeleton while loading, and then the editor, made once both the child and `resource` are in.
 */
export function ChildEditorPage<T>({
  id,
  resource,
  noun,
  description,
  skeletonHeight,
  children,
}: {
  id: string;
  resource: Resource<T>;
  /** "routine", "websites": the page title is "<name>’s <noun>", the load error "Could not load the <noun>". */
  noun: string;
  description: string;
  skeletonHeight: number;
  children: (child: ManagedUserView, data: T) => ReactNode;
}) {
  const user = useUser(id);
  const child = user.data;
  if (user.error?.code === 'not_found' || resource.error?.code === 'not_found') return <ChildNotFound />;
  return (
    <>
      <BackToChild id={id} name={child?.name} />
      <PageHeader
        title={child ? `${child.name}’s ${noun}` : noun.charAt(0).toUpperCase() + noun.slice(1)}
        leading={child ? <ChildAvatar name={child.name} size="lg" /> : undefined}
        description={description}
      />
      {user.error && !child ? <ErrorAlert error={user.error} onRetry={user.reload} /> : null}
      {resource.error && !resource.data ? (
        <ErrorAlert error={resource.error} onRetry={resource.reload} title={`Could not load the ${noun}`} />
      ) : null}
      {child && resource.data ? (
        children(child, resource.data)
      ) : !user.error && !resource.error ? (
        <Stack gap="lg" aria-busy="true">
          <Skeleton h={48} radius="lg" />
          <Skeleton h={skeletonHeight} radius="lg" />
        </Stack>
      ) : null}
    </>
  );
}
