import {
  Alert,
  Badge,
  Box,
  Button,
  Card,
  Divider,
  EmptyState,
  Group,
  List,
  Paper,
  Stack,
  Text,
  TextInput,
  ThemeIcon,
  Title,
} from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { api, messageOf } from '../../api/client';
import type { ManagedUserView, Mapping, MappingView, ValidationView } from '../../api/types';
import { IconAlert, IconCheck, IconDevices, IconPlus, IconShield } from '../../components/icons';
import { ErrorAlert, notifySaved } from '../../components/page';
import { MAPPING_PROBLEMS, platformLabel } from '../../labels';
import { SignupApprovals } from './signup-approvals';

type Check = ValidationView['mappings'][number];

function MappingRow({
  mapping,
  check,
  childName,
}: {
  mapping: Mapping;
  check: Check | undefined;
  childName: string;
}) {
  return (
    <Paper withBorder radius="md" p="sm" data-testid="mapping-row">
      <Group wrap="nowrap" align="flex-start" gap="sm">
        <ThemeIcon variant="light" size="lg" radius="md" color="gray">
          <IconDevices size={20} />
        </ThemeIcon>
        <Stack gap={2} style={{ flex: 1, minWidth: 0 }}>
          <Group gap="xs">
            <Text fw={600}>{mapping.hostname ?? 'Unknown device'}</Text>
            <Badge variant="light" color="gray" size="sm" radius="sm">
              {platformLabel(mapping.platform)}
            </Badge>
          </Group>
          <Text size="sm">
            Account <b>{mapping.linux_username}</b>
          </Text>
          <Text size="xs" c="dimmed" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
            {mapping.system_id}
          </Text>
          {check ? (
            check.valid ? (
              <Group gap={4} c="teal" mt={4}>
                <IconCheck size={16} />
                <Text size="sm" fw={500}>
                  Ready
                </Text>
              </Group>
            ) : (
              <List size="sm" mt={4} spacing={2} c="red" icon={<IconAlert size={16} />} center>
                {check.problems.map((problem) => (
                  <List.Item key={problem}>{MAPPING_PROBLEMS[problem] ?? problem}</List.Item>
                ))}
              </List>
            )
          ) : null}
        </Stack>
      </Group>
      <Divider my="sm" />
      <Box pl={{ base: 0, xs: 54 }}>
        <SignupApprovals mapping={mapping} childName={childName} />
      </Box>
    </Paper>
  );
}

function AddMappingForm({ child, onAdded }: { child: ManagedUserView; onAdded: () => void }) {
  const [systemId, setSystemId] = useState('');
  const [account, setAccount] = useState('');
  const [errors, setErrors] = useState<{ systemId?: string; account?: string }>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFailure(null);
    const found = {
      systemId: systemId.trim() ? undefined : 'Enter the device ID.',
      account: !account.trim()
        ? 'Enter the account name.'
        : /\s/.test(account.trim())
          ? 'An account name has no spaces.'
          : undefined,
    };
    setErrors(found);
    if (found.systemId || found.account) return;
    setBusy(true);
    try {
      const mapping = await api.post<MappingView>(
        `/managed-users/${encodeURIComponent(child.id)}/mappings/add`,
        { system_id: systemId.trim(), linux_username: account.trim() },
      );
      notifySaved(`The account ${mapping.linux_username} now belongs to ${child.name}.`);
      setSystemId('');
      setAccount('');
      onAdded();
    } catch (err) {
      setFailure(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} noValidate aria-label="Add device mapping">
      <Stack gap="md">
        <Title order={3} fz="md">
          Add device mapping
        </Title>
        <ErrorAlert error={failure} title="The device was not added" />
        <Group align="flex-start" gap="md" grow preventGrowOverflow={false} wrap="wrap">
          <TextInput
            label="Device ID"
            description="Shown on the device when it pairs with Hearth."
            placeholder="123e4567-e89b-12d3-a456-426614174000"
            value={systemId}
            onChange={(e) => setSystemId(e.currentTarget.value)}
            error={errors.systemId}
            autoCapitalize="none"
            spellCheck={false}
            required
            miw={220}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          />
          <TextInput
            label="Account name"
            description={`The user account ${child.name} signs in to.`}
            placeholder="ann"
            value={account}
            onChange={(e) => setAccount(e.currentTarget.value)}
            error={errors.account}
            autoCapitalize="none"
            spellCheck={false}
            required
            miw={180}
          />
        </Group>
        <Group justify="flex-end">
          <Button type="submit" loading={busy} leftSection={<IconPlus size={16} />}>
            Add device mapping
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function DevicesSection({ child, onChanged }: { child: ManagedUserView; onChanged: () => void }) {
  const [validation, setValidation] = useState<ValidationView | null>(null);
  const [checkFailure, setCheckFailure] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);

  async function check() {
    setChecking(true);
    setCheckFailure(null);
    try {
      setValidation(await api.get<ValidationView>(`/users/validate/${encodeURIComponent(child.id)}`));
    } catch (err) {
      setCheckFailure(messageOf(err));
    } finally {
      setChecking(false);
    }
  }

  const checks = new Map(validation?.mappings.map((m) => [m.id, m]));
  return (
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="devices-title">
      <Stack gap="md">
        <Group justify="space-between" align="flex-start" gap="sm">
          <Stack gap={4} style={{ flex: '1 1 14rem' }}>
            <Title order={2} fz="lg" id="devices-title">
              Devices
            </Title>
            <Text size="sm" c="dimmed">
              Accounts on computers and phones that belong to {child.name}.
            </Text>
          </Stack>
          {child.mappings.length ? (
            <Button
              variant="default"
              onClick={check}
              loading={checking}
              leftSection={<IconShield size={16} />}
            >
              Check mappings
            </Button>
          ) : null}
        </Group>
        <ErrorAlert error={checkFailure} title="Could not check the mappings" />
        {validation && validation.mappings.length > 0 ? (
          <Alert
            variant="light"
            color={validation.valid ? 'teal' : 'yellow'}
            icon={validation.valid ? <IconCheck /> : <IconAlert />}
            title={validation.valid ? 'Everything is ready' : 'Some devices need attention'}
            role="status"
          >
            {validation.valid
              ? `Hearth can look after ${child.name} on every device below.`
              : 'Hearth cannot look after these accounts yet; see the notes under each device.'}
          </Alert>
        ) : null}
        {child.mappings.length === 0 ? (
          <EmptyState
            size="sm"
            icon={<IconDevices size={24} />}
            withIndicatorBackground
            title="No devices yet"
            description={`Map an account on a device to ${child.name} below, and Hearth will look after it.`}
            py="md"
          />
        ) : (
          <Stack gap="sm">
            {child.mappings.map((mapping) => (
              <MappingRow
                key={mapping.id}
                mapping={mapping}
                check={checks.get(mapping.id)}
                childName={child.name}
              />
            ))}
          </Stack>
        )}
        <Divider />
        <AddMappingForm
          child={child}
          onAdded={() => {
            setValidation(null);
            onChanged();
          }}
        />
      </Stack>
    </Card>
  );
}
