import { Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { fieldErrorsOf, messageOf } from '../../api/client';
import { useApproveDevice, useRejectDevice } from '../../api/mutations';
import type { DeviceView } from '../../api/types';
import { IconCheck, IconX } from '../../components/icons';
import { ErrorAlert, notifySaved } from '../../components/page';
import { NAME_MAX_LENGTH } from '../../labels';

function ApproveModal({
  device,
  onClose,
  onDecided,
}: {
  device: DeviceView;
  onClose: () => void;
  onDecided: () => void;
}) {
  const [name, setName] = useState('');
  const approve = useApproveDevice();
  const nameError = fieldErrorsOf(approve.error, { display_name: 'The friendly name' }).display_name;
  // Busy from the press until the modal closes: a second press must not approve twice.
  const busy = approve.isPending || approve.isSuccess;

  function submit(event: FormEvent) {
    event.preventDefault();
    const displayName = name.trim();
    approve.mutate(
      { systemId: device.system_id, displayName },
      {
        onSuccess: () => {
          notifySaved(`${displayName || device.display_name} is approved. Hearth now looks after it.`);
          onDecided();
        },
      },
    );
  }

  return (
    <Modal opened onClose={onClose} title={`Approve ${device.display_name}?`} centered>
      <form onSubmit={submit} noValidate aria-label="Approve device">
        <Stack gap="md">
          <Text size="sm">
            Hearth starts looking after this device as soon as you approve it. Give it a name you will
            recognise, if you like.
          </Text>
          <ErrorAlert
            error={approve.error && !nameError ? messageOf(approve.error) : null}
            title="The device was not approved"
          />
          <TextInput
            label="Friendly name"
            description={`Optional. Shown in Hearth and on the pause screen; without one it is called ${device.hostname}.`}
            placeholder="Living room laptop"
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            maxLength={NAME_MAX_LENGTH}
            error={nameError}
            data-autofocus
          />
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy} leftSection={<IconCheck size={16} />}>
              Approve device
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function RejectModal({
  device,
  onClose,
  onDecided,
}: {
  device: DeviceView;
  onClose: () => void;
  onDecided: () => void;
}) {
  const rejection = useRejectDevice();
  const busy = rejection.isPending || rejection.isSuccess;

  function reject() {
    rejection.mutate(device.system_id, {
      onSuccess: () => {
        notifySaved(`${device.display_name} was turned away.`);
        onDecided();
      },
    });
  }

  return (
    <Modal opened onClose={onClose} title={`Reject ${device.display_name}?`} centered>
      <Stack gap="md">
        <Text size="sm">
          The device is disconnected and Hearth will not look after it. If it asks to join again, it shows up
          here again.
        </Text>
        <ErrorAlert
          error={rejection.error && messageOf(rejection.error)}
          title="The device was not rejected"
        />
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onClose} data-autofocus>
            Cancel
          </Button>
          <Button color="red" loading={busy} onClick={reject} leftSection={<IconX size={16} />}>
            Reject device
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** Approve (with an optional friendly name) and Reject (confirmed) for a device waiting to join. */
export function DecisionButtons({ device, onDecided }: { device: DeviceView; onDecided: () => void }) {
  const [open, setOpen] = useState<'approve' | 'reject' | null>(null);
  const close = () => setOpen(null);
  const decided = () => {
    setOpen(null);
    onDecided();
  };
  return (
    <Group gap="xs" wrap="nowrap">
      <Button
        onClick={() => setOpen('approve')}
        leftSection={<IconCheck size={16} />}
        aria-label={`Approve ${device.display_name}`}
      >
        Approve
      </Button>
      <Button
        variant="default"
        onClick={() => setOpen('reject')}
        leftSection={<IconX size={16} />}
        aria-label={`Reject ${device.display_name}`}
      >
        Reject
      </Button>
      {open === 'approve' ? <ApproveModal device={device} onClose={close} onDecided={decided} /> : null}
      {open === 'reject' ? <RejectModal device={device} onClose={close} onDecided={decided} /> : null}
    </Group>
  );
}
