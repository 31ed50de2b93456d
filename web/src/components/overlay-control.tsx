import { Box, Group, Text } from '@mantine/core';
import type { QueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { messageOf } from '../api/client';
import { useOverlayCommand } from '../api/mutations';
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
 * Pause (shows Hearth Space with the "locked" reason and context "paused", so the child reads that a
 * parent paused them rather than that their time ran out) and Resume (dismisses it) for one account on
 * one device, with what came of the last press.
 */
export function useOverlayControl(
  systemId: string,
  linuxUsername: string,
  /** For a caller outside the data provider (a notification). */
  cache?: QueryClient,
): OverlayControl {
  const command = useOverlayCommand(systemId, cache);
  const [result, setResult] = useState<OverlayControl['result']>(null);
  const { mutateAsync, reset } = command;

  const send = useCallback(
    async (action: OverlayAction) => {
      setResult(null);
      reset();
      try {
        const outcome = await mutateAsync(
          action === 'show'
            ? { action, reason: 'locked', context: 'paused', linux_username: linuxUsername }
            : { action, linux_username: linuxUsername },
        );
        setResult({ action, outcome });
      } catch {
        // The mutation keeps the error; `failure` says it in words.
      }
    },
    [mutateAsync, reset, linuxUsername],
  );

  const busy = command.isPending ? (command.variables?.action ?? null) : null;
  const failure = command.error ? messageOf(command.error) : null;
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
            c={result.outcome.delivered ? 'teal' : 'yellow'}
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
