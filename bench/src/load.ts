import { createHistogram } from 'node:perf_hooks';
import autocannon from 'autocannon';

export interface LoadOptions {
  /** Measured seconds. */
  duration: number;
  /** Seconds of the same load, run first and thrown away (JIT, statement cache, connection setup). */
  warmup: number;
  connections: number;
}

export interface Target {
  label: string;
  url: string;
  headers?: Record<string, string>;
}

export interface Measurement {
  label: string;
  requestsPerSecond: number;
  /** Milliseconds, from response times recorded to the microsecond (autocannon's own are whole ms). */
  latencyP50: number;
  latencyP99: number;
  requests: number;
}

export class LoadError extends Error {}

/** Reads BENCH_DURATION / BENCH_WARMUP (seconds) and BENCH_CONNECTIONS, or the defaults. */
export function loadOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): LoadOptions {
  const positive = (key: string, fallback: number, integer: boolean, allowZero = false) => {
    const text = env[key]?.trim();
    if (!text) return fallback;
    const value = Number(text);
    const ok =
      Number.isFinite(value) && (allowZero ? value >= 0 : value > 0) && (!integer || Number.isInteger(value));
    if (!ok)
      throw new LoadError(
        `${key} must be a ${integer ? 'whole' : ''} number${allowZero ? ' ≥ 0' : ' > 0'}, got "${text}"`,
      );
    return value;
  };
  return {
    duration: positive('BENCH_DURATION', 10, false),
    warmup: positive('BENCH_WARMUP', 2, false, true),
    connections: positive('BENCH_CONNECTIONS', 50, true),
  };
}

/** Runs autocannon once and fails unless every response was a 2xx and nothing errored. */
async function fire(target: Target, connections: number, duration: number) {
  const micros = createHistogram();
  const instance = autocannon({ url: target.url, connections, duration, headers: target.headers ?? {} });
  instance.on('response', (_client, _status, _bytes, responseTimeMs) => {
    micros.record(Math.max(1, Math.round(responseTimeMs * 1000)));
  });
  const result = await instance;
  const problems: string[] = [];
  if (result.non2xx) problems.push(`${result.non2xx} non-2xx responses`);
  if (result.errors) problems.push(`${result.errors} connection errors`);
  if (result.timeouts) problems.push(`${result.timeouts} timeouts`);
  if (!result['2xx']) problems.push('no successful response at all');
  if (problems.length) {
    const codes = Object.entries(result.statusCodeStats)
      .map(([code, { count }]) => `${code}×${count}`)
      .join(', ');
    throw new LoadError(
      `${target.label} (${target.url}): ${problems.join(', ')} (status codes: ${codes || 'none'})`,
    );
  }
  return { result, micros };
}

/** Warm-up, then the measured run, against one target. */
export async function measure(target: Target, options: LoadOptions): Promise<Measurement> {
  if (options.warmup > 0) await fire(target, options.connections, options.warmup);
  const { result, micros } = await fire(target, options.connections, options.duration);
  return {
    label: target.label,
    requestsPerSecond: result.requests.average,
    latencyP50: micros.percentile(50) / 1000,
    latencyP99: micros.percentile(99) / 1000,
    requests: result['2xx'],
  };
}
