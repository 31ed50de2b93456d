// `hearth-agent enroll`: stores the server and the enrolment proof, then (unless --no-wait) waits for a
// parent's approval, saying so, and stores the device token it brings.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { humanAccounts } from './accounts.js';
import { Channel } from './channel.js';
import {
  type Identity,
  newIdentity,
  normaliseServerUrl,
  readIdentity,
  readToken,
  writeIdentity,
  writeToken,
  wsUrlOf,
} from './identity.js';
import type { Logger } from './log.js';
import type { AgentPaths } from './paths.js';
import { restartInstalledService } from './service.js';
import { StateStore } from './state.js';
import { AGENT_VERSION } from './version.js';

export interface EnrollOptions {
  server?: string;
  token?: string;
  qr?: string;
  wait: boolean;
}

/** The pairing QR's content (DESIGN §6): `{type:"hearth_pairing", ws_url, enrollment_token}`. */
export interface PairingPayload {
  ws_url: string;
  enrollment_token: string;
}

export function parsePairingPayload(text: string): PairingPayload {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new Error('the QR does not hold Hearth pairing data');
  }
  const d = doc as Record<string, unknown>;
  if (
    d?.type !== 'hearth_pairing' ||
    typeof d.ws_url !== 'string' ||
    typeof d.enrollment_token !== 'string' ||
    !d.enrollment_token
  ) {
    throw new Error('the QR does not hold Hearth pairing data');
  }
  return { ws_url: d.ws_url, enrollment_token: d.enrollment_token };
}

/** Reads `--qr FILE`: the pairing JSON itself, or a PNG of the QR code (decoded by ./qr.ts). */
export async function readPairingFile(file: string): Promise<PairingPayload> {
  const bytes = readFileSync(file);
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    const { decodeQrPng } = await import('./qr.js');
    return parsePairingPayload(decodeQrPng(bytes));
  }
  return parsePairingPayload(bytes.toString('utf8').trim());
}

export async function enroll(paths: AgentPaths, log: Logger, options: EnrollOptions): Promise<number> {
  let server = options.server;
  let token = options.token;
  if (options.qr) {
    const payload = await readPairingFile(options.qr);
    server ??= payload.ws_url;
    token ??= payload.enrollment_token;
  }
  if (!server || !token) {
    process.stderr.write('hearth-agent enroll: give --server URL and --token TOKEN, or --qr FILE\n');
    return 2;
  }
  const state = new StateStore(paths.stateDir, log);
  state.ensure();
  const serverUrl = normaliseServerUrl(server);
  const old = readIdentity(state);
  // Enrolling again with the same server keeps the system id, so the parents see the same device.
  const identity: Identity =
    old && old.server_url === serverUrl ? { ...old, enrollment_token: token } : newIdentity(serverUrl, token);
  writeIdentity(state, identity);
  if (old && old.server_url !== serverUrl) state.remove('token');
  if (readToken(state)) state.remove('token');
  console.log(`Enrolling ${hostname()} with ${serverUrl} (system id ${identity.system_id}).`);
  // The installed service waits for an identity before it starts; now it has one (or a new one).
  if (restartInstalledService(paths, log)) console.log('Started the hearth-agent service.');
  if (!options.wait) {
    console.log('The agent service will wait for a parent to approve this device.');
    return 0;
  }
  return waitForApproval(paths, state, identity, log);
}

function waitForApproval(
  paths: AgentPaths,
  state: StateStore,
  identity: Identity,
  log: Logger,
): Promise<number> {
  const channel = new Channel({
    wsUrl: wsUrlOf(identity.server_url),
    log: log.child({ part: 'enroll' }),
    hello: () => ({
      system_id: identity.system_id,
      hostname: process.env.HEARTH_AGENT_HOSTNAME || hostname(),
      platform: 'linux',
      agent_version: AGENT_VERSION,
      linux_users: humanAccounts(paths).map(({ username, display_name }) => ({
        username,
        ...(display_name ? { display_name } : {}),
      })),
    }),
    secureToken: () => null,
    enrollmentToken: () => identity.enrollment_token ?? null,
  });
  return new Promise((resolve) => {
    let said = false;
    const finish = async (code: number, line: string) => {
      clearInterval(poll);
      await channel.stop();
      (code ? process.stderr : process.stdout).write(`${line}\n`);
      resolve(code);
    };
    // The running service may be approved first (it pairs with the same proof): its token counts too.
    const poll = setInterval(() => {
      if (readToken(state)) void finish(0, 'Approved. The agent service is running with this device token.');
    }, 1000);
    channel.on('pending', () => {
      if (said) return;
      said = true;
      console.log('Waiting for a parent to approve this device in Hearth (Devices → Waiting for approval)…');
    });
    channel.on('approved', (token) => {
      writeToken(state, token);
      const { enrollment_token: _, ...rest } = identity;
      writeIdentity(state, rest);
      void finish(0, 'Approved. This device is now managed by Hearth.');
    });
    channel.on(
      'rejected',
      (code, reason) =>
        void finish(
          1,
          code === 4403
            ? 'A parent rejected this device.'
            : `The server refused the enrolment token${reason ? ` (${reason})` : ''}.`,
        ),
    );
    channel.start();
  });
}
