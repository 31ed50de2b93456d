import { Box, Group, Loader, Stack, Switch, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { IconAlert, IconCheck } from '../../components/icons';
import type { RuleState } from './policy-words';

export interface RuleRow {
  rule: string;
  label: string;
  hint: string;
  checked: boolean;
  /** Switched but not saved yet. */
  changed: boolean;
  state: RuleState;
  /** Shown under the rule while it is on (the allowed extensions). */
  extra?: ReactNode;
}

/** Where the rule stands on the device, in words beside an icon, never by colour alone. */
function RuleStateLine({ row }: { row: RuleRow }) {
  const { state } = row;
  const testProps = {
    'data-testid': `rule-state-${row.rule}`,
    'data-state': row.changed ? 'changed' : state.kind,
  };
  if (row.changed) {
    return (
      <Text size="sm" c="blue" fw={500} {...testProps}>
        Changed, not saved yet
      </Text>
    );
  }
  if (state.kind === 'pending') {
    return (
      <Group gap={6} wrap="nowrap" c="yellow.8" {...testProps}>
        <Loader size={14} color="yellow" aria-hidden="true" />
        <Text size="sm" fw={500}>
          Waiting for the device
        </Text>
      </Group>
    );
  }
  if (state.kind === 'unsupported' || state.kind === 'failed') {
    const failed = state.kind === 'failed';
    return (
      <Stack gap={0} {...testProps}>
        <Group gap={6} wrap="nowrap" c={failed ? 'red' : 'gray.7'}>
          <IconAlert size={16} style={{ flex: 'none' }} />
          <Text size="sm" fw={500}>
            {failed ? 'Failed' : 'Not possible on this device'}
          </Text>
        </Group>
        {state.reason ? (
          <Text size="xs" c="dimmed" data-testid={`rule-reason-${row.rule}`}>
            {state.reason}
          </Text>
        ) : null}
      </Stack>
    );
  }
  if (state.kind === 'applied' && row.checked) {
    return (
      <Group gap={6} wrap="nowrap" c="teal.8" {...testProps}>
        <IconCheck size={16} />
        <Text size="sm" fw={500}>
          Applied
        </Text>
      </Group>
    );
  }
  return (
    <Text size="sm" c="dimmed" {...testProps}>
      Off
    </Text>
  );
}

/** One switch per rule, each with its plain-words explanation and its state on the device. */
export function RuleList({
  rows,
  disabled,
  onToggle,
}: {
  rows: RuleRow[];
  disabled: boolean;
  onToggle: (rule: string, on: boolean) => void;
}) {
  return (
    <Stack gap={0} component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
      {rows.map((row) => (
        <Box
          component="li"
          key={row.rule}
          py="sm"
          data-testid={`rule-${row.rule}`}
          style={{ borderTop: '1px solid var(--mantine-color-default-border)' }}
        >
          <Group justify="space-between" align="flex-start" gap="xs" wrap="wrap">
            <Switch
              label={row.label}
              description={row.hint}
              checked={row.checked}
              disabled={disabled}
              onChange={(e) => onToggle(row.rule, e.currentTarget.checked)}
              styles={{ label: { fontWeight: 600 } }}
              style={{ flex: '1 1 18rem', minWidth: 0 }}
            />
            <Box pl={{ base: 46, sm: 0 }} flex={{ base: '1 1 100%', sm: '0 0 14rem' }}>
              <RuleStateLine row={row} />
            </Box>
          </Group>
          {row.extra ? <Box pl={{ base: 0, xs: 46 }}>{row.extra}</Box> : null}
        </Box>
      ))}
    </Stack>
  );
}
