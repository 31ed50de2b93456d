// An agent enrolled and approved against the real server, then its daemon started; and a JSON-lines client
// for the daemon's IPC sockets.
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { SimAgent } from '../../bench/src/simulator.js';
import { enrollmentToken, type Household, type TestServer } from '../../server/test/helpers.js';
import { AgentProcess, agentEnv, type Sysroot } from './harness.js';

export interface ApprovedAgent {
  systemId: string;
  daemon: AgentProcess;
}

export async function startApprovedAgent(
  server: TestServer,
  home: Household,
  sys: Sysroot,
  running: AgentProcess[],
  extra: Record<string, string> = {},
): Promise<ApprovedAgent> {
  const token = await enrollmentToken(home);
  const enrolling = new AgentProcess(
    ['enroll', '--server', server.url, '--token', token],
    agentEnv(sys, extra),
  );
  running.push(enrolling);
  await enrolling.waitFor(() => enrolling.stdout.includes('Waiting for a parent'), 'waiting line');
  const identity = JSON.parse(readFileSync(path.join(sys.stateDir, 'identity.json'), 'utf8')).data;
  const approved = await home.client.post(`/api/device/approve/${identity.system_id}`);
  if (approved.status !== 200) throw new Error(`approve: ${approved.status} ${approved.text}`);
  if ((await enrolling.exited) !== 0) throw new Error(`enroll failed: ${enrolling.stderr}`);
  const daemon = new AgentProcess(['run'], agentEnv(sys, extra));
  running.push(daemon);
  await daemon.waitForLog('connected to the server');
  return { systemId: identity.system_id, daemon };
}

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

/** The child's weekly schedule with `minutes` a day and no windows; resolves once `daemon` applied it. */
export async function setDailyLimit(
  home: Household,
  daemon: AgentProcess,
  childId: string,
  minutes: number,
): Promise<void> {
  const days = Object.fromEntries(WEEKDAYS.map((d) => [d, { limit_minutes: minutes, windows: [] }]));
  const res = await home.client.post('/weekly-schedule/update', { managed_user_id: childId, days });
  if (res.status !== 200) throw new Error(`schedule: ${res.status} ${res.text}`);
  await daemon.waitForLog('time policy applied', (l) => l.version === res.body.version);
}

/** Another device of the child: a simulated agent with the account `kid`, approved and mapped to her. */
export async function otherDeviceOf(
  server: TestServer,
  home: Household,
  childId: string,
  keep: SimAgent[],
): Promise<SimAgent> {
  const other = new SimAgent({
    url: server.wsUrl,
    enrollmentToken: await enrollmentToken(home),
    linuxUsers: [{ username: 'kid' }],
  });
  keep.push(other);
  await other.connect();
  const approved = other.waitFor('pairing_approved');
  await home.client.post(`/api/device/approve/${other.systemId}`);
  await approved;
  const mapped = await home.client.post(`/managed-users/${childId}/mappings/add`, {
    system_id: other.systemId,
    linux_username: 'kid',
  });
  if (mapped.status !== 201) throw new Error(`mapping: ${mapped.status} ${mapped.text}`);
  return other;
}

/** One connection to an IPC socket: requests by id, pushes collected as they come. */
export class IpcClient {
  readonly lines: Record<string, unknown>[] = [];
  closed = false;
  private buffer = '';
  private waiters: {
    test: (l: Record<string, unknown>) => boolean;
    resolve: (l: Record<string, unknown>) => void;
  }[] = [];
  private nextId = 1;

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (d: Buffer) => {
      this.buffer += d.toString('utf8');
      const parts = this.buffer.split('\n');
      this.buffer = parts.pop() ?? '';
      for (const part of parts) {
        const line = JSON.parse(part) as Record<string, unknown>;
        this.lines.push(line);
        this.waiters = this.waiters.filter((w) => {
          if (!w.test(line)) return true;
          w.resolve(line);
          return false;
        });
      }
    });
    socket.on('close', () => {
      this.closed = true;
    });
  }

  static connect(file: string): Promise<IpcClient> {
    return new Promise((resolve, reject) => {
      const s = net.createConnection(file);
      s.once('connect', () => resolve(new IpcClient(s)));
      s.once('error', reject);
    });
  }

  next(test: (l: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    const found = this.lines.find(test);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => this.waiters.push({ test, resolve }));
  }

  request(message: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = `r${this.nextId++}`;
    this.socket.write(`${JSON.stringify({ id, ...message })}\n`);
    return this.next((l) => l.id === id);
  }

  whenClosed(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => this.socket.once('close', () => resolve()));
  }

  close(): void {
    this.socket.destroy();
  }
}
