// A process of dashboard streams for the live-events benchmark. It reads with node:http's 'data' events
// (the response parser is native code) rather than fetch's web streams, whose promise per chunk made
// the reader, not the server, the slowest part of the measurement: on two cores every microsecond the
// reader spends per chunk delays the streams it has not read yet.
import http from 'node:http';

type Request = { op: 'open'; url: string; cookie: string; count: number } | { op: 'report' } | { op: 'stop' };

/** Event id → arrival times, as epoch milliseconds with sub-millisecond precision (comparable across processes). */
const arrivals = new Map<string, number[]>();
const requests: http.ClientRequest[] = [];
const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
const now = () => performance.timeOrigin + performance.now();
const KIND = 'event: access_requested\n';
const ID = '"id":"';

function record(block: string, at: number): void {
  const kind = block.indexOf(KIND);
  if (kind < 0) return;
  const start = block.indexOf(ID, kind);
  if (start < 0) return;
  const from = start + ID.length;
  const id = block.slice(from, block.indexOf('"', from));
  const list = arrivals.get(id);
  if (list) list.push(at);
  else arrivals.set(id, [at]);
}

function openStream(url: string, cookie: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers: { cookie, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`stream answered ${res.statusCode}`));
        return;
      }
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk: string) => {
        const at = now();
        buffer = buffer ? buffer + chunk : chunk;
        let end = buffer.indexOf('\n\n');
        let from = 0;
        while (end >= 0) {
          record(buffer.slice(from, end), at);
          from = end + 2;
          end = buffer.indexOf('\n\n', from);
        }
        buffer = from < buffer.length ? buffer.slice(from) : '';
      });
      res.on('error', () => {});
      resolve();
    });
    // After the stream opened, an error is its end (the benchmark destroys them); before, a failure.
    req.on('error', reject);
    req.on('socket', (socket) => socket.setNoDelay(true));
    requests.push(req);
  });
}

process.on('message', async (message: Request) => {
  try {
    if (message.op === 'open') {
      for (let i = 0; i < message.count; i++) await openStream(message.url, message.cookie);
      process.send?.({ op: 'opened', count: message.count });
    } else if (message.op === 'report') {
      process.send?.({ op: 'report', arrivals: [...arrivals] });
    } else {
      for (const req of requests) req.destroy();
      agent.destroy();
      process.send?.({ op: 'stopped' });
      setTimeout(() => process.exit(0), 50);
    }
  } catch (err) {
    process.send?.({ op: 'error', message: err instanceof Error ? err.message : String(err) });
  }
});
