import { Button, Group, Text } from '@mantine/core';
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useRemoveChild, useRenameChild } from '../../api/mutations';
import type { ManagedUserView } from '../../api/types';
import { ConfirmDialog, RenameDialog } from '../../components/dialogs';
import { IconTrash } from '../../components/icons';
import { notifySaved } from '../../components/page';
import { NAME_MAX_LENGTH } from '../../labels';
import { useSession } from '../../session';

/** Rename or remove a child: owners and admins only, each behind its dialog. */
export function ChildActions({ child }: { child: ManagedUserView }) {
  const { isAdmin } = useSession();
  const navigate = useNavigate();
  const rename = useRenameChild();
  const removal = useRemoveChild();
  const [renaming, setRenaming] = useState(false);
  const [removing, setRemoving] = useState(false);
  if (!isAdmin) return null;

  return (
    <Group gap="xs">
      <Button
        variant="default"
        onClick={() => {
          rename.reset();
          setRenaming(true);
        }}
      >
        Rename
      </Button>
      <Button
        variant="light"
        color="red"
        leftSection={<IconTrash size={16} />}
        onClick={() => {
          removal.reset();
          setRemoving(true);
        }}
      >
        Remove child
      </Button>
      <RenameDialog
        opened={renaming}
        title={`Rename ${child.name}`}
        label="Name"
        field="name"
        initial={child.name}
        maxLength={NAME_MAX_LENGTH}
        description="Shown to you and the other parents in Hearth."
        busy={rename.isPending}
        error={rename.error}
        onSave={(name) =>
          rename.mutate(
            { id: child.id, name },
            {
              onSuccess: (saved) => {
                notifySaved(`${child.name} is now called ${saved.name}.`);
                setRenaming(false);
              },
            },
          )
        }
        onClose={() => setRenaming(false)}
      />
      <ConfirmDialog
        opened={removing}
        title={`Remove ${child.name}?`}
        confirmLabel={`Remove ${child.name}`}
        confirmIcon={<IconTrash size={16} />}
        busy={removal.isPending}
        error={removal.error}
        errorTitle="The child was not removed"
        onConfirm={() =>
          removal.mutate(child.id, {
            onSuccess: () => {
              notifySaved(`${child.name} was removed.`);
              setRemoving(false);
              navigate('/children');
            },
          })
        }
        onClose={() => setRemoving(false)}
      >
        <Text size="sm">
          Hearth stops looking after {child.name}: their device links, app rules, sign-up grants and waiting
          requests are deleted, and no parent sees them any more. Past alerts stay in the alert list without
          their name. This cannot be undone.
        </Text>
      </ConfirmDialog>
    </Group>
  );
}
