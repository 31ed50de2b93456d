import { Button, Group, NativeSelect, NumberInput, Stack, Text } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { useApprovalSettings } from '../../api/approvals';
import { messageOf } from '../../api/client';
import { useSaveScreenshotInterval } from '../../api/device-policy';
import { notifySaved } from '../../components/page';
import { INTERVAL_PRESETS, intervalLabel, MAX_INTERVAL, MIN_INTERVAL } from './policy-words';

const OTHER = 'other';

/**
 * How often Hearth takes a screenshot of the account by itself: Off, a few usual intervals, or any
 * number of minutes from 5 to 1440. A choice saves at once (the mapping's approval settings).
 */
export function ScreenshotInterval({
  mappingId,
  linuxUsername,
  childName,
}: {
  mappingId: string;
  linuxUsername: string;
  childName: string;
}) {
  const settings = useApprovalSettings(mappingId);
  const save = useSaveScreenshotInterval(mappingId);
  const [custom, setCustom] = useState<number | string | null>(null);
  const [invalid, setInvalid] = useState<string | null>(null);
  const minutes = settings.data?.screenshot_interval_minutes;

  function choose(next: number) {
    save.mutate(next, {
      onSuccess: () => {
        setCustom(null);
        notifySaved(
          next === 0
            ? `Hearth takes no screenshots of ${childName} (${linuxUsername}) by itself any more.`
            : `Hearth takes a screenshot of ${childName} (${linuxUsername}) ${intervalLabel(next).toLowerCase()}.`,
          'Screenshot interval saved',
        );
      },
    });
  }

  function submitCustom(event: FormEvent) {
    event.preventDefault();
    const value = typeof custom === 'number' ? custom : Number(custom);
    if (!Number.isInteger(value) || value < MIN_INTERVAL || value > MAX_INTERVAL) {
      setInvalid(`Choose a whole number of minutes from ${MIN_INTERVAL} to ${MAX_INTERVAL}.`);
      return;
    }
    setInvalid(null);
    choose(value);
  }

  if (settings.error && minutes === undefined) {
    return (
      <Text size="sm" c="red" role="alert">
        Could not load the screenshot interval: {settings.error.message}
      </Text>
    );
  }
  if (minutes === undefined) return null;

  const presets = INTERVAL_PRESETS.includes(minutes) ? INTERVAL_PRESETS : [...INTERVAL_PRESETS, minutes];
  const options = [
    ...[...presets].sort((a, b) => a - b).map((m) => ({ value: String(m), label: intervalLabel(m) })),
    { value: OTHER, label: 'Another interval…' },
  ];
  return (
    <Stack gap={6}>
      <NativeSelect
        label="Automatic screenshots"
        description="Only while the account is signed in and its screen is on."
        data={options}
        value={custom !== null ? OTHER : String(minutes)}
        disabled={save.isPending}
        onChange={(e) => {
          const value = e.currentTarget.value;
          save.reset();
          setInvalid(null);
          if (value === OTHER) setCustom(minutes || 45);
          else choose(Number(value));
        }}
        data-testid="screenshot-interval"
        aria-label={`Automatic screenshots of ${childName} (${linuxUsername})`}
        size="sm"
      />
      {custom !== null ? (
        <form onSubmit={submitCustom} noValidate aria-label="Another interval">
          <Group gap="xs" align="flex-start" wrap="wrap">
            <NumberInput
              aria-label="Minutes between screenshots"
              size="sm"
              min={MIN_INTERVAL}
              max={MAX_INTERVAL}
              step={5}
              allowDecimal={false}
              allowNegative={false}
              value={custom}
              onChange={setCustom}
              error={invalid}
              rightSection={
                <Text size="xs" c="dimmed" pr={28}>
                  min
                </Text>
              }
              style={{ flex: '1 1 8rem' }}
              data-testid="screenshot-interval-minutes"
            />
            <Button type="submit" size="sm" variant="light" loading={save.isPending}>
              Save
            </Button>
            <Button size="sm" variant="subtle" color="gray" onClick={() => setCustom(null)}>
              Cancel
            </Button>
          </Group>
        </form>
      ) : null}
      {save.error ? (
        <Text size="sm" c="red" role="alert">
          Not saved: {messageOf(save.error)}
        </Text>
      ) : null}
    </Stack>
  );
}
