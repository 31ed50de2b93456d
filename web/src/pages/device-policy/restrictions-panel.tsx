// An account's Linux restrictions (DESIGN §12): one switch per rule with its state on the device, the
// allowed extensions, and Save, which sends the whole document. The state follows the device live.
import { Alert, Badge, Button, Card, Group, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { useLocation } from 'react-router-dom';
import { messageOf } from '../../api/client';
import {
  LINUX_POLICY_RULES,
  type LinuxDevicePolicy,
  type LinuxDevicePolicyView,
  type LinuxPolicyRule,
  linuxPolicyOf,
  type PolicySyncStatus,
  useLinuxPolicy,
  useSaveLinuxPolicy,
} from '../../api/device-policy';
import { IconAlert, IconLock } from '../../components/icons';
import { ErrorAlert, notifySaved, StaleNotice } from '../../components/page';
import { ExtensionList } from './extension-list';
import { LINUX_RULE_WORDS, policySummary, type RuleState, ruleState, withName } from './policy-words';
import { RuleList, type RuleRow } from './rule-list';

/** The anchor a child's page links to. */
export const restrictionsAnchor = (mappingId: string) => `restrictions-${mappingId}`;

const samePolicy = (a: LinuxDevicePolicy, b: LinuxDevicePolicy) =>
  LINUX_POLICY_RULES.every((rule) => a[rule] === b[rule]) &&
  a.allowed_extension_ids.join(' ') === b.allowed_extension_ids.join(' ');

const SYNC_BADGES: Record<PolicySyncStatus, { label: string; color: string }> = {
  synced: { label: 'Applied', color: 'teal' },
  pending: { label: 'Waiting for the device', color: 'yellow' },
  failed: { label: 'Not all applied', color: 'red' },
  unsupported: { label: 'Not possible here', color: 'gray' },
};

function PolicyBadge({ view }: { view: LinuxDevicePolicyView }) {
  if (view.version === 0 && view.sync.status !== 'unsupported') return null;
  const badge = SYNC_BADGES[view.sync.status as PolicySyncStatus] ?? SYNC_BADGES.pending;
  return (
    <Badge
      variant="light"
      color={badge.color}
      radius="sm"
      data-testid="restrictions-status"
      data-state={view.sync.status}
    >
      {badge.label}
    </Badge>
  );
}

/** Whether a rule differs from what is saved; the allowed extensions belong to their rule. */
const ruleChanged = (a: LinuxDevicePolicy, b: LinuxDevicePolicy, rule: LinuxPolicyRule) =>
  a[rule] !== b[rule] ||
  (rule === 'block_other_extensions' &&
    a.allowed_extension_ids.join(' ') !== b.allowed_extension_ids.join(' '));

/** A rule that is off and was not just changed has nothing to wait for: it shows Off, not a loader. */
const shownState = (state: RuleState, matters: boolean): RuleState =>
  state.kind === 'pending' && !matters ? { kind: 'unset' } : state;

/** Scrolls the panel into view when the page was opened at its anchor (from the child's page). */
function useScrollToAnchor(anchor: string, ready: boolean) {
  const { hash } = useLocation();
  const ref = useRef<HTMLDivElement>(null);
  const done = useRef(false);
  useEffect(() => {
    if (!ready || done.current || hash !== `#${anchor}`) return;
    done.current = true;
    ref.current?.scrollIntoView({ block: 'start' });
  }, [anchor, hash, ready]);
  return ref;
}

export function RestrictionsPanel({
  systemId,
  mappingId,
  linuxUsername,
  childName,
}: {
  systemId: string;
  mappingId: string;
  linuxUsername: string;
  childName: string;
}) {
  const policy = useLinuxPolicy(systemId, mappingId);
  const save = useSaveLinuxPolicy(systemId, mappingId);
  // The parent's unsaved changes; null follows what the server has (and its live updates).
  const [draft, setDraft] = useState<LinuxDevicePolicy | null>(null);
  // The rules this tab's last save changed: switched off, they still wait for the device to undo them.
  const [lastChanged, setLastChanged] = useState<ReadonlySet<string>>(new Set());
  const view = policy.data;
  const anchor = restrictionsAnchor(mappingId);
  const ref = useScrollToAnchor(anchor, !!view);
  const titleId = `${anchor}-title`;

  const saved = view ? linuxPolicyOf(view) : null;
  const current = draft ?? saved;
  const dirty = !!(draft && saved && !samePolicy(draft, saved));

  function change(next: LinuxDevicePolicy) {
    save.reset();
    setDraft(next);
  }

  function submit() {
    if (!current || !saved) return;
    const changed = LINUX_POLICY_RULES.filter((rule) => ruleChanged(current, saved, rule));
    save.mutate(current, {
      onSuccess: () => {
        setDraft(null);
        setLastChanged(new Set(changed));
        notifySaved(
          `${childName}’s restrictions are saved; the device applies them as soon as it has them.`,
          'Restrictions saved',
        );
      },
    });
  }

  const rows: RuleRow[] =
    view && current && saved
      ? LINUX_POLICY_RULES.map((rule: LinuxPolicyRule) => ({
          rule,
          label: LINUX_RULE_WORDS[rule].label,
          hint: withName(LINUX_RULE_WORDS[rule].hint, childName),
          checked: current[rule],
          changed: ruleChanged(current, saved, rule),
          state: shownState(ruleState(view, rule), current[rule] || lastChanged.has(rule)),
          extra:
            rule === 'block_other_extensions' && current.block_other_extensions ? (
              <ExtensionList
                ids={current.allowed_extension_ids}
                disabled={save.isPending}
                onChange={(ids) => change({ ...current, allowed_extension_ids: ids })}
              />
            ) : undefined,
        }))
      : [];

  return (
    <Card
      withBorder
      radius="lg"
      padding="lg"
      component="section"
      aria-labelledby={titleId}
      id={anchor}
      ref={ref}
      data-testid="restrictions-panel"
      data-account={linuxUsername}
      style={{ scrollMarginTop: 80 }}
    >
      <Stack gap="md">
        <Group justify="space-between" align="flex-start" gap="sm">
          <Group gap="sm" wrap="nowrap" style={{ minWidth: 0, flex: '1 1 16rem' }}>
            <IconLock size={22} style={{ flex: 'none' }} />
            <Stack gap={2} style={{ minWidth: 0 }}>
              <Title order={2} fz="lg" id={titleId}>
                Restrictions for {childName}
              </Title>
              <Text size="sm" c="dimmed">
                Account <b>{linuxUsername}</b>. Only this account is restricted; parents’ accounts stay as
                they are.
              </Text>
            </Stack>
          </Group>
          {view ? <PolicyBadge view={view} /> : null}
        </Group>
        {policy.error && !view ? (
          <ErrorAlert error={policy.error} onRetry={policy.reload} title="Could not load the restrictions" />
        ) : null}
        {view ? <StaleNotice error={policy.error} /> : null}
        {!view && !policy.error ? (
          <Stack gap="xs" aria-busy="true">
            <Skeleton h={18} w="70%" />
            <Skeleton h={220} radius="md" />
          </Stack>
        ) : null}
        {view ? (
          <>
            {view.sync.status === 'failed' || view.sync.status === 'unsupported' ? (
              <Alert
                variant="light"
                color={view.sync.status === 'failed' ? 'red' : 'gray'}
                icon={<IconAlert />}
                role="status"
                data-testid="restrictions-summary"
              >
                {policySummary(view, LINUX_RULE_WORDS)}
              </Alert>
            ) : (
              <Text size="sm" data-testid="restrictions-summary" aria-live="polite">
                {policySummary(view, LINUX_RULE_WORDS)}
              </Text>
            )}
            <RuleList
              rows={rows}
              disabled={save.isPending}
              onToggle={(rule, on) => current && change({ ...current, [rule]: on })}
            />
            <ErrorAlert error={save.error && messageOf(save.error)} title="The restrictions were not saved" />
            <Group justify="flex-end" gap="sm">
              {dirty ? (
                <Button variant="default" onClick={() => setDraft(null)} disabled={save.isPending}>
                  Undo changes
                </Button>
              ) : null}
              <Button
                onClick={submit}
                loading={save.isPending}
                disabled={!dirty}
                data-testid="restrictions-save"
              >
                Save restrictions
              </Button>
            </Group>
          </>
        ) : null}
      </Stack>
    </Card>
  );
}
