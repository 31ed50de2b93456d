// A child's weekly routine: when they may use a device (painted in quarter hours) and how long a day.
// One day at a time with a day picker, so it works on a phone as well as on a desktop.

import { WEEKDAYS, type Weekday } from '@hearth/protocol';
import {
  Alert,
  Button,
  Card,
  Checkbox,
  Grid,
  Group,
  NumberInput,
  SegmentedControl,
  Stack,
  Switch,
  Text,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { useMemo, useState } from 'react';
import { useParams } from 'react-router-dom';
import { ApiError, messageOf } from '../../api/client';
import { useSaveSchedule } from '../../api/mutations';
import { type ScheduleView, useSchedule } from '../../api/time';
import { IconAlert } from '../../components/icons';
import { ErrorAlert, notifySaved } from '../../components/page';
import { SyncList } from '../../components/time-bits';
import { ChildEditorPage } from '../child/child-subpage';
import { DayGrid } from './day-grid';
import {
  allowedMinutes,
  DAY_LABELS,
  DAY_SHORT,
  dayOfPath,
  dayProblem,
  daySummary,
  type EditDay,
  type EditWeek,
  limitText,
  MAX_LIMIT_MINUTES,
  PRESETS,
  problemText,
  sameDay,
  toDaySchedule,
  toEditWeek,
} from './schedule-model';

/** Today's weekday in the household's zone, so the page opens on the day that matters now. */
function todayIn(timezone: string): Weekday {
  try {
    const name = new Intl.DateTimeFormat('en-GB', { timeZone: timezone, weekday: 'long' })
      .format(new Date())
      .toLowerCase();
    if ((WEEKDAYS as readonly string[]).includes(name)) return name as Weekday;
  } catch {
    // Fall through to the browser's day.
  }
  return WEEKDAYS[(new Date().getDay() + 6) % 7] ?? 'monday';
}

function LimitControl({
  day,
  edit,
  onChange,
}: {
  day: Weekday;
  edit: EditDay;
  onChange(limit: number | null): void;
}) {
  const nothing = allowedMinutes(edit.cells) === 0;
  if (nothing) {
    return (
      <Text size="sm" c="dimmed" data-testid="limit-none">
        Nothing is painted, so {DAY_LABELS[day]} has no screen time.
      </Text>
    );
  }
  const limited = edit.limit !== null;
  return (
    <Stack gap="xs">
      <Switch
        label={`Daily limit on ${DAY_LABELS[day]}`}
        checked={limited}
        onChange={(e) => onChange(e.currentTarget.checked ? Math.min(120, allowedMinutes(edit.cells)) : null)}
      />
      {limited ? (
        <NumberInput
          label="Minutes a day"
          description={`${limitText(edit.limit ?? 0)} of screen time within the painted hours; 15-minute steps, up to ${MAX_LIMIT_MINUTES}.`}
          min={0}
          max={MAX_LIMIT_MINUTES}
          step={15}
          allowDecimal={false}
          allowNegative={false}
          clampBehavior="strict"
          value={edit.limit ?? 0}
          onChange={(value) => onChange(typeof value === 'number' ? value : Number(value) || 0)}
          maw={260}
        />
      ) : (
        <Text size="sm" c="dimmed">
          No daily limit: {DAY_LABELS[day]}’s painted hours are the only rule.
        </Text>
      )}
    </Stack>
  );
}

function CopyDay({ day, onCopy }: { day: Weekday; onCopy(targets: Weekday[]): void }) {
  const [targets, setTargets] = useState<string[]>([]);
  const others = WEEKDAYS.filter((d) => d !== day);
  return (
    <Stack gap="xs">
      <Checkbox.Group label={`Copy ${DAY_LABELS[day]} to`} value={targets} onChange={setTargets}>
        <Group gap="sm" mt={6}>
          {others.map((d) => (
            <Checkbox key={d} value={d} label={DAY_SHORT[d]} aria-label={DAY_LABELS[d]} />
          ))}
        </Group>
      </Checkbox.Group>
      <Group gap="xs">
        <Button
          variant="light"
          size="sm"
          disabled={!targets.length}
          onClick={() => {
            onCopy(targets as Weekday[]);
            setTargets([]);
          }}
        >
          Copy {DAY_LABELS[day]}
        </Button>
        <Button
          variant="subtle"
          size="sm"
          onClick={() =>
            setTargets(
              others.filter((d) =>
                day === 'saturday' || day === 'sunday'
                  ? d === 'saturday' || d === 'sunday'
                  : !['saturday', 'sunday'].includes(d),
              ),
            )
          }
        >
          {day === 'saturday' || day === 'sunday' ? 'Pick the weekend' : 'Pick the weekdays'}
        </Button>
      </Group>
    </Stack>
  );
}

function RoutineEditor({
  childId,
  childName,
  schedule,
}: {
  childId: string;
  childName: string;
  schedule: ScheduleView;
}) {
  const [saved, setSaved] = useState<EditWeek>(() => toEditWeek(schedule.days));
  const [week, setWeek] = useState<EditWeek>(saved);
  const [day, setDay] = useState<Weekday>(() => todayIn(schedule.timezone));
  const [tried, setTried] = useState(false);
  const save = useSaveSchedule(childId);

  const problems = useMemo(
    () =>
      Object.fromEntries(WEEKDAYS.map((d) => [d, dayProblem(d, week[d])])) as Record<Weekday, string | null>,
    [week],
  );
  const serverProblems = useMemo(() => {
    const found: Partial<Record<Weekday, string>> = {};
    const err = save.error;
    if (err instanceof ApiError) {
      for (const detail of err.details) {
        const d = dayOfPath(detail.path);
        if (d && !found[d]) found[d] = problemText(d, detail.path, detail.message);
      }
    }
    return found;
  }, [save.error]);
  const changed = WEEKDAYS.filter((d) => !sameDay(week[d], saved[d]));
  const blocking = WEEKDAYS.filter((d) => problems[d]);
  const edit = week[day];

  const update = (d: Weekday, next: (current: EditDay) => EditDay) =>
    setWeek((current) => ({ ...current, [d]: next(current[d]) }));

  const paint = (from: number, to: number, value: boolean) =>
    update(day, (current) => {
      const cells = [...current.cells];
      const wasEmpty = !cells.some(Boolean);
      for (let c = Math.min(from, to); c <= Math.max(from, to); c++) cells[c] = value;
      // A day that had nothing painted carried a limit of 0; painting starts it afresh without one.
      return { cells, limit: wasEmpty && current.limit === 0 ? null : current.limit };
    });

  const onSave = async () => {
    setTried(true);
    if (blocking.length || !changed.length) return;
    const days = Object.fromEntries(changed.map((d) => [d, toDaySchedule(week[d])]));
    try {
      const answer = await save.mutateAsync(days);
      const next = toEditWeek(answer.days);
      setSaved(next);
      setWeek(next);
      setTried(false);
      notifySaved(`${childName}’s routine is saved and on its way to their devices.`, 'Routine saved');
    } catch {
      // Shown under the days and in the alert below.
    }
  };

  const problemOf = (d: Weekday) => problems[d] ?? serverProblems[d] ?? null;
  const otherServerError = save.error && !Object.keys(serverProblems).length ? messageOf(save.error) : null;

  return (
    <Grid gap="lg">
      <Grid.Col span={{ base: 12, md: 7 }}>
        {/* Visible overflow, so the save bar can stick to the bottom of the screen. */}
        <Card
          withBorder
          radius="lg"
          padding="lg"
          component="section"
          aria-labelledby="day-title"
          style={{ overflow: 'visible' }}
        >
          <Stack gap="md">
            <SegmentedControl
              fullWidth
              aria-label="Day to edit"
              value={day}
              onChange={(value) => setDay(value as Weekday)}
              data={WEEKDAYS.map((d) => ({ value: d, label: DAY_SHORT[d] }))}
              styles={{ label: { paddingInline: 2 } }}
              data-testid="day-picker"
            />
            <Group justify="space-between" gap="xs">
              <Title order={2} fz="lg" id="day-title">
                {DAY_LABELS[day]}
              </Title>
              <Text size="sm" c="dimmed" data-testid="day-summary">
                {daySummary(edit)}
              </Text>
            </Group>
            {problemOf(day) ? (
              <Alert color="red" variant="light" icon={<IconAlert />} role="alert" data-testid="day-problem">
                {problemOf(day)}
              </Alert>
            ) : null}
            <Stack gap={6}>
              <Text size="sm" fw={500} id="presets-label">
                Start from
              </Text>
              <Group gap="xs" role="group" aria-labelledby="presets-label">
                {PRESETS.map((p) => (
                  <Button
                    key={p.id}
                    variant="default"
                    size="xs"
                    title={p.description}
                    onClick={() => update(day, () => p.day())}
                  >
                    {p.label}
                  </Button>
                ))}
              </Group>
            </Stack>
            <Text size="sm" c="dimmed" id="grid-help">
              Coloured squares are allowed time, 15 minutes each, in {schedule.timezone} time. Drag across
              squares to paint or clear them. With a keyboard: arrow keys move, Space or Enter switches a
              square, Shift with an arrow paints as it moves. At most 4 separate periods a day.
            </Text>
            <DayGrid
              key={day}
              dayLabel={DAY_LABELS[day]}
              cells={edit.cells}
              onPaint={paint}
              describedBy="grid-help"
            />
            <LimitControl day={day} edit={edit} onChange={(limit) => update(day, (c) => ({ ...c, limit }))} />
            <CopyDay
              day={day}
              onCopy={(targets) =>
                setWeek((current) => {
                  const next = { ...current };
                  for (const t of targets)
                    next[t] = { cells: [...current[day].cells], limit: current[day].limit };
                  return next;
                })
              }
            />
            <Stack gap="xs" className="hearth-savebar" data-testid="save-bar">
              {tried && blocking.length ? (
                <Alert
                  color="red"
                  variant="light"
                  icon={<IconAlert />}
                  role="alert"
                  data-testid="save-refused"
                >
                  Not saved: {blocking.map((d) => DAY_LABELS[d]).join(', ')}{' '}
                  {blocking.length === 1 ? 'needs' : 'need'} fixing first.
                </Alert>
              ) : null}
              {otherServerError ? <ErrorAlert error={otherServerError} title="Routine not saved" /> : null}
              <Group gap="xs">
                <Button onClick={onSave} loading={save.isPending} disabled={!changed.length}>
                  Save routine
                </Button>
                <Button
                  variant="default"
                  disabled={!changed.length || save.isPending}
                  onClick={() => {
                    setWeek(saved);
                    setTried(false);
                    save.reset();
                  }}
                >
                  Undo changes
                </Button>
              </Group>
              <Text size="sm" c="dimmed" aria-live="polite" data-testid="save-state">
                {changed.length
                  ? `${changed.length} ${changed.length === 1 ? 'day' : 'days'} changed, not saved yet.`
                  : 'Everything is saved.'}
              </Text>
            </Stack>
          </Stack>
        </Card>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 5 }}>
        <Stack gap="lg">
          <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="week-title">
            <Stack gap="sm">
              <Title order={2} fz="lg" id="week-title">
                The week
              </Title>
              <Stack gap={4} data-testid="week-overview">
                {WEEKDAYS.map((d) => (
                  <UnstyledButton
                    key={d}
                    onClick={() => setDay(d)}
                    className="hearth-row"
                    p={6}
                    style={{ borderRadius: 8 }}
                    aria-current={d === day ? 'true' : undefined}
                    data-testid={`week-${d}`}
                  >
                    <Text size="sm" fw={d === day ? 700 : 500}>
                      {DAY_LABELS[d]}
                      {changed.includes(d) ? ' (changed)' : ''}
                    </Text>
                    <Text size="sm" c="dimmed">
                      {daySummary(week[d])}
                    </Text>
                    {problemOf(d) ? (
                      <Text size="sm" c="red" data-testid={`week-problem-${d}`}>
                        {problemOf(d)}
                      </Text>
                    ) : null}
                  </UnstyledButton>
                ))}
              </Stack>
            </Stack>
          </Card>
          <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="devices-sync-title">
            <Stack gap="sm">
              <Title order={2} fz="lg" id="devices-sync-title">
                On {childName}’s devices
              </Title>
              <SyncList childId={childId} />
            </Stack>
          </Card>
        </Stack>
      </Grid.Col>
    </Grid>
  );
}

function RoutineDetails({ id }: { id: string }) {
  // The editor starts from the schedule once and keeps the parent's unsaved painting across refreshes.
  const resource = useSchedule(id);
  return (
    <ChildEditorPage
      id={id}
      resource={resource}
      noun="routine"
      description="When a device may be used, and for how long each day. Every device of the child follows it, even offline."
      skeletonHeight={480}
    >
      {(child, schedule) => (
        <RoutineEditor key={child.id} childId={child.id} childName={child.name} schedule={schedule} />
      )}
    </ChildEditorPage>
  );
}

export function RoutinePage() {
  const { id = '' } = useParams();
  return <RoutineDetails key={id} id={id} />;
}
