import { Checkbox, Group, Paper, Stack, Text } from '@mantine/core';
import type { ChildPermission, ManagedUserView } from '../../api/types';

function permissionFor(value: ChildPermission[], id: string): ChildPermission {
  return (
    value.find((p) => p.managed_user_id === id) ?? {
      managed_user_id: id,
      can_view: false,
      can_manage_policies: false,
    }
  );
}

/** Per-child "Can view" / "Can manage" for a member; managing implies seeing the child. */
export function ChildPermissionsEditor({
  childList,
  value,
  onChange,
}: {
  childList: ManagedUserView[];
  value: ChildPermission[];
  onChange: (next: ChildPermission[]) => void;
}) {
  if (!childList.length) {
    return (
      <Text size="sm" c="dimmed">
        There are no children yet. Once you add some, you can choose which ones this person may see.
      </Text>
    );
  }

  function update(id: string, change: Partial<ChildPermission>) {
    const current = permissionFor(value, id);
    let next = { ...current, ...change };
    if (change.can_manage_policies) next = { ...next, can_view: true };
    if (change.can_view === false) next = { ...next, can_manage_policies: false };
    onChange([...value.filter((p) => p.managed_user_id !== id), next]);
  }

  return (
    <Stack gap={6}>
      <Text size="sm" fw={500}>
        Children they can see
      </Text>
      {childList.map((child) => {
        const perm = permissionFor(value, child.id);
        return (
          <Paper key={child.id} withBorder radius="md" px="sm" py={8} role="group" aria-label={child.name}>
            <Group justify="space-between" gap="sm">
              <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
                {child.name}
              </Text>
              <Group gap="lg">
                <Checkbox
                  label="Can view"
                  checked={perm.can_view}
                  onChange={(e) => update(child.id, { can_view: e.currentTarget.checked })}
                />
                <Checkbox
                  label="Can manage"
                  checked={perm.can_manage_policies}
                  onChange={(e) => update(child.id, { can_manage_policies: e.currentTarget.checked })}
                />
              </Group>
            </Group>
          </Paper>
        );
      })}
      <Text size="xs" c="dimmed">
        “Can manage” lets them change the child’s Hearth Space card and devices.
      </Text>
    </Stack>
  );
}

/** Only the children with some permission, in the shape the server expects. */
export function grantedOnly(value: ChildPermission[]): ChildPermission[] {
  return value.filter((p) => p.can_view || p.can_manage_policies);
}
