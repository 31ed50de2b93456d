import { Button } from '@mantine/core';
import { useState } from 'react';
import { useRemoveParent } from '../../api/mutations';
import type { ParentView } from '../../api/types';
import { ConfirmDialog } from '../../components/dialogs';
import { IconTrash } from '../../components/icons';
import { notifySaved } from '../../components/page';

/** Removes another parent or carer (never yourself; an owner only by an owner), after asking. */
export function RemoveParentButton({ parent }: { parent: ParentView }) {
  const removal = useRemoveParent();
  const [confirming, setConfirming] = useState(false);
  return (
    <>
      <Button
        variant="subtle"
        color="red"
        size="xs"
        onClick={() => {
          removal.reset();
          setConfirming(true);
        }}
        aria-label={`Remove ${parent.username}`}
      >
        Remove
      </Button>
      <ConfirmDialog
        opened={confirming}
        title={`Remove ${parent.username}?`}
        confirmLabel={`Remove ${parent.username}`}
        confirmIcon={<IconTrash size={16} />}
        busy={removal.isPending}
        error={removal.error}
        errorTitle="The parent was not removed"
        onConfirm={() =>
          removal.mutate(parent.id, {
            onSuccess: () => {
              notifySaved(`${parent.username} can no longer sign in to Hearth.`);
              setConfirming(false);
            },
          })
        }
        onClose={() => setConfirming(false)}
      >
        {`${parent.username} is signed out everywhere and can no longer sign in. The children and devices stay as they are.`}
      </ConfirmDialog>
    </>
  );
}
