// A child's screen time over the last 7, 14 or 30 days: each day against its limit, the apps used most
// and the devices. The chart is @mantine/charts (recharts, drawn as SVG); the same figures are listed
// in words beside it.
import '@mantine/charts/styles.css';
import { CompositeChart } from '@mantine/charts';
import {
  Avatar,
  Card,
  Grid,
  Group,
  Progress,
  SegmentedControl,
  Skeleton,
  Stack,
  Table,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { type ReactNode, useState } from 'react';
import { useParams } from 'react-router-dom';
import { useUser } from '../../api/resources';
import { type StatsRange, type TimeStatsView, useTimeStats } from '../../api/time';
import { BackToChild, ChildAvatar, ChildNotFound } from '../../components/child-bits';
import { PlatformIcon } from '../../components/device-bits';
import { ErrorAlert, PageHeader, StaleNotice } from '../../components/page';
import { formatMinutes } from '../../labels';

const RANGES: StatsRange[] = [7, 14, 30];

/** "Mon 24" for the chart, "Mon, 24 Nov" for the table (the date is the household's day). */
function dayLabel(date: string, long = false): string {
  const at = new Date(`${date}T12:00:00Z`);
  if (Number.isNaN(at.getTime())) return date;
  return at.toLocaleDateString(
    [],
    long
      ? { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' }
      : { weekday: 'short', day: 'numeric', timeZone: 'UTC' },
  );
}

function DaysCard({ stats }: { stats: TimeStatsView }) {
  const days = [...stats.days].sort((a, b) => a.date.localeCompare(b.date));
  const data = days.map((d) => ({
    day: dayLabel(d.date),
    Used: Math.round(d.used_seconds / 60),
    Limit: d.limit_seconds === null ? null : Math.round(d.limit_seconds / 60),
  }));
  const total = stats.days.reduce((sum, d) => sum + d.used_seconds, 0);
  const overLimit = stats.days.filter(
    (d) => d.limit_seconds !== null && d.used_seconds > d.limit_seconds,
  ).length;
  return (
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="days-title">
      <Stack gap="md">
        <Stack gap={2}>
          <Title order={2} fz="lg" id="days-title">
            Each day
          </Title>
          <Text size="sm" c="dimmed" data-testid="days-summary">
            {formatMinutes(total)} in {stats.days.length} days · about{' '}
            {formatMinutes(stats.days.length ? total / stats.days.length : 0)} a day
            {overLimit ? ` · over the limit on ${overLimit} ${overLimit === 1 ? 'day' : 'days'}` : ''}
          </Text>
        </Stack>
        {/* The picture; the table below says the same in words for assistive technology. */}
        <div aria-hidden="true" data-testid="days-chart">
          <CompositeChart
            h={260}
            data={data}
            dataKey="day"
            yAxisLabel="Minutes"
            withLegend
            withDots={false}
            curveType="stepAfter"
            maxBarWidth={28}
            series={[
              { name: 'Used', color: 'hearth.6', type: 'bar' },
              { name: 'Limit', color: 'gray.7', type: 'line', strokeDasharray: '5 4' },
            ]}
            composedChartProps={{ accessibilityLayer: false }}
          />
        </div>
        <Table striped verticalSpacing={4} fz="sm" data-testid="days-table">
          <VisuallyHidden component="caption">Screen time each day against that day’s limit</VisuallyHidden>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Day</Table.Th>
              <Table.Th scope="col">Used</Table.Th>
              <Table.Th scope="col">Limit</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {[...days].reverse().map((d) => (
              <Table.Tr key={d.date}>
                <Table.Th scope="row" fw={500}>
                  {dayLabel(d.date, true)}
                </Table.Th>
                <Table.Td>{formatMinutes(d.used_seconds)}</Table.Td>
                <Table.Td>
                  {d.limit_seconds === null ? 'No limit' : formatMinutes(d.limit_seconds)}
                  {d.limit_seconds !== null && d.used_seconds > d.limit_seconds ? (
                    <Text span c="red" size="sm">
                      {' '}
                      (over)
                    </Text>
                  ) : null}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Stack>
    </Card>
  );
}

interface Share {
  key: string;
  name: string;
  icon: ReactNode;
  seconds: number;
}

function ShareList({
  title,
  id,
  items,
  empty,
  testId,
}: {
  title: string;
  id: string;
  items: Share[];
  empty: string;
  testId: string;
}) {
  const most = Math.max(1, ...items.map((i) => i.seconds));
  return (
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby={id}>
      <Stack gap="md">
        <Title order={2} fz="lg" id={id}>
          {title}
        </Title>
        {items.length ? (
          <Stack
            gap="sm"
            component="ol"
            style={{ listStyle: 'none', padding: 0, margin: 0 }}
            data-testid={testId}
          >
            {items.map((item) => (
              <li key={item.key} data-testid="share-item">
                <Group gap="sm" wrap="nowrap" align="center">
                  {item.icon}
                  <Stack gap={4} style={{ minWidth: 0, flex: 1 }}>
                    <Group justify="space-between" gap="xs" wrap="nowrap">
                      <Text size="sm" fw={500} style={{ overflowWrap: 'anywhere' }}>
                        {item.name}
                      </Text>
                      <Text size="sm" style={{ flexShrink: 0 }}>
                        {formatMinutes(item.seconds)}
                      </Text>
                    </Group>
                    <Progress value={(item.seconds / most) * 100} size="sm" aria-hidden="true" />
                  </Stack>
                </Group>
              </li>
            ))}
          </Stack>
        ) : (
          <Text size="sm" c="dimmed">
            {empty}
          </Text>
        )}
      </Stack>
    </Card>
  );
}

function UsageDetails({ id }: { id: string }) {
  const user = useUser(id);
  const [range, setRange] = useState<StatsRange>(7);
  const stats = useTimeStats(id, range);
  const child = user.data;
  const data = stats.data;

  if (user.error?.code === 'not_found' || stats.error?.code === 'not_found') {
    return <ChildNotFound />;
  }

  const names = new Map(child?.mappings.map((m) => [m.system_id, m.display_name ?? m.hostname]) ?? []);
  return (
    <>
      <BackToChild id={id} name={child?.name} />
      <PageHeader
        title={child ? `${child.name}’s usage` : 'Usage'}
        leading={child ? <ChildAvatar name={child.name} size="lg" /> : undefined}
        description="Screen time on all of the child’s devices together, day by day."
        actions={
          <SegmentedControl
            aria-label="Days shown"
            value={String(range)}
            onChange={(value) => setRange(Number(value) as StatsRange)}
            data={RANGES.map((r) => ({ value: String(r), label: `${r} days` }))}
            data-testid="range-picker"
          />
        }
      />
      {user.error && !child ? <ErrorAlert error={user.error} onRetry={user.reload} /> : null}
      {stats.error && !data ? (
        <ErrorAlert error={stats.error} onRetry={stats.reload} title="Could not load the usage" />
      ) : (
        <StaleNotice error={stats.error} />
      )}
      {data ? (
        <Grid gap="lg">
          <Grid.Col span={{ base: 12, md: 7 }}>
            <DaysCard stats={data} />
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 5 }}>
            <Stack gap="lg">
              <ShareList
                title="Apps used most"
                id="apps-title"
                testId="top-apps"
                empty="No app times yet: devices report them as the child uses apps."
                items={data.apps.map((a) => ({
                  key: `${a.match_type}/${a.identifier}`,
                  name: a.application_name ?? a.identifier,
                  seconds: a.seconds,
                  icon: (
                    <Avatar
                      src={a.icon_url}
                      alt=""
                      radius="sm"
                      size={28}
                      color="hearth"
                      name={a.application_name ?? a.identifier}
                    />
                  ),
                }))}
              />
              <ShareList
                title="Devices"
                id="devices-title"
                testId="usage-devices"
                empty="No screen time on any device in these days."
                items={data.devices.map((d) => ({
                  key: d.system_id,
                  name: names.get(d.system_id) ?? d.hostname ?? 'A device',
                  seconds: d.seconds,
                  icon: <PlatformIcon platform={d.platform ?? ''} size="md" />,
                }))}
              />
            </Stack>
          </Grid.Col>
        </Grid>
      ) : !stats.error ? (
        <Stack gap="lg" aria-busy="true">
          <Skeleton h={320} radius="lg" />
          <Skeleton h={200} radius="lg" />
        </Stack>
      ) : null}
    </>
  );
}

export function UsagePage() {
  const { id = '' } = useParams();
  return <UsageDetails key={id} id={id} />;
}
