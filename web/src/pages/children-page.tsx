import {
  Button,
  Card,
  EmptyState,
  Group,
  Paper,
  Select,
  Skeleton,
  Stack,
  Text,
  TextInput,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router-dom';
import { fieldErrorsOf, messageOf } from '../api/client';
import { useCreateChild } from '../api/mutations';
import { useUsers } from '../api/resources';
import type { ManagedUserView } from '../api/types';
import { ChildAvatar, ChildTierLine } from '../components/child-bits';
import { IconChevronRight, IconChildren, IconPlus } from '../components/icons';
import { ErrorAlert, notifySaved, PageHeader } from '../components/page';
import { AGE_TIER_OPTIONS, ageTierFromOption, NAME_MAX_LENGTH } from '../labels';
import { useSession } from '../session';

function AddChildForm({ onAdded }: { onAdded: (child: ManagedUserView) => void }) {
  const [name, setName] = useState('');
  const [tier, setTier] = useState<string | null>('');
  const [nameError, setNameError] = useState<string | null>(null);
  const create = useCreateChild();
  const serverName = fieldErrorsOf(create.error, { name: 'The name' }).name;

  function submit(event: FormEvent) {
    event.preventDefault();
    create.reset();
    if (!name.trim()) {
      setNameError('Enter the child’s name.');
      return;
    }
    setNameError(null);
    const overlay_age_tier = ageTierFromOption(tier);
    create.mutate(
      { name: name.trim(), ...(overlay_age_tier ? { overlay_age_tier } : {}) },
      {
        onSuccess: (child) => {
          onAdded(child);
          notifySaved(`${child.name} was added.`);
          setName('');
          setTier('');
        },
      },
    );
  }

  return (
    <Card withBorder radius="lg" padding="lg">
      <form onSubmit={submit} noValidate aria-label="Add child">
        <Stack gap="md">
          <Title order={2} fz="lg">
            Add child
          </Title>
          <ErrorAlert
            error={create.error && !serverName ? messageOf(create.error) : null}
            title="The child was not added"
          />
          <Group align="flex-start" gap="md" grow preventGrowOverflow={false} wrap="wrap">
            <TextInput
              label="Name"
              placeholder="Ann"
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              error={nameError ?? serverName}
              maxLength={NAME_MAX_LENGTH}
              required
              miw={200}
            />
            <Select
              label="Age group"
              description="Optional; tunes the Hearth Space screen."
              data={AGE_TIER_OPTIONS}
              value={tier}
              onChange={setTier}
              allowDeselect={false}
              miw={200}
            />
          </Group>
          <Group justify="flex-end">
            <Button type="submit" loading={create.isPending} leftSection={<IconPlus size={16} />}>
              Add child
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

function ChildRow({ child }: { child: ManagedUserView }) {
  return (
    <UnstyledButton
      component={Link}
      to={`/children/${encodeURIComponent(child.id)}`}
      p="md"
      data-testid="child-row"
      style={{ display: 'block', borderRadius: 'var(--mantine-radius-md)' }}
      className="hearth-row"
    >
      <Group wrap="nowrap" gap="md">
        <ChildAvatar name={child.name} />
        <Stack gap={4} style={{ flex: 1, minWidth: 0 }}>
          <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
            {child.name}
          </Text>
          <ChildTierLine child={child} />
        </Stack>
        <IconChevronRight size={18} />
      </Group>
    </UnstyledButton>
  );
}

export function ChildrenPage() {
  const { isAdmin } = useSession();
  const users = useUsers();
  const children = users.data?.items;

  return (
    <>
      <PageHeader
        title="Children"
        description="Each child has their own Hearth Space settings and the devices they use."
      />
      <Stack gap="lg">
        {isAdmin ? (
          <AddChildForm
            onAdded={(child) => users.setData((current) => ({ items: [child, ...(current?.items ?? [])] }))}
          />
        ) : (
          <Text c="dimmed" size="sm">
            Only an owner or admin of the household can add children.
          </Text>
        )}
        {users.error && !children ? <ErrorAlert error={users.error} onRetry={users.reload} /> : null}
        {!children && !users.error ? (
          <Stack gap="sm" aria-busy="true">
            <Skeleton h={72} radius="md" />
            <Skeleton h={72} radius="md" />
          </Stack>
        ) : null}
        {children?.length === 0 ? (
          <Card withBorder radius="lg" py="xl">
            <EmptyState
              icon={<IconChildren size={28} />}
              variant="light"
              title="No children yet"
              description={
                isAdmin
                  ? 'Add a child above; you can then connect their devices and set up their Hearth Space.'
                  : 'When an owner or admin shares a child with you, they will appear here.'
              }
            />
          </Card>
        ) : null}
        {children?.length ? (
          <Paper withBorder radius="lg" p="xs">
            <Stack gap={2} component="ul" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
              {children.map((child) => (
                <li key={child.id}>
                  <ChildRow child={child} />
                </li>
              ))}
            </Stack>
          </Paper>
        ) : null}
      </Stack>
    </>
  );
}
