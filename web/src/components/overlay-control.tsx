import { Box, Group, Text } from '@mantine/core';
import { useCallback, useState } from 'react';
import { api, messageOf } from '../api/client';
import type { CommandOutcome } from '../api/types';
import { IconCheck, IconClock } from './icons';
import { ErrorAlert } from './page';

export type OverlayAction = 'show' | 'dismiss';

export function outcomeText(action: OverlayAction, outcome: CommandOutcome): string {
  if (outcome.delivered) return 'Sent to the device.';
  return action === 'show'
    ? 'The device is offline; it will pause when it reconnects.'
    : 'The device is offline; it will resume when it reconnects.';
}

export interface OverlayControl {
  busy: OverlayAction | null;
  result: { action: OverlayAction; outcome: CommandOutcome } | null;
  failure: string | null;
  send(action: OverlayAction): Promise<void>;
}

/**
 * Pause (shows Hearth Space with the "locked" reason) and Resume (dismisses it) for one account on
 * one device, with what came of the last press.
 */
export function useOverlayControl(systemId: string, linuxUsername: string): OverlayControl {
  const [busy, setBusy] = useState<OverlayAction | null>(null);
  const [result, setResult] = useState<OverlayControl['result']>(null);
  const [failure, setFailure] = useState<string | null>(null);

  const send = useCallback(
    async (action: OverlayAction) => {
      setBusy(action);
      setResult(null);
      setFailure(null);
      try {
        const outcome = await api.post<CommandOutcome>(
          `/api/devices/${encodeURIComponent(systemId)}/overlay`,
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
    },
    [systemId, linuxUsername],
  );

  return { busy, result, failure, send };
}

/** "Sent to the device." or "…when it reconnects.", announced politely; or why it was not sent. */
export function OverlayOutcome({ control }: { control: Pick<OverlayControl, 'result' | 'failure'> }) {
  const { result, failure } = control;
  return (
    <>
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
    </>
  );
}
