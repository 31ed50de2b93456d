import {
  Badge,
  Button,
  Card,
  Group,
  Modal,
  Paper,
  PasswordInput,
  Select,
  Skeleton,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { fieldErrorsOf, messageOf } from '../../api/client';
import { useAddParent, useUpdateParent } from '../../api/mutations';
import { useParents, useUsers } from '../../api/resources';
import type { ChildPermission, ManagedUserView, ParentRole, ParentView } from '../../api/types';
import { IconPlus } from '../../components/icons';
import { ErrorAlert, notifyError, notifySaved, PageHeader } from '../../components/page';
import { PASSWORD_MIN_LENGTH, ROLE_COLORS, ROLE_DESCRIPTIONS, ROLE_LABELS } from '../../labels';
import { useSession, useSignedIn } from '../../session';
import { BackgroundTasksCard } from './background-tasks';
import { ChildPermissionsEditor, grantedOnly } from './child-permissions';
import { RemoveParentButton } from './remove-parent';

function roleOptions(actorRole: ParentRole) {
  const roles: ParentRole[] = actorRole === 'owner' ? ['owner', 'admin', 'member'] : ['admin', 'member'];
  return roles.map((role) => ({ value: role, label: `${ROLE_LABELS[role]} — ${ROLE_DESCRIPTIONS[role]}` }));
}

function asRole(value: string | null, fallback: ParentRole): ParentRole {
  return value === 'owner' || value === 'admin' || value === 'member' ? value : fallback;
}

function describeAccess(parent: ParentView, childList: ManagedUserView[]): string {
  if (parent.role !== 'member') return 'All children';
  if (!parent.children.length) return 'No children yet';
  const names = new Map(childList.map((c) => [c.id, c.name]));
  return parent.children
    .map((p) => {
      const name = names.get(p.managed_user_id) ?? 'A child';
      return `${name}: ${p.can_manage_policies ? 'can view and manage' : 'can view'}`;
    })
    .join(' · ');
}

function ParentRow({
  parent,
  childList,
  isSelf,
  canEdit,
  onEdit,
}: {
  parent: ParentView;
  childList: ManagedUserView[];
  isSelf: boolean;
  canEdit: boolean;
  onEdit: () => void;
}) {
  return (
    <Paper withBorder radius="md" p="sm" data-testid="parent-row">
      <Group justify="space-between" wrap="nowrap" gap="sm" align="center">
        <Stack gap={4} style={{ minWidth: 0 }}>
          <Group gap="xs">
            <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
              {parent.username}
            </Text>
            <Badge variant="light" color={ROLE_COLORS[parent.role]} size="sm" radius="sm">
              {ROLE_LABELS[parent.role]}
            </Badge>
            {isSelf ? (
              <Badge variant="outline" color="gray" size="sm" radius="sm">
                You
              </Badge>
            ) : null}
          </Group>
          <Text size="sm" c="dimmed">
            {describeAccess(parent, childList)}
          </Text>
        </Stack>
        {canEdit ? (
          <Group gap={4} wrap="nowrap" style={{ flexShrink: 0 }}>
            <Button variant="default" size="xs" onClick={onEdit} aria-label={`Change ${parent.username}`}>
              Change
            </Button>
            {isSelf ? null : <RemoveParentButton parent={parent} />}
          </Group>
        ) : null}
      </Group>
    </Paper>
  );
}

function AddParentForm({
  childList,
  actorRole,
  onAdded,
}: {
  childList: ManagedUserView[];
  actorRole: ParentRole;
  onAdded: (parent: ParentView) => void;
}) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<ParentRole>('member');
  const [children, setChildren] = useState<ChildPermission[]>([]);
  const [errors, setErrors] = useState<{ username?: string; password?: string }>({});
  const add = useAddParent();
  const serverFields = fieldErrorsOf(add.error, { username: 'The username', password: 'The password' });

  function submit(event: FormEvent) {
    event.preventDefault();
    add.reset();
    const found = {
      username: !username.trim()
        ? 'Choose a username for them.'
        : /\s/.test(username.trim())
          ? 'A username cannot contain spaces.'
          : undefined,
      password:
        password.length < PASSWORD_MIN_LENGTH
          ? `The password needs at least ${PASSWORD_MIN_LENGTH} characters.`
          : undefined,
    };
    setErrors(found);
    if (found.username || found.password) return;
    const body = {
      username: username.trim(),
      password,
      role,
      children: role === 'member' ? grantedOnly(children) : [],
    };
    add.mutate(body, {
      onSuccess: (parent) => {
        onAdded(parent);
        notifySaved(`${parent.username} can now sign in.`);
        setUsername('');
        setPassword('');
        setRole('member');
        setChildren([]);
      },
    });
  }

  return (
    <form onSubmit={submit} noValidate aria-label="Add a parent or carer">
      <Stack gap="md">
        <Title order={3} fz="md">
          Add a parent or carer
        </Title>
        <ErrorAlert
          error={add.error && !serverFields.username && !serverFields.password ? messageOf(add.error) : null}
          title="They were not added"
        />
        <Group align="flex-start" gap="md" grow preventGrowOverflow={false} wrap="wrap">
          <TextInput
            label="Username"
            value={username}
            onChange={(e) => setUsername(e.currentTarget.value)}
            error={errors.username ?? serverFields.username}
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            required
            miw={200}
          />
          <PasswordInput
            label="Password"
            description={`At least ${PASSWORD_MIN_LENGTH} characters; share it with them privately.`}
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            error={errors.password ?? serverFields.password}
            autoComplete="new-password"
            required
            miw={200}
          />
        </Group>
        <Select
          label="Role"
          data={roleOptions(actorRole)}
          value={role}
          onChange={(v) => setRole(asRole(v, role))}
          allowDeselect={false}
        />
        {role === 'member' ? (
          <ChildPermissionsEditor childList={childList} value={children} onChange={setChildren} />
        ) : null}
        <Group justify="flex-end">
          <Button type="submit" loading={add.isPending} leftSection={<IconPlus size={16} />}>
            Add parent or carer
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function EditParentModal({
  parent,
  childList,
  actorRole,
  onClose,
  onSaved,
}: {
  parent: ParentView;
  childList: ManagedUserView[];
  actorRole: ParentRole;
  onClose: () => void;
  onSaved: (parent: ParentView) => void;
}) {
  const [role, setRole] = useState<ParentRole>(parent.role);
  const [children, setChildren] = useState<ChildPermission[]>(
    parent.role === 'member' ? parent.children : [],
  );
  const [username, setUsername] = useState(parent.username);
  const [usernameError, setUsernameError] = useState<string | null>(null);
  const [password, setPassword] = useState('');
  const [passwordError, setPasswordError] = useState<string | null>(null);
  const update = useUpdateParent();
  const serverFields = fieldErrorsOf(update.error, { username: 'The username', password: 'The password' });
  // Busy until the modal closes, so a second press does not save twice.
  const busy = update.isPending || update.isSuccess;

  function submit(event: FormEvent) {
    event.preventDefault();
    update.reset();
    const name = username.trim();
    const nameProblem = !name
      ? 'Choose a username for them.'
      : /\s/.test(name)
        ? 'A username cannot contain spaces.'
        : null;
    const passwordProblem =
      password && password.length < PASSWORD_MIN_LENGTH
        ? `The password needs at least ${PASSWORD_MIN_LENGTH} characters.`
        : null;
    setUsernameError(nameProblem);
    setPasswordError(passwordProblem);
    if (nameProblem || passwordProblem) return;
    const body = {
      ...(name !== parent.username ? { username: name } : {}),
      ...(role !== parent.role ? { role } : {}),
      ...(role === 'member' ? { children: grantedOnly(children) } : {}),
      ...(password ? { password } : {}),
    };
    update.mutate(
      { id: parent.id, body },
      {
        onSuccess: (updated) => {
          notifySaved(`${updated.username} is updated.`);
          onSaved(updated);
        },
      },
    );
  }

  // The current role is always offered, even to an admin looking at an owner.
  const options = roleOptions(actorRole);
  if (!options.some((o) => o.value === parent.role)) {
    options.unshift({
      value: parent.role,
      label: `${ROLE_LABELS[parent.role]} — ${ROLE_DESCRIPTIONS[parent.role]}`,
    });
  }

  return (
    <Modal opened onClose={onClose} title={`Change ${parent.username}`} centered size="lg">
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          <ErrorAlert
            error={
              update.error && !serverFields.username && !serverFields.password
                ? messageOf(update.error)
                : null
            }
            title="Not saved"
          />
          <TextInput
            label="Username"
            description="The name they sign in with."
            value={username}
            onChange={(e) => setUsername(e.currentTarget.value)}
            error={usernameError ?? serverFields.username}
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            required
          />
          <Select
            label="Role"
            data={options}
            value={role}
            onChange={(v) => setRole(asRole(v, role))}
            allowDeselect={false}
          />
          {role === 'member' ? (
            <ChildPermissionsEditor childList={childList} value={children} onChange={setChildren} />
          ) : null}
          <PasswordInput
            label="New password"
            description="Leave empty to keep the current one. A new password signs them out on other devices."
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            error={passwordError ?? serverFields.password}
            autoComplete="new-password"
          />
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              Save changes
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

export function SettingsPage() {
  const session = useSignedIn();
  const { isAdmin, setup, refresh } = useSession();
  const parents = useParents();
  const users = useUsers();
  const [editing, setEditing] = useState<ParentView | null>(null);
  const childList = users.data?.items ?? [];

  function replace(parent: ParentView) {
    parents.setData((current) => ({
      items: (current?.items ?? []).some((p) => p.id === parent.id)
        ? (current?.items ?? []).map((p) => (p.id === parent.id ? parent : p))
        : [...(current?.items ?? []), parent],
    }));
  }

  return (
    <>
      <PageHeader
        title="Settings"
        description="Who can look after your household, and about this Hearth server."
      />
      <Stack gap="lg">
        <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="parents-title">
          <Stack gap="md">
            <Stack gap={4}>
              <Title order={2} fz="lg" id="parents-title">
                Parents and carers
              </Title>
              <Text size="sm" c="dimmed">
                Everyone who can sign in to {session.household.name}. Owners and admins see every child;
                members see only the children shared with them.
              </Text>
            </Stack>
            {parents.error && !parents.data ? (
              <ErrorAlert error={parents.error} onRetry={parents.reload} />
            ) : null}
            {!parents.data && !parents.error ? (
              <Stack gap="sm" aria-busy="true">
                <Skeleton h={64} radius="md" />
                <Skeleton h={64} radius="md" />
              </Stack>
            ) : null}
            {parents.data ? (
              <Stack gap="sm">
                {parents.data.items.map((parent) => (
                  <ParentRow
                    key={parent.id}
                    parent={parent}
                    childList={childList}
                    isSelf={parent.id === session.parent.id}
                    canEdit={isAdmin && (parent.role !== 'owner' || session.role === 'owner')}
                    onEdit={() => setEditing(parent)}
                  />
                ))}
              </Stack>
            ) : null}
            {isAdmin ? (
              <Paper withBorder radius="md" p="md" bg="var(--hearth-page-bg)">
                <AddParentForm childList={childList} actorRole={session.role} onAdded={replace} />
              </Paper>
            ) : (
              <Text size="sm" c="dimmed">
                Only an owner or admin can add or change parents and carers.
              </Text>
            )}
          </Stack>
        </Card>

        <BackgroundTasksCard />

        <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="about-title">
          <Stack gap={6}>
            <Title order={2} fz="lg" id="about-title">
              About Hearth
            </Title>
            <Text size="sm">
              Signed in as <b>{session.parent.username}</b> ({ROLE_LABELS[session.role]}).
            </Text>
            <Text size="sm" data-testid="server-version">
              Server version {setup?.version ?? 'unknown'}
            </Text>
          </Stack>
        </Card>
      </Stack>
      {editing ? (
        <EditParentModal
          parent={editing}
          childList={childList}
          actorRole={session.role}
          onClose={() => setEditing(null)}
          onSaved={(parent) => {
            replace(parent);
            setEditing(null);
            if (
              parent.id === session.parent.id &&
              (parent.role !== session.role || parent.username !== session.parent.username)
            ) {
              refresh().catch((err: unknown) => notifyError(err, 'Could not refresh your session'));
            }
          }}
        />
      ) : null}
    </>
  );
}
