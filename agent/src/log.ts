// One JSON line per event on stderr (journald keeps it). Secrets never reach a line: any field whose
// name says token is replaced, whatever the caller passed.
export type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

const SECRET = /token|secret|password|authorization/i;

function redact(value: unknown, depth = 0): unknown {
  if (value instanceof Error) return { message: value.message, code: (value as NodeJS.ErrnoException).code };
  if (!value || typeof value !== 'object' || depth > 4) return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET.test(k) ? '[redacted]' : redact(v, depth + 1);
  return out;
}

export function createLogger(
  level: Level = (process.env.HEARTH_AGENT_LOG_LEVEL as Level) || 'info',
  base: Record<string, unknown> = {},
  write: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  const min = ORDER[level] ?? ORDER.info;
  const emit = (lvl: Level, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < min) return;
    const extra = redact({ ...base, ...fields }) as Record<string, unknown>;
    write(`${JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...extra })}\n`);
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger(level, { ...base, ...fields }, write),
  };
}
