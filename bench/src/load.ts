import { createHistogram } from 'node:perf_hooks';
import autocannon from 'autocannon';

export interface LoadOptions {
  /** Measured seconds per target in each round. */
  duration: number;
  /** Seconds of the same load, run first and thrown away (JIT, statement cache, connection setup). */
  warmup: number;
  connections: number;
  /** Rounds of measuring every target in turn (see `measureInTurns`). */
  rounds: number;
}

export interface Target {
  label: string;
  url: string;
  headers?: Record<string, string>;
  /** autocannon's request sequence, e.g. to rotate a header per request. */
  requests?: autocannon.Request[];
  method?: 'GET' | 'POST';
  body?: string;
  /** The status every response must have; by default any 2xx. */
  status?: number;
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

/** Reads BENCH_DURATION / BENCH_WARMUP (seconds), BENCH_CONNECTIONS and BENCH_ROUNDS, or the defaults. */
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
    duration: positive('BENCH_DURATION', 4, false),
    warmup: positive('BENCH_WARMUP', 2, false, true),
    connections: positive('BENCH_CONNECTIONS', 50, true),
    rounds: positive('BENCH_ROUNDS', 5, true),
  };
}

/** How many responses had the status the target expects. */
function expected(target: Target, result: autocannon.Result): number {
  return target.status === undefined
    ? result['2xx']
    : (result.statusCodeStats[String(target.status)]?.count ?? 0);
}

/**
 * Runs autocannon once and fails unless every response had the expected status (a 2xx unless the
 * target names one) and nothing errored.
 */
async function fire(target: Target, connections: number, duration: number) {
  const micros = createHistogram();
  const instance = autocannon({
    url: target.url,
    connections,
    duration,
    headers: target.headers ?? {},
    ...(target.method ? { method: target.method } : {}),
    ...(target.body !== undefined ? { body: target.body } : {}),
    ...(target.requests ? { requests: target.requests } : {}),
  });
  instance.on('response', (_client, _status, _bytes, responseTimeMs) => {
    micros.record(Math.max(1, Math.round(responseTimeMs * 1000)));
  });
  const result = await instance;
  const problems: string[] = [];
  const answered = Object.values(result.statusCodeStats).reduce((n, { count }) => n + count, 0);
  const unexpected = answered - expected(target, result);
  if (unexpected > 0) problems.push(`${unexpected} responses other than ${target.status ?? '2xx'}`);
  if (result.errors) problems.push(`${result.errors} connection errors`);
  if (result.timeouts) problems.push(`${result.timeouts} timeouts`);
  if (!expected(target, result)) problems.push('no response with the expected status at all');
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

/** A target's figures over all rounds, with its rate in each round. */
export interface TurnMeasurement extends Measurement {
  perRound: number[];
}

/**
 * Warms every target up, then measures them in turn, round after round. This machine's speed drifts
 * (a shared host), so targets measured one after the other in single long runs compare the machine
 * at two moments as much as the targets; taking turns lets a drift touch them all alike, and the
 * per-round ratios show how much it moved. `watch` is told when each measured run starts and ends.
 */
export async function measureInTurns(
  targets: Target[],
  options: LoadOptions,
  watch: {
    before?: (index: number) => void;
    after?: (index: number) => void;
    round?: (n: number) => void;
  } = {},
): Promise<TurnMeasurement[]> {
  if (options.warmup > 0)
    for (const target of targets) await fire(target, options.connections, options.warmup);
  const totals = targets.map((target) => ({
    target,
    micros: createHistogram(),
    requests: 0,
    perRound: [] as number[],
  }));
  for (let round = 1; round <= options.rounds; round++) {
    watch.round?.(round);
    for (const [index, total] of totals.entries()) {
      watch.before?.(index);
      const { result, micros } = await fire(total.target, options.connections, options.duration);
      watch.after?.(index);
      total.micros.add(micros);
      total.requests += expected(total.target, result);
      total.perRound.push(result.requests.average);
    }
  }
  return totals.map(({ target, micros, requests, perRound }) => ({
    label: target.label,
    requestsPerSecond: perRound.reduce((a, b) => a + b, 0) / Math.max(1, perRound.length),
    latencyP50: micros.percentile(50) / 1000,
    latencyP99: micros.percentile(99) / 1000,
    requests,
    perRound,
  }));
}

/** Each round's rate of `measured` over `baseline`'s in the same round. */
export function roundRatios(measured: TurnMeasurement, baseline: TurnMeasurement): number[] {
  return measured.perRound.map((rate, i) => rate / (baseline.perRound[i] ?? Number.NaN));
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}
