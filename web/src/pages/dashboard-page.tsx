import { Button, Card, EmptyState, Group, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router-dom';
import type { ManagedUserView, UserList } from '../api/types';
import { useApi } from '../api/use-api';
import { AgeTierBadge, ChildAvatar } from '../components/child-bits';
import { IconChevronRight, IconHeart, IconPlus } from '../components/icons';
import { ErrorAlert, PageHeader } from '../components/page';
import { plural } from '../labels';
import { useSession, useSignedIn } from '../session';

function ChildCard({ child }: { child: ManagedUserView }) {
  return (
    <Card withBorder radius="lg" padding="lg" data-testid="child-card">
      <Stack gap="md" h="100%" justify="space-between">
        <Group wrap="nowrap" align="flex-start" gap="md">
          <ChildAvatar name={child.name} size="lg" />
          <Stack gap={6} style={{ minWidth: 0 }}>
            <Title order={3} fz="lg" style={{ overflowWrap: 'anywhere' }}>
              {child.name}
            </Title>
            <Group gap="xs">
              <AgeTierBadge tier={child.overlay_age_tier} />
              <Text size="sm" c="dimmed">
                {plural(child.mappings.length, 'device')}
              </Text>
            </Group>
          </Stack>
        </Group>
        <Button
          component={Link}
          to={`/children/${encodeURIComponent(child.id)}`}
          variant="light"
          rightSection={<IconChevronRight size={16} />}
          aria-label={`Open ${child.name}`}
        >
          Open
        </Button>
      </Stack>
    </Card>
  );
}

export function DashboardPage() {
  const session = useSignedIn();
  const { isAdmin } = useSession();
  const users = useApi<UserList>('/api/users');
  const children = users.data?.items;

  return (
    <>
      <PageHeader
        title={session.household.name}
        documentTitle="Dashboard"
        description={`Hello, ${session.parent.username}. Here is your household at a glance.`}
      />
      <Stack gap="md">
        <Group justify="space-between">
          <Title order={2} fz="xl">
            Children
          </Title>
          {children?.length && isAdmin ? (
            <Button component={Link} to="/children" variant="subtle" leftSection={<IconPlus size={16} />}>
              Add child
            </Button>
          ) : null}
        </Group>
        {users.error && !children ? <ErrorAlert error={users.error} onRetry={users.reload} /> : null}
        {!children && !users.error ? (
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} aria-busy="true">
            <Skeleton h={150} radius="lg" />
            <Skeleton h={150} radius="lg" />
            <Skeleton h={150} radius="lg" visibleFrom="lg" />
          </SimpleGrid>
        ) : null}
        {children?.length === 0 ? (
          <Card withBorder radius="lg" py="xl">
            <EmptyState
              icon={<IconHeart size={28} />}
              variant="light"
              title={isAdmin ? 'Add your first child' : 'No children to show yet'}
              description={
                isAdmin
                  ? 'Hearth looks after your children’s devices. Start by adding a child; then connect the devices they use.'
                  : 'An owner or admin of the household can add children and share them with you.'
              }
            >
              {isAdmin ? (
                <EmptyState.Actions>
                  <Button component={Link} to="/children" leftSection={<IconPlus size={16} />}>
                    Add your first child
                  </Button>
                </EmptyState.Actions>
              ) : null}
            </EmptyState>
          </Card>
        ) : null}
        {children?.length ? (
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
            {children.map((child) => (
              <ChildCard key={child.id} child={child} />
            ))}
          </SimpleGrid>
        ) : null}
      </Stack>
    </>
  );
}
