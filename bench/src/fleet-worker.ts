// One process of simulated agents for the fleet benchmark (a process may hold fewer sockets than the
// machine's open-file limit). The parent sends instructions over IPC and gets figures back.
import { connectAll, SimAgent } from './simulator.js';

export type WorkerRequest =
  | {
      op: 'connect';
      url: string;
      devices: { systemId: string; token: string }[];
      concurrency: number;
      addresses: string[];
    }
  | { op: 'storm'; concurrency: number }
  | { op: 'count' }
  | { op: 'stop' };

export type WorkerReply =
  | { op: 'connected'; authenticated: number; failed: number; ms: number }
  | { op: 'stormed'; authenticated: number; failed: number; ms: number }
  | { op: 'count'; authenticated: number; commandsAnswered: number }
  | { op: 'stopped' }
  | { op: 'error'; message: string };

let agents: SimAgent[] = [];

const reply = (message: WorkerReply) => process.send?.(message);

process.on('message', async (raw: WorkerRequest) => {
  try {
    if (raw.op === 'connect') {
      const addresses = raw.addresses;
      agents = raw.devices.map(
        (d, i) =>
          new SimAgent({
            url: raw.url,
            systemId: d.systemId,
            secureToken: d.token,
            record: false,
            localAddress: addresses[i % addresses.length],
            linuxUsers: [{ username: 'kid' }],
          }),
      );
      const started = performance.now();
      const result = await connectAll(agents, raw.concurrency);
      reply({ op: 'connected', ...result, ms: performance.now() - started });
    } else if (raw.op === 'storm') {
      // Every socket drops at once, as after a network blip; then all say hello again together.
      for (const a of agents) a.drop();
      await new Promise((r) => setTimeout(r, 200));
      const started = performance.now();
      const result = await connectAll(agents, raw.concurrency);
      reply({ op: 'stormed', ...result, ms: performance.now() - started });
    } else if (raw.op === 'count') {
      reply({
        op: 'count',
        authenticated: agents.filter((a) => a.state === 'authenticated').length,
        commandsAnswered: agents.reduce((n, a) => n + a.commandsAnswered, 0),
      });
    } else if (raw.op === 'stop') {
      for (const a of agents) a.drop();
      reply({ op: 'stopped' });
      setTimeout(() => process.exit(0), 100);
    }
  } catch (err) {
    reply({ op: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
});
