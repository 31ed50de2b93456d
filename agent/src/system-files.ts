// What an installed agent puts on the system (DESIGN §14): the program, the systemd unit, the native
// messaging host manifests and the overlay page. One list serves both `hearth-agent install` and the
// .deb (agent/build.mjs stages the package by running `install` into the package's root).
import { EXTENSION_ID, NATIVE_HOST_NAME } from '@hearth/protocol';

export const LIB_DIR = '/usr/lib/hearth-agent';
export const SHARE_DIR = '/usr/share/hearth-agent';
export const AGENT_PROGRAM = `${LIB_DIR}/hearth-agent.mjs`;
export const NATIVE_HOST_PROGRAM = `${LIB_DIR}/hearth-native-host.mjs`;
/** resvg's WebAssembly, which the bundle loads from beside itself to raster the inventory's icons. */
export const RASTERER_WASM = `${LIB_DIR}/resvg.wasm`;
export const AGENT_BIN = '/usr/bin/hearth-agent';
/** The page the daemon serves on loopback for the kiosk overlay (DESIGN §7). */
export const OVERLAY_PAGE = `${SHARE_DIR}/blockedv2.html`;
export const UNIT_NAME = 'hearth-agent.service';
/** Under /usr: systemd reads it there on split and merged /usr alike, and Debian is moving units out of /lib. */
export const UNIT_PATH = `/usr/lib/systemd/system/${UNIT_NAME}`;
export const STATE_DIR = '/var/lib/hearth-agent';

/**
 * System-wide native messaging host folders. Brave's own folder is written as vendors document it,
 * though Brave has been seen to read only Chrome's; Chrome's is written anyway, so Brave finds the host.
 */
export const NATIVE_HOST_DIRS = {
  chromium: '/etc/chromium/native-messaging-hosts',
  chrome: '/etc/opt/chrome/native-messaging-hosts',
  brave: '/etc/opt/brave.com/brave/native-messaging-hosts',
  edge: '/etc/opt/edge/native-messaging-hosts',
} as const;

/** The payload files, by the name they have beside the built program (agent/dist). */
export const PAYLOAD = {
  agent: 'hearth-agent.mjs',
  nativeHost: 'hearth-native-host.mjs',
  overlay: 'blockedv2.html',
  rasterer: 'resvg.wasm',
} as const;

export type SystemFile =
  | { path: string; mode: number; kind: 'copy'; from: keyof typeof PAYLOAD }
  | { path: string; mode: number; kind: 'text'; text: string }
  | { path: string; kind: 'symlink'; target: string };

/**
 * The service. It starts only once `enroll` has written the identity (so a fresh install does not
 * fail and trip the start limit); `enroll` starts it. Restarts are spaced and capped so a broken state
 * never loops fast. No ProtectHome, PrivateTmp or device limits: the daemon reads the accounts'
 * ~/.local/share and starts Chromium as the child on the child's X or Wayland display; /etc stays
 * writable for the browser and polkit policies it manages. Two malloc arenas instead of glibc's 8 a
 * core: memory freed after an inventory scan is reused instead of kept in many (some 8 MB less at
 * rest, BENCHMARKS.md "The Linux agent"), as the server does.
 */
export function systemdUnit(): string {
  return `[Unit]
Description=Hearth agent: family device management for this computer
Wants=network-online.target
After=network-online.target systemd-logind.service
ConditionPathExists=${STATE_DIR}/identity.json
StartLimitIntervalSec=10min
StartLimitBurst=5

[Service]
Type=simple
ExecStart=${AGENT_BIN} run
Environment=MALLOC_ARENA_MAX=2
Restart=on-failure
RestartSec=15s
RuntimeDirectory=hearth-agent
RuntimeDirectoryMode=0755
StateDirectory=hearth-agent
StateDirectoryMode=0700
ProtectSystem=true
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectControlGroups=yes
LockPersonality=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK
SystemCallArchitectures=native

[Install]
WantedBy=multi-user.target
`;
}

/**
 * The host manifest Chromium-based browsers read to start the host for our extension only: the fixed ID
 * of an unpacked load and, once the agent has learnt it, the ID the server signs its packed extension with.
 */
export function nativeHostManifest(extraIds: string[] = []): string {
  const manifest = {
    name: NATIVE_HOST_NAME,
    description: 'Hearth agent: relays the Hearth extension to the agent on this computer',
    path: NATIVE_HOST_PROGRAM,
    type: 'stdio',
    allowed_origins: [EXTENSION_ID, ...extraIds.filter((id) => id !== EXTENSION_ID)].map(
      (id) => `chrome-extension://${id}/`,
    ),
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** Everything, in the order it is written (folders are made as needed, 0755). */
export function systemFiles(): SystemFile[] {
  return [
    { path: AGENT_PROGRAM, mode: 0o755, kind: 'copy', from: 'agent' },
    { path: NATIVE_HOST_PROGRAM, mode: 0o755, kind: 'copy', from: 'nativeHost' },
    { path: RASTERER_WASM, mode: 0o644, kind: 'copy', from: 'rasterer' },
    { path: AGENT_BIN, kind: 'symlink', target: '../lib/hearth-agent/hearth-agent.mjs' },
    { path: OVERLAY_PAGE, mode: 0o644, kind: 'copy', from: 'overlay' },
    { path: UNIT_PATH, mode: 0o644, kind: 'text', text: systemdUnit() },
    ...Object.values(NATIVE_HOST_DIRS).map(
      (dir): SystemFile => ({
        path: `${dir}/${NATIVE_HOST_NAME}.json`,
        mode: 0o644,
        kind: 'text',
        text: nativeHostManifest(),
      }),
    ),
  ];
}

/** The files under /etc, which Debian treats as configuration (kept on upgrade if an admin edited them). */
export function conffiles(): string[] {
  return systemFiles()
    .map((f) => f.path)
    .filter((p) => p.startsWith('/etc/'));
}
