import { Anchor, Button, Card, Code, Group, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router-dom';
import type { PairingConfig } from '../../api/types';
import { CommandBlock } from '../../components/command-block';
import { IconDownload, IconLaptop } from '../../components/icons';
import { useSession } from '../../session';

/** The name the QR image is saved under, and so the file the `--qr` command names. */
export const QR_FILE = 'hearth-pairing.png';

/**
 * The server's address as the agent wants it: read from the pairing config's `ws_url` (what the QR
 * carries, built from HEARTH_PUBLIC_URL when set) the way the agent reads it — ws→http, wss→https,
 * without the `/ws` path — and `server_url` if that cannot be read.
 */
export function serverUrlOf(config: Pick<PairingConfig, 'ws_url' | 'server_url'>): string {
  try {
    const url = new URL(config.ws_url);
    if (url.protocol === 'ws:') url.protocol = 'http:';
    else if (url.protocol === 'wss:') url.protocol = 'https:';
    else return config.server_url;
    let path = url.pathname.replace(/\/+$/, '');
    if (path.endsWith('/ws')) path = path.slice(0, -3);
    return `${url.protocol}//${url.host}${path}`;
  } catch {
    return config.server_url;
  }
}

/** One shell word: as is when it holds only safe characters, else in single quotes. */
export function shellWord(value: string): string {
  return /^[A-Za-z0-9._~:/@%+=,-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * `--name value`, or `--name=value` when the value starts with a dash (a base64url token may): the
 * agent's argument parser would take `--token -x…` for a missing value.
 */
export function option(name: string, value: string): string {
  const word = shellWord(value);
  return value.startsWith('-') ? `--${name}=${word}` : `--${name} ${word}`;
}

export function linuxCommands(config: PairingConfig, version: string) {
  return {
    install: `sudo apt install ./hearth-agent_${version}_all.deb`,
    enroll: `sudo hearth-agent enroll ${option('server', serverUrlOf(config))} ${option('token', config.enrollment_token)}`,
    enrollQr: `sudo hearth-agent enroll --qr ${QR_FILE}`,
  };
}

/** Add device → Linux computer: the exact commands for this server and household. */
export function LinuxAgentCard({ config }: { config: PairingConfig }) {
  const version = useSession().setup?.version ?? '<version>';
  const commands = linuxCommands(config, version);
  return (
    <Card
      withBorder
      radius="lg"
      padding="lg"
      component="section"
      aria-labelledby="linux-agent-title"
      data-testid="linux-agent"
    >
      <Stack gap="md">
        <Group gap="xs" wrap="nowrap">
          <IconLaptop size={20} />
          <Title order={2} fz="lg" id="linux-agent-title">
            Linux computer
          </Title>
        </Group>
        <Text size="sm" c="dimmed">
          Run these in a terminal on the child’s computer, as a user who may use <Code>sudo</Code>.
        </Text>
        <Stack gap={4}>
          <CommandBlock label="1. Install the Hearth agent" command={commands.install} />
          <Text size="xs" c="dimmed">
            This server does not offer the package for download yet. Build it from the Hearth source with{' '}
            <Code>npm run package -w agent</Code> (it writes <Code>hearth-agent_{version}_all.deb</Code>),
            copy it to the computer, and run the command in the folder that holds it.
          </Text>
        </Stack>
        <CommandBlock label="2. Pair it with this household" command={commands.enroll} />
        <Stack gap={6}>
          <CommandBlock label="Or pair it with the QR code saved as a file" command={commands.enrollQr} />
          <Group gap="sm">
            <Button
              component="a"
              href="/api/pairing/qr.png"
              download={QR_FILE}
              size="xs"
              variant="light"
              leftSection={<IconDownload size={14} />}
            >
              Save the QR code
            </Button>
            <Text size="xs" c="dimmed" style={{ flex: '1 1 14rem' }}>
              Save it on the computer and run the command in the folder that holds it.
            </Text>
          </Group>
        </Stack>
        <Text size="sm">
          The computer then waits for you: approve it under{' '}
          <Anchor component={Link} to="/devices" size="sm">
            Waiting for approval
          </Anchor>{' '}
          on the Devices page.
        </Text>
      </Stack>
    </Card>
  );
}
