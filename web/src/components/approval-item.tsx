import {
  Anchor,
  Badge,
  Button,
  Group,
  NumberInput,
  Paper,
  Stack,
  Text,
  ThemeIcon,
  VisuallyHidden,
} from '@mantine/core';
import { type ReactNode, useId, useState } from 'react';
import { Link } from 'react-router-dom';
import { type ApprovalType, type ApprovalView, type GrantKind, useDecideApproval } from '../api/approvals';
import { ApiError, messageOf } from '../api/client';
import { plural } from '../labels';
import { ChildAvatar } from './child-bits';
import { RelativeTime } from './device-bits';
import { IconCheck, IconDevices, IconExternal, IconPlus, IconX } from './icons';

export const APPROVAL_TYPE_LABELS: Record<ApprovalType, string> = {
  site_signup: 'Site Sign-Up',
  time_extension: 'Time',
  app_access: 'App',
  domain_unblock: 'Website',
};

const TYPE_COLORS: Record<ApprovalType, string> = {
  site_signup: 'hearth',
  time_extension: 'blue',
  app_access: 'teal',
  domain_unblock: 'grape',
};

export const MAX_EXTRA_MINUTES = 1440;
const SHOWN_URL_LENGTH = 120;

function textOf(value: unknown): string | null {
  return typeof value === 'string' && value.trim() ? value.trim() : null;
}

function minutesOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_EXTRA_MINUTES
    ? value
    : null;
}

/** Who asked: the child, else the account on the device. */
export function approvalSubject(approval: ApprovalView): string {
  return approval.managed_user_name ?? `Account ${approval.linux_username}`;
}

/** What was asked for, in words. */
function requestLine(approval: ApprovalView): ReactNode {
  const { details } = approval;
  switch (approval.type) {
    case 'site_signup':
      return (
        <>
          Wants to create an account on <b>{approval.domain ?? 'a website'}</b>
        </>
      );
    case 'time_extension': {
      const minutes = minutesOf(details.minutes);
      return minutes ? `Asks for ${plural(minutes, 'more minute')} today` : 'Asks for more time today';
    }
    case 'app_access': {
      const name = textOf(details.application_name) ?? textOf(details.identifier) ?? 'an app';
      return (
        <>
          Asks to use the app <b>{name}</b>
        </>
      );
    }
    case 'domain_unblock':
      return (
        <>
          Asks to open <b>{approval.domain ?? textOf(details.domain) ?? 'a website'}</b>, which is blocked
        </>
      );
  }
}

/** "Approved once", "Approved always", "Approved 15 of 30 minutes", "Approved", "Denied". */
export function outcomeLabel(approval: ApprovalView): string {
  if (approval.status === 'denied') return 'Denied';
  const granted = approval.approved_minutes;
  if (approval.status === 'approved' && granted) {
    const asked = minutesOf(approval.details.minutes);
    return asked && asked !== granted
      ? `Approved ${granted} of ${asked} minutes`
      : `Approved ${plural(granted, 'minute')}`;
  }
  if (approval.grant === 'once') return 'Approved once';
  if (approval.grant === 'persistent') return 'Approved always';
  return 'Approved';
}

function SignupUrl({ url }: { url: string }) {
  if (!/^https?:\/\//i.test(url)) return null;
  const shown = url.length > SHOWN_URL_LENGTH ? `${url.slice(0, SHOWN_URL_LENGTH - 1)}…` : url;
  return (
    <Anchor
      href={url}
      target="_blank"
      rel="noopener noreferrer"
      size="sm"
      title={url}
      data-testid="approval-url"
      style={{ overflowWrap: 'anywhere' }}
    >
      {shown}
      <IconExternal size={14} style={{ marginLeft: 4, verticalAlign: '-2px' }} />
      <VisuallyHidden> (opens in a new tab)</VisuallyHidden>
    </Anchor>
  );
}

export interface ApprovalItemProps {
  approval: ApprovalView;
  /** The device's name, when known. */
  deviceName: string | undefined;
  /** "you", a parent's name, or "another parent". */
  deciderName: (parentId: string | null) => string;
  /** Another parent answered first; the item then says so. */
  overtaken: boolean;
  onDecided: (view: ApprovalView) => void;
  /**
   * A 409: the request as it stands now, once looked up; when it is decided the item moves and says
   * another parent answered, else the server's sentence shows.
   */
  onConflict: (approval: ApprovalView) => Promise<ApprovalView | null>;
}

type Busy = 'once' | 'persistent' | 'minutes' | 'deny' | null;

/**
 * One approval request: who asked for what, from which device and when; while it waits, the answers
 * (Approve once / Approve always, or Add N minutes, and Deny); once decided, the outcome, by whom, when.
 */
export function ApprovalItem({
  approval,
  deviceName,
  deciderName,
  overtaken,
  onDecided,
  onConflict,
}: ApprovalItemProps) {
  const titleId = useId();
  const decide = useDecideApproval();
  const [busy, setBusy] = useState<Busy>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const asked = minutesOf(approval.details.minutes);
  const [minutes, setMinutes] = useState<string | number>(asked ?? 15);
  const [minutesError, setMinutesError] = useState<string | null>(null);
  const pending = approval.status === 'pending';
  const isTime = approval.type === 'time_extension';
  const reason = textOf(approval.details.reason) ?? textOf(approval.details.message);
  const identifier = textOf(approval.details.identifier);
  const showIdentifier =
    approval.type === 'app_access' &&
    identifier !== null &&
    identifier !== textOf(approval.details.application_name);
  // Only a request from an account linked to a child can be allowed: the answer is kept for the child.
  const unlinked = approval.mapping_id === null;
  const wholeMinutes = minutesOf(minutes);

  async function answer(kind: Exclude<Busy, null>) {
    setFailure(null);
    if (kind === 'minutes' && wholeMinutes === null) {
      setMinutesError(`Enter 1 to ${MAX_EXTRA_MINUTES} minutes.`);
      return;
    }
    setMinutesError(null);
    setBusy(kind);
    try {
      const view = await decide(
        approval,
        kind === 'deny'
          ? { deny: true }
          : kind === 'minutes'
            ? { minutes: wholeMinutes ?? undefined }
            : { grant: kind as GrantKind },
      );
      onDecided(view);
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) {
        const now = await onConflict(approval).catch(() => null);
        if (!now || now.status === 'pending') setFailure(err.message);
      } else {
        setFailure(messageOf(err));
      }
    } finally {
      setBusy(null);
    }
  }

  const decidedBy = deciderName(approval.decided_by);
  return (
    <Paper
      withBorder
      radius="md"
      p="md"
      data-testid="approval-item"
      data-status={approval.status}
      data-unread={pending || undefined}
      className="hearth-alert"
    >
      <Group justify="space-between" align="flex-end" gap="sm" wrap="wrap">
        <Group wrap="nowrap" align="flex-start" gap="md" style={{ flex: '1 1 20rem', minWidth: 0 }}>
          {approval.managed_user_name ? (
            <ChildAvatar name={approval.managed_user_name} />
          ) : (
            <ThemeIcon variant="light" color="gray" size={38} radius="xl">
              <IconDevices size={20} />
            </ThemeIcon>
          )}
          <Stack gap={4} style={{ minWidth: 0 }}>
            <Group gap="xs" align="center">
              <Text fw={600} id={titleId} style={{ overflowWrap: 'anywhere' }}>
                {approvalSubject(approval)}
              </Text>
              <Badge
                variant="light"
                color={TYPE_COLORS[approval.type]}
                radius="sm"
                data-testid="approval-type"
              >
                {APPROVAL_TYPE_LABELS[approval.type]}
              </Badge>
              {pending ? null : (
                <Badge
                  variant="dot"
                  color={approval.status === 'denied' ? 'red' : 'teal'}
                  radius="sm"
                  data-testid="approval-outcome"
                >
                  {outcomeLabel(approval)}
                </Badge>
              )}
            </Group>
            <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
              {requestLine(approval)}
              {deviceName ? (
                <>
                  <Text span c="dimmed" size="sm">
                    {' · on '}
                  </Text>
                  <Anchor
                    component={Link}
                    to={`/devices/${encodeURIComponent(approval.system_id)}`}
                    size="sm"
                  >
                    {deviceName}
                  </Anchor>
                </>
              ) : null}
            </Text>
            {approval.type === 'site_signup' && approval.url ? <SignupUrl url={approval.url} /> : null}
            {showIdentifier ? (
              <Text size="xs" c="dimmed" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                {identifier}
              </Text>
            ) : null}
            {reason ? (
              <Text size="sm" className="hearth-quote" style={{ overflowWrap: 'anywhere' }}>
                “{reason}”
              </Text>
            ) : null}
            <Text size="xs" c="dimmed">
              Asked <RelativeTime iso={approval.requested_at} />
              {!pending && approval.decided_at ? (
                <>
                  {` · ${approval.status === 'denied' ? 'denied' : 'approved'} by ${decidedBy} `}
                  <RelativeTime iso={approval.decided_at} />
                </>
              ) : null}
            </Text>
            {overtaken && !pending ? (
              <Text size="sm" c="yellow" fw={500} role="status" data-testid="approval-overtaken">
                Another parent already decided this.
              </Text>
            ) : null}
            {pending && unlinked ? (
              <Text size="sm" c="dimmed">
                This account is not linked to a child, so there is nothing to allow it for. Link it on the
                device’s page, or deny the request.
              </Text>
            ) : null}
            {failure ? (
              <Text size="sm" c="red" role="alert">
                Not decided: {failure}
              </Text>
            ) : null}
          </Stack>
        </Group>
        {pending ? (
          <Group gap="xs" align="flex-end" wrap="wrap" justify="flex-end" style={{ marginLeft: 'auto' }}>
            {isTime ? (
              <>
                <NumberInput
                  label="Minutes"
                  size="xs"
                  w={92}
                  min={1}
                  max={MAX_EXTRA_MINUTES}
                  allowDecimal={false}
                  allowNegative={false}
                  value={minutes}
                  onChange={setMinutes}
                  error={minutesError}
                  disabled={busy !== null || unlinked}
                />
                <Button
                  size="xs"
                  leftSection={<IconPlus size={14} />}
                  onClick={() => answer('minutes')}
                  loading={busy === 'minutes'}
                  disabled={(busy !== null && busy !== 'minutes') || unlinked}
                  aria-describedby={titleId}
                >
                  {wholeMinutes ? `Add ${plural(wholeMinutes, 'minute')}` : 'Add minutes'}
                </Button>
              </>
            ) : (
              <>
                <Button
                  size="xs"
                  leftSection={<IconCheck size={14} />}
                  onClick={() => answer('once')}
                  loading={busy === 'once'}
                  disabled={(busy !== null && busy !== 'once') || unlinked}
                  aria-describedby={titleId}
                >
                  Approve once
                </Button>
                <Button
                  size="xs"
                  variant="light"
                  leftSection={<IconCheck size={14} />}
                  onClick={() => answer('persistent')}
                  loading={busy === 'persistent'}
                  disabled={(busy !== null && busy !== 'persistent') || unlinked}
                  aria-describedby={titleId}
                >
                  Approve always
                </Button>
              </>
            )}
            <Button
              size="xs"
              variant="default"
              leftSection={<IconX size={14} />}
              onClick={() => answer('deny')}
              loading={busy === 'deny'}
              disabled={busy !== null && busy !== 'deny'}
              aria-describedby={titleId}
            >
              Deny
            </Button>
          </Group>
        ) : null}
      </Group>
    </Paper>
  );
}
