import { Badge, Button, Card, Group, Paper, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { api, messageOf } from '../../api/client';
import { useTaskStatus } from '../../api/resources';
import type { TaskStatusView, TasksRestarted } from '../../api/types';
import { RelativeTime } from '../../components/device-bits';
import { IconRefresh } from '../../components/icons';
import { ErrorAlert, notifySaved } from '../../components/page';
import { plural } from '../../labels';
import { useSession } from '../../session';

type TaskView = TaskStatusView['tasks'][number];

const TASK_LABELS: Record<string, string> = {
  'prune-idle-sessions': 'Sign out idle sessions',
  'prune-alerts': 'Delete old alerts',
  'expire-command-queue': 'Drop expired device commands',
  'refresh-blocklists': 'Download blocklists again',
  'expire-domain-grants': 'End expired website unblocks',
};

function taskLabel(name: string): string {
  const known = TASK_LABELS[name];
  if (known) return known;
  const words = name.replaceAll(/[-_]/g, ' ');
  return (words[0]?.toUpperCase() ?? '') + words.slice(1);
}

/** "every minute", "every 6 hours". */
function everyText(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return `every ${plural(Math.max(1, Math.round(ms / 1000)), 'second')}`;
  if (minutes === 1) return 'every minute';
  if (minutes < 60) return `every ${minutes} minutes`;
  const hours = Math.round(minutes / 60);
  return hours === 1 ? 'every hour' : `every ${hours} hours`;
}

function TaskRow({ task }: { task: TaskView }) {
  const failing = !!task.last_error;
  return (
    <Paper withBorder radius="md" p="sm" data-testid="task-row">
      <Stack gap={4}>
        <Group justify="space-between" gap="xs">
          <Text fw={600}>{taskLabel(task.name)}</Text>
          <Badge variant="light" color={failing ? 'red' : task.last_run_at ? 'teal' : 'gray'} radius="sm">
            {failing ? 'Last run failed' : task.last_run_at ? 'OK' : 'Not run yet'}
          </Badge>
        </Group>
        <Text size="sm" c="dimmed">
          Runs {everyText(task.every_ms)}
          {task.last_run_at ? (
            <>
              {' · last '}
              <RelativeTime iso={task.last_run_at} />
              {task.last_duration_ms !== null ? `, took ${task.last_duration_ms} ms` : ''}
            </>
          ) : null}
          {` · ${plural(task.runs, 'run')}`}
          {task.failures ? `, ${plural(task.failures, 'failure')}` : ''}
        </Text>
        {task.last_result ? (
          <Text size="sm" data-testid="task-result">
            {task.last_result}
          </Text>
        ) : null}
        {task.last_error ? (
          <Text size="sm" c="red" style={{ overflowWrap: 'anywhere' }}>
            Error: {task.last_error}
          </Text>
        ) : null}
      </Stack>
    </Paper>
  );
}

/** The worker's heartbeat and each task's last run, with "Run tasks now" for owners and admins. */
export function BackgroundTasksCard() {
  const { isAdmin } = useSession();
  const status = useTaskStatus();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const data = status.data;

  async function runNow() {
    setBusy(true);
    setFailure(null);
    try {
      await api.post<TasksRestarted>('/restart-tasks');
      notifySaved(
        data?.worker.alive
          ? 'The worker runs every task again within a few seconds.'
          : 'Every task runs as soon as a worker starts.',
        'Tasks requested',
      );
      status.reload();
      // The worker picks the request up on its next heartbeat; look again once it has.
      window.setTimeout(status.reload, 6000);
    } catch (err) {
      setFailure(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="tasks-title">
      <Stack gap="md">
        <Group justify="space-between" align="flex-start" gap="sm">
          <Stack gap={4} style={{ flex: '1 1 18rem' }}>
            <Title order={2} fz="lg" id="tasks-title">
              Background tasks
            </Title>
            <Text size="sm" c="dimmed">
              Housekeeping Hearth does on its own, such as deleting old alerts.
            </Text>
          </Stack>
          {isAdmin ? (
            <Button variant="default" leftSection={<IconRefresh size={16} />} loading={busy} onClick={runNow}>
              Run tasks now
            </Button>
          ) : null}
        </Group>
        <ErrorAlert error={failure} title="The tasks were not started" />
        {status.error && !data ? <ErrorAlert error={status.error} onRetry={status.reload} /> : null}
        {!data && !status.error ? (
          <Stack gap="sm" aria-busy="true">
            <Skeleton h={24} w="50%" />
            <Skeleton h={72} radius="md" />
          </Stack>
        ) : null}
        {data ? (
          <>
            <Group gap="xs" data-testid="worker-status">
              <Badge variant="dot" color={data.worker.alive ? 'teal' : 'red'} size="lg" radius="sm">
                {data.worker.alive ? 'Worker running' : 'Worker not running'}
              </Badge>
              <Text size="sm" c="dimmed">
                {data.worker.heartbeat_at ? (
                  <RelativeTime iso={data.worker.heartbeat_at} prefix="Last heartbeat " />
                ) : (
                  'No heartbeat yet'
                )}
              </Text>
            </Group>
            {!data.worker.alive ? (
              <Text size="sm" c="dimmed">
                Start the server with its worker (the default for <code>hearth serve</code>) or run{' '}
                <code>hearth worker</code>, and the tasks run again.
              </Text>
            ) : null}
            {data.tasks.length ? (
              <Stack gap="sm">
                {data.tasks.map((task) => (
                  <TaskRow key={task.name} task={task} />
                ))}
              </Stack>
            ) : (
              <Text size="sm" c="dimmed">
                No task has run yet.
              </Text>
            )}
          </>
        ) : null}
      </Stack>
    </Card>
  );
}
