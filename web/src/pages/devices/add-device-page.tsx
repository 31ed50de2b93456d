import {
  Alert,
  Badge,
  Button,
  Card,
  EmptyState,
  Grid,
  Group,
  List,
  Paper,
  Skeleton,
  Stack,
  Tabs,
  Text,
  ThemeIcon,
  Title,
} from '@mantine/core';
import { type ComponentType, type ReactNode, useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { ApiError, type DownloadState, messageOf, probeDownload } from '../../api/client';
import { usePairingConfig, useProvisioningConfig } from '../../api/resources';
import type { PairingConfig } from '../../api/types';
import { CopyField } from '../../components/copy-field';
import {
  IconCheck,
  IconChevronRight,
  IconDownload,
  IconGamepad,
  IconGlobe,
  IconLaptop,
  IconPhone,
  IconQrCode,
} from '../../components/icons';
import { ErrorAlert, PageHeader } from '../../components/page';
import { useSession, useSignedIn } from '../../session';
import { BackToDevices } from './device-page';
import { LinuxAgentCard } from './linux-agent-card';

function AskOwner() {
  const session = useSignedIn();
  return (
    <Card withBorder radius="lg" py="xl">
      <EmptyState
        icon={<IconQrCode size={28} />}
        variant="light"
        title="Ask the household owner"
        description={`Only an owner or admin of ${session.household.name} can add devices. Ask them to open Devices → Add device; once a device of a child you look after is paired, it shows up in your list.`}
        maw={520}
        mx="auto"
      >
        <EmptyState.Actions>
          <Button component={Link} to="/devices" variant="light">
            Back to devices
          </Button>
        </EmptyState.Actions>
      </EmptyState>
    </Card>
  );
}

function QrImage({ src, alt }: { src: string; alt: string }) {
  return (
    <Paper withBorder radius="md" p="xs" bg="white" w="fit-content" mx="auto">
      <img
        src={src}
        alt={alt}
        width={240}
        height={240}
        style={{ display: 'block', maxWidth: '100%', height: 'auto' }}
        data-testid="pairing-qr"
      />
    </Paper>
  );
}

/** A file agents install from: a download link when the server has it, else the server's sentence on what is missing. */
function Download({ path, label }: { path: string; label: string }) {
  const [state, setState] = useState<DownloadState | { failed: string } | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    probeDownload(path, controller.signal)
      .then(setState)
      .catch((err: unknown) => {
        if (!controller.signal.aborted) setState({ failed: messageOf(err) });
      });
    return () => controller.abort();
  }, [path]);

  const available = !!state && 'available' in state && state.available;
  return (
    <Paper withBorder radius="md" p="sm" data-testid="download">
      <Group justify="space-between" wrap="nowrap" align="center" gap="sm">
        <Group gap="sm" wrap="nowrap" align="flex-start" style={{ minWidth: 0 }}>
          <ThemeIcon variant="light" color="gray" radius="md">
            <IconDownload size={18} />
          </ThemeIcon>
          <Stack gap={2} style={{ minWidth: 0 }}>
            <Group gap="xs">
              <Text fw={600} size="sm">
                {label}
              </Text>
              {state && 'message' in state ? (
                <Badge variant="light" color="yellow" radius="sm">
                  Not uploaded
                </Badge>
              ) : null}
            </Group>
            {!state ? <Skeleton h={12} w={160} mt={4} /> : null}
            {state && 'failed' in state ? (
              <Text size="xs" c="red">
                Could not check: {state.failed}
              </Text>
            ) : null}
            {available ? (
              <Text size="xs" c="dimmed">
                Uploaded to this server
              </Text>
            ) : null}
            {state && 'message' in state ? (
              <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }} data-testid="download-missing">
                {state.message}
              </Text>
            ) : null}
          </Stack>
        </Group>
        {available ? (
          <Button
            component="a"
            href={path}
            download
            size="xs"
            variant="light"
            leftSection={<IconDownload size={14} />}
            aria-label={`Download ${label}`}
          >
            Download
          </Button>
        ) : null}
      </Group>
    </Paper>
  );
}

function Steps({
  icon: Icon,
  title,
  children,
}: {
  icon: ComponentType<{ size?: number }>;
  title: string;
  children: ReactNode;
}) {
  return (
    <Stack gap="xs">
      <Group gap="xs" wrap="nowrap">
        <ThemeIcon variant="light" radius="md" size="md">
          <Icon size={18} />
        </ThemeIcon>
        <Title order={3} fz="md">
          {title}
        </Title>
      </Group>
      <List type="ordered" size="sm" spacing={4} pl="lg">
        {children}
      </List>
    </Stack>
  );
}

function ComputerPairing({ config }: { config: PairingConfig }) {
  const session = useSignedIn();
  return (
    <Stack gap="lg">
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, sm: 5 }}>
          <Card withBorder radius="lg" padding="lg" h="100%">
            <Stack gap="sm" align="center" ta="center">
              <QrImage src="/api/pairing/qr.png" alt={`Pairing QR code for ${session.household.name}`} />
              <Text size="sm" c="dimmed" maw={280}>
                Scan this with the Hearth app on a phone or tablet, or type the details beside it into the
                agent on a computer.
              </Text>
            </Stack>
          </Card>
        </Grid.Col>
        <Grid.Col span={{ base: 12, sm: 7 }}>
          <Card withBorder radius="lg" padding="lg" h="100%">
            <Stack gap="md">
              <Title order={2} fz="lg">
                Pairing details
              </Title>
              <CopyField label="Server address" value={config.server_url} />
              <CopyField
                label="Enrollment token"
                value={config.enrollment_token}
                description="Lets a device ask to join your household. It still waits for your approval."
                monospace
              />
              <Download path="/api/pairing/windows/msi" label="Windows installer" />
            </Stack>
          </Card>
        </Grid.Col>
      </Grid>
      <LinuxAgentCard config={config} />
      <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="pairing-steps-title">
        <Stack gap="lg">
          <Title order={2} fz="lg" id="pairing-steps-title">
            How to pair
          </Title>
          <Grid gap="xl">
            <Grid.Col span={{ base: 12, md: 4 }}>
              <Steps icon={IconLaptop} title="Linux computer">
                <List.Item>Install the Hearth agent on the computer (the commands are above).</List.Item>
                <List.Item>Pair it with the enroll command, or with the QR code saved as a file.</List.Item>
                <List.Item>Approve the computer under Waiting for approval on the Devices page.</List.Item>
              </Steps>
            </Grid.Col>
            <Grid.Col span={{ base: 12, md: 4 }}>
              <Steps icon={IconLaptop} title="Windows computer">
                <List.Item>
                  Download the Windows installer from this page and run it as an administrator.
                </List.Item>
                <List.Item>Enter the server address and enrollment token when it asks.</List.Item>
                <List.Item>Approve the computer under Waiting for approval on the Devices page.</List.Item>
              </Steps>
            </Grid.Col>
            <Grid.Col span={{ base: 12, md: 4 }}>
              <Steps icon={IconGlobe} title="Browser extension">
                <List.Item>Pair the computer’s Hearth agent first; the extension works through it.</List.Item>
                <List.Item>
                  Add the Hearth extension to Chrome, Edge or another Chromium browser there.
                </List.Item>
                <List.Item>Nothing more to approve: it follows the computer’s settings.</List.Item>
              </Steps>
            </Grid.Col>
          </Grid>
        </Stack>
      </Card>
    </Stack>
  );
}

function AndroidProvisioning() {
  const session = useSignedIn();
  const provisioning = useProvisioningConfig();
  const data = provisioning.data;
  if (provisioning.error && !data)
    return <ErrorAlert error={provisioning.error} onRetry={provisioning.reload} />;
  if (!data) {
    return (
      <Grid gap="lg" aria-busy="true">
        <Grid.Col span={{ base: 12, sm: 5 }}>
          <Skeleton h={300} radius="lg" />
        </Grid.Col>
        <Grid.Col span={{ base: 12, sm: 7 }}>
          <Skeleton h={300} radius="lg" />
        </Grid.Col>
      </Grid>
    );
  }
  return (
    <Grid gap="lg">
      <Grid.Col span={{ base: 12, sm: 5 }}>
        <Card withBorder radius="lg" padding="lg" h="100%">
          <Stack gap="sm" align="center" ta="center">
            <QrImage
              src="/api/pairing/provisioning/qr.png"
              alt={`Android set-up QR code for ${session.household.name}`}
            />
            <Text size="sm" c="dimmed" maw={280}>
              Makes Hearth the device owner of a new or freshly reset Android phone or tablet.
            </Text>
          </Stack>
        </Card>
      </Grid.Col>
      <Grid.Col span={{ base: 12, sm: 7 }}>
        <Card withBorder radius="lg" padding="lg" h="100%">
          <Stack gap="md">
            <Steps icon={IconPhone} title="Set up an Android device">
              <List.Item>Start with a new phone or tablet, or reset it to factory settings.</List.Item>
              <List.Item>
                On the first welcome screen, tap the same spot six times to open the QR scanner.
              </List.Item>
              <List.Item>Connect to Wi-Fi when asked, then scan this code.</List.Item>
              <List.Item>Approve the device under Waiting for approval on the Devices page.</List.Item>
            </Steps>
            {data.apk_available ? (
              <Alert variant="light" color="teal" icon={<IconCheck />} title="The Android agent is uploaded">
                The code tells the device where to download it.
              </Alert>
            ) : (
              <Text size="sm" c="dimmed">
                The code can install Hearth only once the Android agent is on this server.
              </Text>
            )}
            <Download path="/api/pairing/provisioning/apk" label="Android agent (APK)" />
          </Stack>
        </Card>
      </Grid.Col>
    </Grid>
  );
}

function PairingTabs() {
  const pairing = usePairingConfig();
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') === 'android' ? 'android' : 'computer';

  if (pairing.error instanceof ApiError && pairing.error.status === 403) return <AskOwner />;
  if (pairing.error && !pairing.data) return <ErrorAlert error={pairing.error} onRetry={pairing.reload} />;
  return (
    <Tabs
      value={tab}
      onChange={(value) => setParams(value === 'android' ? { tab: 'android' } : {}, { replace: true })}
      variant="pills"
      radius="md"
      keepMounted={false}
    >
      <Tabs.List mb="lg">
        <Tabs.Tab value="computer" leftSection={<IconLaptop size={16} />}>
          Computer or browser
        </Tabs.Tab>
        <Tabs.Tab value="android" leftSection={<IconPhone size={16} />}>
          Android (device owner)
        </Tabs.Tab>
      </Tabs.List>
      <Tabs.Panel value="computer">
        {pairing.data ? (
          <ComputerPairing config={pairing.data} />
        ) : (
          <Grid gap="lg" aria-busy="true">
            <Grid.Col span={{ base: 12, sm: 5 }}>
              <Skeleton h={300} radius="lg" />
            </Grid.Col>
            <Grid.Col span={{ base: 12, sm: 7 }}>
              <Skeleton h={300} radius="lg" />
            </Grid.Col>
          </Grid>
        )}
      </Tabs.Panel>
      <Tabs.Panel value="android">
        <AndroidProvisioning />
      </Tabs.Panel>
    </Tabs>
  );
}

/** Consoles are not paired: they come from the family account linked on the Game consoles page. */
function ConsolesPointer() {
  return (
    <Paper withBorder radius="lg" p="md" mb="lg" data-testid="add-device-consoles">
      <Group justify="space-between" gap="sm" wrap="wrap">
        <Group gap="sm" wrap="nowrap" align="flex-start" style={{ flex: '1 1 18rem', minWidth: 0 }}>
          <ThemeIcon variant="light" color="green" radius="md" size="lg">
            <IconGamepad size={20} />
          </ThemeIcon>
          <Stack gap={2}>
            <Text fw={600}>An Xbox or Nintendo Switch?</Text>
            <Text size="sm" c="dimmed">
              Consoles need no pairing: link your family’s Microsoft or Nintendo account, then add each
              console for a child.
            </Text>
          </Stack>
        </Group>
        <Button component={Link} to="/consoles" variant="light" rightSection={<IconChevronRight size={16} />}>
          Game consoles
        </Button>
      </Group>
    </Paper>
  );
}

export function AddDevicePage() {
  const { isAdmin } = useSession();
  const session = useSignedIn();
  return (
    <>
      <BackToDevices />
      <PageHeader
        title="Add a device"
        description={
          isAdmin
            ? `Pair a computer, phone or browser with ${session.household.name}. Each new device waits for your approval before Hearth looks after it.`
            : `Pair a computer, phone or browser with ${session.household.name}.`
        }
      />
      {isAdmin ? (
        <>
          <ConsolesPointer />
          <PairingTabs />
        </>
      ) : (
        <AskOwner />
      )}
    </>
  );
}
