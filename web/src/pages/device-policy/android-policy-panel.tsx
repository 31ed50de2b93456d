// An Android policy (DESIGN §12): the device-wide device-owner policy, or one account's. The same
// switches as the Restrictions panel, with the location mode, saved as the whole document.
import { Badge, Button, Card, Group, NativeSelect, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { messageOf } from '../../api/client';
import {
  ANDROID_SWITCHES,
  type AndroidDevicePolicy,
  type AndroidLocationMode,
  androidPolicyOf,
  type PolicySyncStatus,
  useAndroidPolicy,
  useSaveAndroidPolicy,
} from '../../api/device-policy';
import { IconPhone } from '../../components/icons';
import { ErrorAlert, notifySaved, StaleNotice } from '../../components/page';
import { ANDROID_SWITCH_WORDS, LOCATION_MODE_LABELS, policySummary, ruleState } from './policy-words';
import { RuleList, type RuleRow } from './rule-list';

const STATUS_WORDS: Record<PolicySyncStatus, { label: string; color: string }> = {
  synced: { label: 'Applied', color: 'teal' },
  pending: { label: 'Waiting for the device', color: 'yellow' },
  failed: { label: 'Not all applied', color: 'red' },
  unsupported: { label: 'Not possible here', color: 'gray' },
};

const same = (a: AndroidDevicePolicy, b: AndroidDevicePolicy) =>
  ANDROID_SWITCHES.every((s) => a[s] === b[s]) && a.location_mode === b.location_mode;

export function AndroidPolicyPanel({
  systemId,
  mappingId,
  title,
  description,
}: {
  systemId: string;
  /** Null for the device-wide policy. */
  mappingId: string | null;
  title: string;
  description: string;
}) {
  const policy = useAndroidPolicy(systemId, mappingId);
  const save = useSaveAndroidPolicy(systemId, mappingId);
  const [draft, setDraft] = useState<AndroidDevicePolicy | null>(null);
  const view = policy.data;
  const saved = view ? androidPolicyOf(view) : null;
  const current = draft ?? saved;
  const dirty = !!(draft && saved && !same(draft, saved));
  const titleId = `android-policy-${mappingId ?? 'device'}-title`;
  const status = view ? (STATUS_WORDS[view.sync.status as PolicySyncStatus] ?? STATUS_WORDS.pending) : null;

  const rows: RuleRow[] =
    view && current && saved
      ? ANDROID_SWITCHES.map((rule) => ({
          rule,
          label: ANDROID_SWITCH_WORDS[rule].label,
          hint: ANDROID_SWITCH_WORDS[rule].hint,
          checked: current[rule],
          changed: current[rule] !== saved[rule],
          state: ruleState(view, rule),
        }))
      : [];

  return (
    <Card
      withBorder
      radius="lg"
      padding="lg"
      component="section"
      aria-labelledby={titleId}
      data-testid="android-policy-panel"
    >
      <Stack gap="md">
        <Group justify="space-between" align="flex-start" gap="sm">
          <Group gap="sm" wrap="nowrap" style={{ minWidth: 0, flex: '1 1 16rem' }}>
            <IconPhone size={22} style={{ flex: 'none' }} />
            <Stack gap={2} style={{ minWidth: 0 }}>
              <Title order={2} fz="lg" id={titleId}>
                {title}
              </Title>
              <Text size="sm" c="dimmed">
                {description}
              </Text>
            </Stack>
          </Group>
          {view && status && (view.version > 0 || view.sync.status === 'unsupported') ? (
            <Badge variant="light" color={status.color} radius="sm" data-state={view.sync.status}>
              {status.label}
            </Badge>
          ) : null}
        </Group>
        {policy.error && !view ? (
          <ErrorAlert error={policy.error} onRetry={policy.reload} title="Could not load the policy" />
        ) : null}
        {view ? <StaleNotice error={policy.error} /> : null}
        {!view && !policy.error ? <Skeleton h={200} radius="md" aria-busy="true" /> : null}
        {view && current ? (
          <>
            <Text size="sm" aria-live="polite">
              {policySummary(view, ANDROID_SWITCH_WORDS)}
            </Text>
            <RuleList
              rows={rows}
              disabled={save.isPending}
              onToggle={(rule, on) => {
                save.reset();
                setDraft({ ...current, [rule]: on });
              }}
            />
            <NativeSelect
              label="Location"
              description="Whether location services may be used, are always on, or always off."
              data={Object.entries(LOCATION_MODE_LABELS).map(([value, label]) => ({ value, label }))}
              value={current.location_mode}
              disabled={save.isPending}
              onChange={(e) => {
                save.reset();
                setDraft({ ...current, location_mode: e.currentTarget.value as AndroidLocationMode });
              }}
              maw={320}
            />
            <ErrorAlert error={save.error && messageOf(save.error)} title="The policy was not saved" />
            <Group justify="flex-end" gap="sm">
              {dirty ? (
                <Button variant="default" onClick={() => setDraft(null)} disabled={save.isPending}>
                  Undo changes
                </Button>
              ) : null}
              <Button
                loading={save.isPending}
                disabled={!dirty}
                onClick={() =>
                  save.mutate(current, {
                    onSuccess: () => {
                      setDraft(null);
                      notifySaved(
                        'The policy is saved; the phone applies it as soon as it has it.',
                        'Policy saved',
                      );
                    },
                  })
                }
              >
                Save policy
              </Button>
            </Group>
          </>
        ) : null}
      </Stack>
    </Card>
  );
}
