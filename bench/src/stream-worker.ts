// A process of dashboard streams for the live-events benchmark: spreading the 1,000 streams over a few
// processes keeps the benchmark's own parsing from delaying what it measures.
import { Agent, fetch } from 'undici';

type Request = { op: 'open'; url: string; cookie: string; count: number } | { op: 'report' } | { op: 'stop' };

/** Event id → arrival times, as epoch milliseconds with sub-millisecond precision (comparable across processes). */
const arrivals = new Map<string, number[]>();
const controllers: AbortController[] = [];
const dispatcher = new Agent({ connections: 2000, pipelining: 0 });
const now = () => performance.timeOrigin + performance.now();

async function openStream(url: string, cookie: string): Promise<void> {
  const controller = new AbortController();
  controllers.push(controller);
  const res = await fetch(url, {
    headers: { cookie, accept: 'text/event-stream' },
    signal: controller.signal,
    dispatcher,
  });
  if (res.status !== 200 || !res.body) throw new Error(`stream answered ${res.status}`);
  const decoder = new TextDecoder();
  let buffer = '';
  void (async () => {
    try {
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        const at = now();
        buffer += decoder.decode(chunk, { stream: true });
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.includes('event: access_requested')) {
            const id = /"id":"([^"]+)"/.exec(block.slice(block.indexOf('data: ')))?.[1];
            if (id) {
              const list = arrivals.get(id) ?? [];
              list.push(at);
              arrivals.set(id, list);
            }
          }
          end = buffer.indexOf('\n\n');
        }
      }
    } catch {
      // closed by the benchmark
    }
  })();
}

process.on('message', async (message: Request) => {
  try {
    if (message.op === 'open') {
      for (let i = 0; i < message.count; i++) await openStream(message.url, message.cookie);
      process.send?.({ op: 'opened', count: message.count });
    } else if (message.op === 'report') {
      process.send?.({ op: 'report', arrivals: [...arrivals] });
    } else {
      for (const c of controllers) c.abort();
      await dispatcher.close().catch(() => {});
      process.send?.({ op: 'stopped' });
      setTimeout(() => process.exit(0), 50);
    }
  } catch (err) {
    process.send?.({ op: 'error', message: err instanceof Error ? err.message : String(err) });
  }
});
