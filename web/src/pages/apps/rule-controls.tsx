import { Box, Button, Group, NumberInput, Text } from '@mantine/core';
import { type FormEvent, type RefObject, useEffect, useRef, useState } from 'react';
import {
  type AppAction,
  type AppRule,
  appKey,
  DAILY_MINUTES_MAX,
  DAILY_MINUTES_MIN,
} from '../../api/inventory';
import { ACTION_COLORS, ACTION_LABELS, dailyText } from '../../components/app-bits';
import type { AppPolicyState, RuleChoice, RuleTarget } from './use-app-policy';

const DEFAULT_MINUTES = 60;
type Choice = AppAction | 'none';

function minutesProblem(value: string | number): string | null {
  const n = typeof value === 'number' ? value : Number(value);
  if (value === '' || !Number.isInteger(n) || n < DAILY_MINUTES_MIN || n > DAILY_MINUTES_MAX)
    return `Enter whole minutes from ${DAILY_MINUTES_MIN} to ${DAILY_MINUTES_MAX} (a whole day).`;
  return null;
}

function LimitEditor({
  app,
  initial,
  busy,
  disabled,
  onSave,
  onCancel,
}: {
  app: RuleTarget;
  initial: number;
  busy: boolean;
  disabled: boolean;
  onSave: (minutes: number) => void;
  onCancel: () => void;
}) {
  const [minutes, setMinutes] = useState<string | number>(initial);
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  // Opening the form takes the keyboard to the minutes.
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);

  function submit(event: FormEvent) {
    event.preventDefault();
    const problem = minutesProblem(minutes);
    setError(problem);
    if (!problem) onSave(Number(minutes));
  }

  const valid = !minutesProblem(minutes);
  return (
    <Box
      component="form"
      onSubmit={submit}
      noValidate
      aria-label={`Daily limit for ${app.application_name}`}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !busy) {
          e.preventDefault();
          onCancel();
        }
      }}
      p="sm"
      mt="xs"
      ml={{ base: 0, xs: 52 }}
      style={{ borderRadius: 'var(--mantine-radius-md)', backgroundColor: 'var(--hearth-page-bg)' }}
    >
      <Group gap="sm" align="flex-end" wrap="wrap">
        <NumberInput
          label="Minutes a day"
          value={minutes}
          onChange={(v) => {
            setMinutes(v);
            setError(null);
          }}
          min={DAILY_MINUTES_MIN}
          max={DAILY_MINUTES_MAX}
          step={15}
          allowDecimal={false}
          allowNegative={false}
          clampBehavior="none"
          error={error}
          w={150}
          ref={input}
        />
        <Group gap="xs" wrap="nowrap">
          <Button type="submit" loading={busy} disabled={disabled}>
            Save limit
          </Button>
          <Button variant="default" onClick={onCancel} disabled={busy}>
            Cancel
          </Button>
        </Group>
      </Group>
      <Text size="xs" c="dimmed" mt={6} aria-live="polite">
        {valid
          ? `${app.application_name}: up to ${dailyText(Number(minutes))}.`
          : 'How long the app may be used each day.'}
      </Text>
    </Box>
  );
}

export interface RuleEditing {
  /** The minutes form of Limit is open. */
  editing: boolean;
  setEditing: (open: boolean) => void;
  /** The button whose save is under way. */
  pressed: Choice | null;
  save: (choice: RuleChoice) => Promise<void>;
  /** Closes the minutes form and gives the keyboard back to the Limit button. */
  close: () => void;
  limitButton: RefObject<HTMLButtonElement | null>;
}

/** One app's rule being changed: which button was pressed, and whether the minutes form is open. */
export function useRuleEditing(app: RuleTarget, state: AppPolicyState): RuleEditing {
  const [editing, setEditing] = useState(false);
  const [pressed, setPressed] = useState<Choice | null>(null);
  const limitButton = useRef<HTMLButtonElement>(null);
  function close() {
    const focusWasInForm = editing;
    setEditing(false);
    if (focusWasInForm) window.requestAnimationFrame(() => limitButton.current?.focus());
  }
  async function save(choice: RuleChoice) {
    setPressed(choice?.action ?? 'none');
    const ok = await state.choose(app, choice);
    setPressed(null);
    if (ok && choice?.action === 'limit') close();
  }
  return { editing, setEditing, pressed, save, close, limitButton };
}

/**
 * No rule / Allow / Block / Limit for one app, as toggle buttons: the pressed one is the saved rule.
 * No rule, Allow and Block save at once; Limit first opens the minutes form.
 */
export function RuleButtons({
  app,
  rule,
  state,
  edit,
}: {
  app: RuleTarget;
  rule: AppRule | undefined;
  state: AppPolicyState;
  edit: RuleEditing;
}) {
  const savingHere = state.saving === appKey(app);
  const locked = !state.policy || state.conflict || (state.saving !== null && !savingHere);
  const current: Choice = rule?.action ?? 'none';
  const name = app.application_name;
  const buttons: { value: Choice; label: string; aria: string }[] = [
    { value: 'none', label: 'No rule', aria: `No rule for ${name}` },
    { value: 'allow', label: ACTION_LABELS.allow, aria: `Allow ${name}` },
    { value: 'block', label: ACTION_LABELS.block, aria: `Block ${name}` },
    { value: 'limit', label: ACTION_LABELS.limit, aria: `Limit ${name}` },
  ];

  return (
    <Button.Group aria-label={`Rule for ${name}`} w={{ base: '100%', xs: 'auto' }} style={{ flex: 'none' }}>
      {buttons.map((b) => {
        const active = b.value === current;
        return (
          <Button
            key={b.value}
            size="xs"
            variant={
              active
                ? b.value === 'none'
                  ? 'light'
                  : 'filled'
                : b.value === 'limit' && edit.editing
                  ? 'light'
                  : 'default'
            }
            color={b.value === 'none' ? 'gray' : ACTION_COLORS[b.value]}
            aria-pressed={active}
            aria-label={b.aria}
            aria-expanded={b.value === 'limit' ? edit.editing : undefined}
            style={{ flex: '1 1 auto' }}
            ref={b.value === 'limit' ? edit.limitButton : undefined}
            loading={savingHere && edit.pressed === b.value}
            disabled={locked || (savingHere && edit.pressed !== b.value)}
            onClick={() => {
              if (b.value === 'limit') {
                edit.setEditing(true);
                return;
              }
              edit.setEditing(false);
              if (!active) void edit.save(b.value === 'none' ? null : { action: b.value });
            }}
          >
            {b.label}
          </Button>
        );
      })}
    </Button.Group>
  );
}

/** The minutes form under an app, while Limit is being set. */
export function RuleLimitForm({
  app,
  rule,
  state,
  edit,
}: {
  app: RuleTarget;
  rule: AppRule | undefined;
  state: AppPolicyState;
  edit: RuleEditing;
}) {
  if (!edit.editing) return null;
  const savingHere = state.saving === appKey(app);
  return (
    <LimitEditor
      app={app}
      initial={rule?.action === 'limit' && rule.daily_minutes ? rule.daily_minutes : DEFAULT_MINUTES}
      busy={savingHere}
      disabled={!state.policy || state.conflict || (state.saving !== null && !savingHere)}
      onSave={(minutes) => void edit.save({ action: 'limit', daily_minutes: minutes })}
      onCancel={edit.close}
    />
  );
}
