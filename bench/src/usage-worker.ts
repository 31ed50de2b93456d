// One process of simulated agents for the usage-report benchmark (a process holds fewer sockets than the
// machine's open-file limit). The parent sends instructions over IPC and gets figures back.
import { connectAll, SimAgent } from './simulator.js';

export type UsageWorkerRequest =
  | {
      op: 'connect';
      url: string;
      devices: { systemId: string; token: string }[];
      concurrency: number;
      addresses: string[];
    }
  | { op: 'report'; date: string; reports: number; batch: number; apps: number }
  | { op: 'stop' };

export type UsageWorkerReply =
  | { op: 'connected'; authenticated: number; failed: number; ms: number }
  | { op: 'reported'; reports: number; ms: number; lost: number }
  | { op: 'stopped' }
  | { op: 'error'; message: string };

let agents: SimAgent[] = [];

const reply = (message: UsageWorkerReply) => process.send?.(message);

/**
 * One agent's reports: `batch` growing running totals (the day and `apps` applications), then a report
 * for an account its hello did not name, whose `unknown_account` answer says the server has handled
 * everything before it (one socket's frames are handled in order); again until `reports` are sent.
 */
async function reportAll(agent: SimAgent, seq: number, r: Extract<UsageWorkerRequest, { op: 'report' }>) {
  let sent = 0;
  let seconds = (seq * 7) % 3600;
  while (sent < r.reports) {
    const n = Math.min(r.batch, r.reports - sent);
    const answer = agent.waitFor((f) => f.type === 'error' && f.code === 'unknown_account', 300_000);
    for (let i = 0; i < n; i++) {
      seconds += 60;
      agent.send({
        type: 'usage_report',
        linux_username: 'kid',
        date: r.date,
        seconds_used: seconds,
        apps: Array.from({ length: r.apps }, (_, k) => ({
          identifier: `/usr/bin/app-${(seq + k) % 50}`,
          match_type: 'executable',
          seconds: Math.floor(seconds / (k + 2)),
        })),
      });
    }
    agent.send({ type: 'usage_report', linux_username: 'barrier', date: r.date, seconds_used: 0 });
    await answer;
    sent += n;
  }
  return sent;
}

process.on('message', async (raw: UsageWorkerRequest) => {
  try {
    if (raw.op === 'connect') {
      agents = raw.devices.map(
        (d, i) =>
          new SimAgent({
            url: raw.url,
            systemId: d.systemId,
            secureToken: d.token,
            record: false,
            localAddress: raw.addresses[i % raw.addresses.length],
            linuxUsers: [{ username: 'kid' }],
          }),
      );
      const started = performance.now();
      const result = await connectAll(agents, raw.concurrency);
      reply({ op: 'connected', ...result, ms: performance.now() - started });
    } else if (raw.op === 'report') {
      const started = performance.now();
      const live = agents.filter((a) => a.state === 'authenticated');
      const sent = await Promise.all(live.map((a, i) => reportAll(a, i, raw)));
      const ms = performance.now() - started;
      const lost = agents.filter((a) => a.state !== 'authenticated').length;
      reply({ op: 'reported', reports: sent.reduce((n, s) => n + s, 0), ms, lost });
    } else if (raw.op === 'stop') {
      for (const a of agents) a.drop();
      reply({ op: 'stopped' });
      setTimeout(() => process.exit(0), 100);
    }
  } catch (err) {
    reply({ op: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
});
