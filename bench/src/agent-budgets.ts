// Issue 13's figures for the agent channel's budgets, on the compiled server in its own process:
// its memory while one device tries to pin four installed-apps reports left one chunk short (99 of
// 100 chunks of ~0.9 MB each, each chunk sent after the previous one's ack), and GET /healthz while
// another device floods 20,000 junk frames. `npm run bench:budgets`; results go to
// bench/results/agent-budgets.md. Figures only: the assertions are in server/test/agent-budgets.test.ts.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import {
  type Hearth,
  percentile,
  provenance,
  run,
  seedDevices,
  startHearth,
  writeResult,
} from './hearth-fixture.js';
import { type Frame, SimAgent } from './simulator.js';

const rssMiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function bigApps(tag: string) {
  const pad = 'x'.repeat(780);
  return Array.from({ length: 1000 }, (_, i) => ({
    application_name: `${tag}${i}`,
    identifier: `/opt/${pad}/${tag}${i}`,
    match_type: 'executable',
    version_name: '1.0',
  }));
}

/** GET /healthz one after another until `until` resolves (and at least `min` times); the latencies. */
async function healthWhile(baseUrl: string, until: Promise<unknown>, min = 50): Promise<number[]> {
  let done = false;
  void until.then(() => {
    done = true;
  });
  const times: number[] = [];
  while (!done || times.length < min) {
    const t = performance.now();
    const res = await fetch(`${baseUrl}/healthz`);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`/healthz answered ${res.status}`);
    times.push(performance.now() - t);
  }
  return times.sort((x, y) => x - y);
}

run(async () => {
  let hearth: Hearth | null = null;
  const agents: SimAgent[] = [];
  try {
    hearth = await startHearth('budgets');
    const { pid, baseUrl } = hearth;
    const [reporterDevice, flooderDevice] = await seedDevices(hearth, 2);
    const agent = (d: { systemId: string; token: string } | undefined) => {
      if (!d) throw new Error('no device seeded');
      const a = new SimAgent({
        url: hearth?.wsUrl ?? '',
        systemId: d.systemId,
        secureToken: d.token,
        record: false,
        linuxUsers: [{ username: 'kid' }],
      });
      agents.push(a);
      return a;
    };

    // Stage 1: four reports, each 99 of its 100 chunks, the next chunk sent after each ack.
    const reporter = agent(reporterDevice);
    await reporter.connect();
    await sleep(1000);
    const baseline = rssMiB(pid);
    let accepted = 0;
    let refused = 0;
    let firstRefusal = '';
    let closedAt: { code: number; reason: string } | null = null;
    reporter.once('close', (info) => {
      closedAt = info;
    });
    let peak = baseline;
    outer: for (let r = 0; r < 4; r++) {
      const reportId = randomUUID();
      for (let c = 0; c < 99; c++) {
        if (closedAt) break outer;
        const ack = reporter.waitFor(
          (f: Frame) => f.type === 'installed_apps_report_ack' && f.report_id === reportId,
          30_000,
        );
        reporter.send({
          type: 'installed_apps_report',
          report_id: reportId,
          linux_username: 'kid',
          chunk_index: c,
          chunk_total: 100,
          is_final: false,
          reported_at: new Date().toISOString(),
          apps: bigApps(`r${r}c${c}x`),
        });
        const answer = await Promise.race([ack, reporter.waitForClose(30_000).then(() => null)]);
        if (!answer) break outer;
        if (answer.success) accepted++;
        else {
          refused++;
          firstRefusal ||= String(answer.error);
        }
        peak = Math.max(peak, rssMiB(pid));
      }
    }
    await sleep(1000);
    const afterReports = rssMiB(pid);

    // Stage 2: /healthz alone, then while another device sends 20,000 junk frames.
    const quiet = await healthWhile(baseUrl, sleep(2000), 200);
    const flooder = agent(flooderDevice);
    await flooder.connect();
    const closed = flooder.waitForClose(60_000);
    const started = performance.now();
    const ws = flooder.socket as WebSocket;
    const junk = JSON.stringify({ type: 'junk', filler: 'j'.repeat(40) });
    for (let i = 0; i < 20_000 && ws.readyState === WebSocket.OPEN; i++) ws.send(junk);
    const flooded = await healthWhile(baseUrl, closed);
    const close = await closed;
    const closeMs = performance.now() - started;

    const row = (label: string, t: number[]) =>
      `| ${label} | ${t.length} | ${percentile(t, 50).toFixed(2)} | ${percentile(t, 99).toFixed(2)} | ${(t.at(-1) ?? 0).toFixed(2)} |`;
    const reporterClose = closedAt as { code: number; reason: string } | null;
    writeResult('agent-budgets', [
      '# Agent channel budgets',
      '',
      '## Four installed-apps reports left one chunk short (99 of 100 chunks of ~0.9 MB each)',
      '',
      '| figure | value |',
      '| --- | ---: |',
      `| chunks accepted / refused | ${accepted} / ${refused} |`,
      `| first refusal | ${firstRefusal || '—'} |`,
      `| socket closed | ${reporterClose ? `${reporterClose.code} ${reporterClose.reason}` : 'no'} |`,
      `| server RSS before / peak / after | ${baseline.toFixed(0)} / ${peak.toFixed(0)} / ${afterReports.toFixed(0)} MiB |`,
      '',
      '## GET /healthz, one request after another, alone and while 20,000 junk frames arrive on one socket',
      '',
      '| when | requests | p50 (ms) | p99 (ms) | max (ms) |',
      '| --- | ---: | ---: | ---: | ---: |',
      row('alone', quiet),
      row('during the flood, until its socket closed', flooded),
      '',
      `The flooding socket was closed ${close.code} (\`${close.reason}\`) ${closeMs.toFixed(0)} ms after its first frame.`,
      '',
      ...provenance(),
      '- Server: compiled server/dist, SQLite, log level warn, no worker; agents are the simulator in the benchmark process. Memory is recorded, not asserted.',
    ]);
  } finally {
    for (const a of agents) a.drop();
    await hearth?.stop();
  }
});
