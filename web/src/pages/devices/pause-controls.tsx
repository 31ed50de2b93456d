import { Anchor, Box, Button, Group, Paper, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { api, messageOf } from '../../api/client';
import type { CommandOutcome, DeviceView } from '../../api/types';
import { ChildAvatar } from '../../components/child-bits';
import { IconCheck, IconClock, IconPause, IconPlay } from '../../components/icons';
import { ErrorAlert } from '../../components/page';
import type { DeviceChild } from './device-children';

type Action = 'show' | 'dismiss';

function outcomeText(action: Action, outcome: CommandOutcome): string {
  if (outcome.delivered) return 'Sent to the device.';
  return action === 'show'
    ? 'The device is offline; it will pause when it reconnects.'
    : 'The device is offline; it will resume when it reconnects.';
}

/** Pause now / Resume for one child's account: shows or dismisses Hearth Space on that account. */
export function PauseControls({ device, user }: { device: DeviceView; user: DeviceChild }) {
  const [busy, setBusy] = useState<Action | null>(null);
  const [result, setResult] = useState<{ action: Action; outcome: CommandOutcome } | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const { child, linuxUsername } = user;
  const approved = device.status === 'approved';

  async function send(action: Action) {
    setBusy(action);
    setResult(null);
    setFailure(null);
    try {
      const outcome = await api.post<CommandOutcome>(
        `/api/devices/${encodeURIComponent(device.system_id)}/overlay`,
        action === 'show'
          ? { action, reason: 'locked', linux_username: linuxUsername }
          : { action, linux_username: linuxUsername },
      );
      setResult({ action, outcome });
    } catch (err) {
      setFailure(messageOf(err));
    } finally {
      setBusy(null);
    }
  }

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
        <div aria-live="polite">
          {result ? (
            <Group
              gap={6}
              wrap="nowrap"
              mt="xs"
              c={result.outcome.delivered ? 'teal.8' : 'yellow.9'}
              data-testid="pause-result"
            >
              {result.outcome.delivered ? <IconCheck size={16} /> : <IconClock size={16} />}
              <Text size="sm" fw={500}>
                {outcomeText(result.action, result.outcome)}
              </Text>
            </Group>
          ) : null}
        </div>
        {failure ? (
          <Box mt="xs">
            <ErrorAlert error={failure} title="Not sent" />
          </Box>
        ) : null}
      </Stack>
    </Paper>
  );
}
