import { Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useRemoveDevice, useRenameDevice } from '../../api/mutations';
import type { DeviceView } from '../../api/types';
import { ConfirmDialog, RenameDialog } from '../../components/dialogs';
import { IconTrash } from '../../components/icons';
import { notifySaved } from '../../components/page';

/** The one name parents see everywhere, and the device name on Hearth Space. */
export function RenameDeviceButton({ device }: { device: DeviceView }) {
  const rename = useRenameDevice();
  const [opened, setOpened] = useState(false);
  return (
    <>
      <Button
        variant="default"
        onClick={() => {
          rename.reset();
          setOpened(true);
        }}
      >
        Rename
      </Button>
      <RenameDialog
        opened={opened}
        title={`Rename ${device.display_name}`}
        label="Device name"
        field="display_name"
        initial={device.display_name}
        maxLength={100}
        description={`Shown in Hearth, in alerts and on the pause screen. The device calls itself ${device.hostname}.`}
        busy={rename.isPending}
        error={rename.error}
        onSave={(displayName) =>
          rename.mutate(
            { systemId: device.system_id, displayName },
            {
              onSuccess: (saved) => {
                notifySaved(`The device is now called ${saved.display_name}.`);
                setOpened(false);
              },
            },
          )
        }
        onClose={() => setOpened(false)}
      />
    </>
  );
}

/** A rejected or unenrolled device can go, with its links to children and what they held. */
export function RemoveDeviceCard({ device }: { device: DeviceView }) {
  const removal = useRemoveDevice();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  return (
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="remove-device-title">
      <Group justify="space-between" align="center" gap="md">
        <Stack gap={4} style={{ flex: '1 1 18rem' }}>
          <Title order={2} fz="lg" id="remove-device-title">
            Remove
          </Title>
          <Text size="sm" c="dimmed">
            Take this {device.status} device off your list, with its links to children and its app list.
          </Text>
        </Stack>
        <Button
          color="red"
          variant="light"
          leftSection={<IconTrash size={16} />}
          onClick={() => {
            removal.reset();
            setConfirming(true);
          }}
        >
          Remove device
        </Button>
      </Group>
      <ConfirmDialog
        opened={confirming}
        title={`Remove ${device.display_name}?`}
        confirmLabel="Remove device"
        confirmIcon={<IconTrash size={16} />}
        busy={removal.isPending}
        error={removal.error}
        errorTitle="The device was not removed"
        onConfirm={() =>
          removal.mutate(device.system_id, {
            onSuccess: () => {
              notifySaved(`${device.display_name} was removed.`);
              setConfirming(false);
              navigate('/devices');
            },
          })
        }
        onClose={() => setConfirming(false)}
      >
        {`${device.display_name} leaves Hearth: its links to children, waiting commands, usage and app list are deleted. Past alerts stay without it. If it pairs again, it waits for approval like a new device.`}
      </ConfirmDialog>
    </Card>
  );
}
