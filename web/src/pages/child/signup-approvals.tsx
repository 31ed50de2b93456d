import {
  Badge,
  Box,
  Button,
  Group,
  SegmentedControl,
  Skeleton,
  Stack,
  Switch,
  Text,
  TextInput,
} from '@mantine/core';
import { type FormEvent, useId, useState } from 'react';
import {
  addGrant,
  domainFromInput,
  type GrantKind,
  type GrantView,
  revokeGrant,
  setEnforceSignups,
  useApprovalSettings,
  useGrants,
} from '../../api/approvals';
import { messageOf } from '../../api/client';
import type { Mapping } from '../../api/types';
import { RelativeTime } from '../../components/device-bits';
import { IconPlus, IconTrash } from '../../components/icons';
import { ErrorAlert, notifySaved } from '../../components/page';
import { exactTime } from '../../labels';

export const SIGNUP_UNSUPPORTED =
  'This device’s agent is too old or does not support sign-up approvals (Linux and Windows agents 0.57.0 or later).';

/** "in 23 h", "in 5 min": how long until a time still to come. */
function timeUntil(iso: string, now = Date.now()): string {
  const minutes = Math.max(1, Math.round((Date.parse(iso) - now) / 60_000));
  if (minutes < 60) return `in ${minutes} min`;
  return `in ${Math.round(minutes / 60)} h`;
}

/** A one-time grant's state: used, run out, or until when. */
function GrantState({ grant }: { grant: GrantView }) {
  if (grant.kind === 'persistent') return <>Every sign-up on this site</>;
  if (grant.consumed_at) return <RelativeTime iso={grant.consumed_at} prefix="Used " />;
  if (grant.expires_at && Date.parse(grant.expires_at) <= Date.now()) return <>Expired, not used</>;
  if (!grant.expires_at) return <>One sign-up</>;
  return (
    <time dateTime={grant.expires_at} title={exactTime(grant.expires_at)}>
      One sign-up, ends {timeUntil(grant.expires_at)}
    </time>
  );
}

function GrantRow({ grant, onRevoke }: { grant: GrantView; onRevoke: (grant: GrantView) => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  const domainId = useId();
  const spent =
    grant.kind === 'once' &&
    (!!grant.consumed_at || (!!grant.expires_at && Date.parse(grant.expires_at) <= Date.now()));
  return (
    <Group
      component="li"
      justify="space-between"
      gap="xs"
      wrap="nowrap"
      py={6}
      data-testid="grant-row"
      style={{ borderTop: '1px solid var(--mantine-color-default-border)' }}
    >
      <Stack gap={0} style={{ minWidth: 0 }}>
        <Group gap={6} wrap="wrap">
          <Text
            size="sm"
            fw={600}
            id={domainId}
            style={{ overflowWrap: 'anywhere' }}
            c={spent ? 'dimmed' : undefined}
          >
            {grant.domain ?? 'A site'}
          </Text>
          <Badge size="sm" radius="sm" variant="light" color={grant.kind === 'persistent' ? 'teal' : 'blue'}>
            {grant.kind === 'persistent' ? 'Always' : 'Once'}
          </Badge>
        </Group>
        <Text size="xs" c="dimmed">
          <GrantState grant={grant} />
        </Text>
      </Stack>
      <Button
        size="compact-sm"
        variant="subtle"
        color="red"
        leftSection={<IconTrash size={14} />}
        loading={busy}
        aria-describedby={domainId}
        style={{ flexShrink: 0 }}
        onClick={async () => {
          setBusy(true);
          await onRevoke(grant);
          setBusy(false);
        }}
      >
        Revoke
      </Button>
    </Group>
  );
}

function AllowSiteForm({ mapping, onAdded }: { mapping: Mapping; onAdded: (grant: GrantView) => void }) {
  const [domain, setDomain] = useState('');
  const [kind, setKind] = useState<GrantKind>('once');
  const [invalid, setInvalid] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFailure(null);
    const wanted = domainFromInput(domain);
    if (!wanted) {
      setInvalid('Enter a website, such as example.com.');
      return;
    }
    setInvalid(null);
    setBusy(true);
    try {
      const grant = await addGrant(mapping.id, wanted, kind);
      setDomain('');
      onAdded(grant);
    } catch (err) {
      setFailure(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} noValidate aria-label="Allow a site">
      <Stack gap="xs">
        <Group gap="xs" align="flex-end" wrap="wrap">
          <TextInput
            label="Allow a site"
            placeholder="example.com"
            size="sm"
            value={domain}
            onChange={(e) => setDomain(e.currentTarget.value)}
            error={invalid}
            autoCapitalize="none"
            autoCorrect="off"
            spellCheck={false}
            inputMode="url"
            style={{ flex: '1 1 12rem' }}
          />
          <SegmentedControl
            aria-label="How often"
            size="sm"
            value={kind}
            onChange={(value) => setKind(value === 'persistent' ? 'persistent' : 'once')}
            data={[
              { value: 'once', label: 'Once' },
              { value: 'persistent', label: 'Always' },
            ]}
            mb={invalid ? 22 : 0}
          />
          <Button
            type="submit"
            size="sm"
            variant="light"
            loading={busy}
            leftSection={<IconPlus size={16} />}
            mb={invalid ? 22 : 0}
          >
            Allow
          </Button>
        </Group>
        {failure ? (
          <Text size="sm" c="red" role="alert">
            Not allowed: {failure}
          </Text>
        ) : null}
      </Stack>
    </form>
  );
}

/**
 * A mapping's sign-up approvals: the Enforce switch (disabled, with why, where the device cannot do
 * it) and the sites the child may sign up on, with Revoke and a form to allow one more.
 */
export function SignupApprovals({ mapping, childName }: { mapping: Mapping; childName: string }) {
  // An approval in Access Requests adds a site here (the live table refreshes both on a decision).
  const settings = useApprovalSettings(mapping.id);
  const grants = useGrants(mapping.id);
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const switchId = useId();
  const { setData: setSettings } = settings;
  const { setData: setGrants } = grants;

  const where = `${mapping.linux_username} on ${mapping.display_name ?? mapping.hostname ?? 'this device'}`;

  async function toggle(enforce: boolean) {
    if (saving) return;
    setFailure(null);
    setSaving(true);
    setSettings((s) => (s ? { ...s, enforce_signup_approvals: enforce } : s));
    try {
      setSettings(await setEnforceSignups(mapping.id, enforce));
      notifySaved(
        enforce
          ? `${childName} now needs your OK to sign up on websites as ${where}.`
          : `${childName} can sign up on websites as ${where} without asking.`,
        enforce ? 'Sign-up approvals on' : 'Sign-up approvals off',
      );
    } catch (err) {
      setSettings((s) => (s ? { ...s, enforce_signup_approvals: !enforce } : s));
      setFailure(messageOf(err));
    } finally {
      setSaving(false);
    }
  }

  async function revoke(grant: GrantView) {
    setFailure(null);
    try {
      await revokeGrant(mapping.id, grant.id);
      setGrants((g) => (g ? { items: g.items.filter((x) => x.id !== grant.id) } : g));
      notifySaved(`${grant.domain ?? 'The site'} is no longer allowed for ${childName}.`);
    } catch (err) {
      setFailure(`${grant.domain ?? 'The site'} was not revoked: ${messageOf(err)}`);
    }
  }

  if (settings.error && !settings.data) {
    return (
      <ErrorAlert
        error={settings.error}
        onRetry={settings.reload}
        title="Could not load the sign-up approvals"
      />
    );
  }
  const current = settings.data;
  if (!current) {
    return (
      <Stack gap={6} aria-busy="true">
        <Skeleton h={22} w="60%" />
        <Skeleton h={16} w="85%" />
      </Stack>
    );
  }
  const supported = current.signup_supported;
  const items = grants.data?.items;

  return (
    <Stack gap="sm" data-testid="signup-approvals">
      <Switch
        id={switchId}
        label="Enforce Sign-up Approvals"
        description={
          supported
            ? `${childName} asks you before creating an account on a website; you answer in Access Requests.`
            : SIGNUP_UNSUPPORTED
        }
        checked={supported && current.enforce_signup_approvals}
        disabled={!supported}
        onChange={(e) => toggle(e.currentTarget.checked)}
        styles={{ label: { fontWeight: 600 } }}
      />
      {failure ? (
        <Text size="sm" c="red" role="alert">
          {failure}
        </Text>
      ) : null}
      {supported ? (
        <Box>
          <Text size="sm" fw={600} id={`${switchId}-sites`}>
            Allowed sites
          </Text>
          <Text size="xs" c="dimmed" mb={4}>
            {current.enforce_signup_approvals
              ? `${childName} may sign up on these without asking; a site covers its subdomains.`
              : 'Kept for when sign-up approvals are on.'}
          </Text>
          {grants.error && !items ? (
            <Text size="sm" c="red" role="alert">
              Could not load the allowed sites: {grants.error.message}
            </Text>
          ) : null}
          {items?.length ? (
            <Box
              component="ul"
              aria-labelledby={`${switchId}-sites`}
              m={0}
              p={0}
              mb="xs"
              style={{ listStyle: 'none' }}
            >
              {items.map((grant) => (
                <GrantRow key={grant.id} grant={grant} onRevoke={revoke} />
              ))}
            </Box>
          ) : items ? (
            <Text size="sm" c="dimmed" mb="xs">
              No sites yet. Approving a sign-up request adds its site here.
            </Text>
          ) : (
            <Skeleton h={30} mb="xs" />
          )}
          <AllowSiteForm
            mapping={mapping}
            onAdded={(grant) => {
              setGrants((g) => (g ? { items: [grant, ...g.items.filter((x) => x.id !== grant.id)] } : g));
              notifySaved(
                grant.kind === 'persistent'
                  ? `${childName} may sign up on ${grant.domain} whenever they like.`
                  : `${childName} may sign up on ${grant.domain} once, within 24 hours.`,
                'Site allowed',
              );
            }}
          />
        </Box>
      ) : null}
    </Stack>
  );
}
