import {
  Alert,
  Anchor,
  Badge,
  Box,
  Button,
  Card,
  Divider,
  EmptyState,
  Group,
  List,
  NativeSelect,
  Paper,
  Stack,
  Text,
  TextInput,
  ThemeIcon,
  Title,
} from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router-dom';
import { fieldErrorsOf, messageOf } from '../../api/client';
import { isConsolePlatform } from '../../api/consoles';
import { useAddMapping, useRemoveMapping } from '../../api/mutations';
import { useDevices, useValidation } from '../../api/resources';
import type { DeviceView, ManagedUserView, Mapping, ValidationView } from '../../api/types';
import { ConfirmDialog } from '../../components/dialogs';
import { IconAlert, IconCheck, IconDevices, IconPlus, IconUnlink } from '../../components/icons';
import { ErrorAlert, notifySaved } from '../../components/page';
import { deviceName, mappingProblemText, platformLabel } from '../../labels';
import { PolicyLink } from '../device-policy/policy-link';
import { SignupApprovals } from './signup-approvals';

type Check = ValidationView['mappings'][number];

/** The select's value for "an account the device has not reported". */
const OTHER_ACCOUNT = '__other__';

function MappingRow({
  mapping,
  check,
  child,
}: {
  mapping: Mapping;
  check: Check | undefined;
  child: ManagedUserView;
}) {
  const [confirming, setConfirming] = useState(false);
  const removal = useRemoveMapping();
  const name = deviceName(mapping);

  function remove() {
    removal.mutate(
      { mappingId: mapping.id, childId: child.id },
      {
        onSuccess: () => {
          notifySaved(`${mapping.linux_username} on ${name} no longer belongs to ${child.name}.`);
          setConfirming(false);
        },
      },
    );
  }

  return (
    <Paper withBorder radius="md" p="sm" data-testid="mapping-row">
      <Group wrap="nowrap" align="flex-start" gap="sm">
        <ThemeIcon variant="light" size="lg" radius="md" color="gray" visibleFrom="xs">
          <IconDevices size={20} />
        </ThemeIcon>
        <Stack gap={2} style={{ flex: 1, minWidth: 0 }}>
          <Group gap="xs">
            <Anchor
              component={Link}
              to={`/devices/${encodeURIComponent(mapping.system_id)}`}
              fw={600}
              style={{ overflowWrap: 'anywhere' }}
            >
              {name}
            </Anchor>
            <Badge variant="light" color="gray" size="sm" radius="sm">
              {platformLabel(mapping.platform)}
            </Badge>
          </Group>
          <Text size="sm">
            Account <b>{mapping.linux_username}</b>
          </Text>
        </Stack>
        <Button
          variant="subtle"
          color="red"
          size="compact-sm"
          leftSection={<IconUnlink size={14} />}
          onClick={() => {
            removal.reset();
            setConfirming(true);
          }}
          aria-label={`Remove ${mapping.linux_username} on ${name}`}
        >
          Remove
        </Button>
      </Group>
      <Box pl={{ base: 0, xs: 54 }}>
        {check ? (
          check.valid ? (
            <Group gap={4} c="teal" mt={4}>
              <IconCheck size={16} />
              <Text size="sm" fw={500}>
                Ready
              </Text>
            </Group>
          ) : (
            <List
              size="sm"
              mt={4}
              spacing={2}
              c="red"
              icon={<IconAlert size={16} />}
              data-testid="mapping-problems"
            >
              {check.problems.map((problem) => (
                <List.Item key={problem}>{mappingProblemText(problem, mapping)}</List.Item>
              ))}
            </List>
          )
        ) : null}
        <PolicyLink mapping={mapping} childId={child.id} />
      </Box>
      <Divider my="sm" />
      <Box pl={{ base: 0, xs: 54 }}>
        <SignupApprovals mapping={mapping} childName={child.name} />
      </Box>
      <ConfirmDialog
        opened={confirming}
        title={`Remove ${mapping.linux_username} on ${name}?`}
        confirmLabel="Remove link"
        confirmIcon={<IconUnlink size={16} />}
        busy={removal.isPending}
        error={removal.error}
        errorTitle="The link was not removed"
        onConfirm={remove}
        onClose={() => setConfirming(false)}
      >
        {`Hearth stops looking after ${mapping.linux_username} on ${name} for ${child.name}: its sign-up grants and waiting requests go too. You can link the account again at any time.`}
      </ConfirmDialog>
    </Paper>
  );
}

type FormErrors = { device?: string; account?: string };

function AddMappingForm({ child }: { child: ManagedUserView }) {
  const devices = useDevices();
  const adding = useAddMapping();
  const [systemId, setSystemId] = useState('');
  const [choice, setChoice] = useState('');
  const [typed, setTyped] = useState('');
  const [errors, setErrors] = useState<FormErrors>({});
  const [failure, setFailure] = useState<string | null>(null);

  // Consoles have no accounts to link: they come with their player from the Game consoles page.
  const approved = (devices.data?.items ?? []).filter(
    (d) => d.status === 'approved' && !isConsolePlatform(d.platform),
  );
  const device: DeviceView | undefined = approved.find((d) => d.system_id === systemId);
  const linked = new Set(child.mappings.filter((m) => m.system_id === systemId).map((m) => m.linux_username));
  const accounts = (device?.linux_users ?? []).filter((u) => !linked.has(u.username));
  const other = choice === OTHER_ACCOUNT;
  const account = (other ? typed : choice).trim();

  function chooseDevice(value: string) {
    setSystemId(value);
    const next = approved.find((d) => d.system_id === value);
    const free = (next?.linux_users ?? []).filter(
      (u) => !child.mappings.some((m) => m.system_id === value && m.linux_username === u.username),
    );
    // One account left to choose: choose it.
    setChoice(free.length === 1 && free[0] ? free[0].username : free.length ? '' : OTHER_ACCOUNT);
    setErrors({});
    setFailure(null);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    setFailure(null);
    const found: FormErrors = {
      device: systemId ? undefined : 'Choose the device.',
      account: account
        ? undefined
        : other
          ? 'Type the name of the account on the device.'
          : 'Choose the account on the device.',
    };
    setErrors(found);
    if (found.device || found.account) return;
    adding.mutate(
      { childId: child.id, systemId, account },
      {
        onSuccess: (mapping) => {
          notifySaved(`The account ${mapping.linux_username} now belongs to ${child.name}.`);
          setSystemId('');
          setChoice('');
          setTyped('');
        },
        onError: (err) => {
          const fields = fieldErrorsOf(err, { system_id: 'The device', linux_username: 'The account name' });
          if (fields.system_id || fields.linux_username)
            setErrors({ device: fields.system_id, account: fields.linux_username });
          else setFailure(messageOf(err));
        },
      },
    );
  }

  const deviceOptions = [
    { value: '', label: approved.length ? 'Choose a device…' : 'No approved devices yet', disabled: true },
    ...approved.map((d) => ({
      value: d.system_id,
      label: d.display_name === d.hostname ? d.display_name : `${d.display_name} (${d.hostname})`,
    })),
  ];
  const accountOptions = [
    { value: '', label: device ? 'Choose an account…' : 'Choose a device first', disabled: true },
    ...accounts.map((u) => ({
      value: u.username,
      label:
        u.display_name && u.display_name !== u.username ? `${u.username} (${u.display_name})` : u.username,
    })),
    ...(device ? [{ value: OTHER_ACCOUNT, label: 'Another account (type its name)…' }] : []),
  ];

  return (
    <form onSubmit={submit} noValidate aria-label="Link a device">
      <Stack gap="md">
        <Stack gap={4}>
          <Title order={3} fz="md">
            Link a device
          </Title>
          <Text size="sm" c="dimmed">
            Choose one of your approved devices and the account {child.name} signs in to there.
          </Text>
        </Stack>
        <ErrorAlert error={failure} title="The device was not linked" />
        <ErrorAlert error={devices.error} onRetry={devices.reload} title="Could not load your devices" />
        {devices.data && !approved.length ? (
          <Text size="sm">
            No device is approved yet.{' '}
            <Anchor component={Link} to="/devices/add">
              Add a device
            </Anchor>
            , then approve it on the Devices page.
          </Text>
        ) : null}
        <Group align="flex-start" gap="md" grow preventGrowOverflow={false} wrap="wrap">
          <NativeSelect
            label="Device"
            data={deviceOptions}
            value={systemId}
            onChange={(e) => chooseDevice(e.currentTarget.value)}
            error={errors.device}
            required
            miw={220}
          />
          <NativeSelect
            label="Account"
            data={accountOptions}
            value={choice}
            onChange={(e) => {
              setChoice(e.currentTarget.value);
              setErrors((current) => ({ ...current, account: undefined }));
            }}
            error={other ? undefined : errors.account}
            disabled={!device}
            required
            miw={200}
          />
        </Group>
        {other ? (
          <Stack gap="xs">
            <TextInput
              label="Account name"
              description={`The user account ${child.name} signs in to on ${device ? device.display_name : 'the device'}.`}
              placeholder="ann"
              value={typed}
              onChange={(e) => {
                setTyped(e.currentTarget.value);
                setErrors((current) => ({ ...current, account: undefined }));
              }}
              error={errors.account}
              autoCapitalize="none"
              spellCheck={false}
              required
            />
            <Alert
              variant="light"
              color="yellow"
              icon={<IconAlert />}
              role="status"
              data-testid="unreported-warning"
            >
              {device ? device.display_name : 'This device'} has not reported{' '}
              {account ? <b>{account}</b> : 'this account'}. Check the spelling: Hearth looks after the
              account only once it exists there and the device has seen it.
            </Alert>
          </Stack>
        ) : null}
        <Group justify="flex-end">
          <Button type="submit" loading={adding.isPending} leftSection={<IconPlus size={16} />}>
            Link device
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function DevicesSection({ child }: { child: ManagedUserView; onChanged?: () => void }) {
  const validation = useValidation(child.id);
  const checks = new Map(validation.data?.mappings.map((m) => [m.id, m]));
  // Consoles show in their own section (consoles-section.tsx).
  const mappings = child.mappings.filter((m) => !isConsolePlatform(m.platform));
  const problems =
    mappings.length > 0 &&
    validation.data &&
    validation.data.mappings.some((m) => !m.valid && mappings.some((own) => own.id === m.id));
  return (
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="devices-title">
      <Stack gap="md">
        <Stack gap={4}>
          <Title order={2} fz="lg" id="devices-title">
            Devices
          </Title>
          <Text size="sm" c="dimmed">
            Accounts on computers and phones that belong to {child.name}. Game consoles are added on the{' '}
            <Anchor component={Link} to="/consoles" inherit>
              Game consoles
            </Anchor>{' '}
            page.
          </Text>
        </Stack>
        {validation.error && mappings.length ? (
          <ErrorAlert
            error={validation.error}
            onRetry={validation.reload}
            title="Could not check the devices"
          />
        ) : null}
        {problems ? (
          <Alert
            variant="light"
            color="yellow"
            icon={<IconAlert />}
            title="Some devices need attention"
            role="status"
          >
            Hearth cannot look after every account below yet; see the notes under each device.
          </Alert>
        ) : null}
        {mappings.length === 0 ? (
          <EmptyState
            size="sm"
            icon={<IconDevices size={24} />}
            withIndicatorBackground
            title={
              mappings.length === child.mappings.length ? 'No devices yet' : 'No computers or phones yet'
            }
            description={`Link an account on a device to ${child.name} below, and Hearth will look after it.`}
            py="md"
          />
        ) : (
          <Stack gap="sm">
            {mappings.map((mapping) => (
              <MappingRow key={mapping.id} mapping={mapping} check={checks.get(mapping.id)} child={child} />
            ))}
          </Stack>
        )}
        <Divider />
        <AddMappingForm child={child} />
      </Stack>
    </Card>
  );
}
