import { Anchor, Button, Group, Paper, Stack, Text } from '@mantine/core';
import { Link } from 'react-router-dom';
import type { DeviceView } from '../../api/types';
import { ChildAvatar } from '../../components/child-bits';
import { IconPause, IconPlay } from '../../components/icons';
import { OverlayOutcome, useOverlayControl } from '../../components/overlay-control';
import type { DeviceChild } from './device-children';

/** Pause now / Resume for one child's account: shows or dismisses Hearth Space on that account. */
export function PauseControls({ device, user }: { device: DeviceView; user: DeviceChild }) {
  const { child, linuxUsername } = user;
  const control = useOverlayControl(device.system_id, linuxUsername);
  const { busy, send } = control;
  const approved = device.status === 'approved';

  return (
    <Paper withBorder radius="md" p="sm" data-testid="device-account">
      <Stack gap={0}>
        <Group justify="space-between" gap="sm" wrap="wrap">
          <Group wrap="nowrap" gap="sm" style={{ minWidth: 0 }}>
            <ChildAvatar name={child.name} />
            <Stack gap={0} style={{ minWidth: 0 }}>
              <Anchor
                component={Link}
                to={`/children/${encodeURIComponent(child.id)}`}
                fw={600}
                c="inherit"
                style={{ overflowWrap: 'anywhere' }}
              >
                {child.name}
              </Anchor>
              <Text size="sm" c="dimmed">
                Account <b>{linuxUsername}</b>
              </Text>
            </Stack>
          </Group>
          {approved ? (
            <Group gap="xs" wrap="nowrap">
              <Button
                onClick={() => send('show')}
                loading={busy === 'show'}
                disabled={busy === 'dismiss'}
                leftSection={<IconPause size={16} />}
                aria-label={`Pause now for ${child.name}`}
              >
                Pause now
              </Button>
              <Button
                variant="default"
                onClick={() => send('dismiss')}
                loading={busy === 'dismiss'}
                disabled={busy === 'show'}
                leftSection={<IconPlay size={16} />}
                aria-label={`Resume for ${child.name}`}
              >
                Resume
              </Button>
            </Group>
          ) : null}
        </Group>
        <OverlayOutcome control={control} />
      </Stack>
    </Paper>
  );
}
