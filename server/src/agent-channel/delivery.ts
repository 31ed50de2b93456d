import type { Connection } from './connection.js';
import type { CommandQueue } from './queue.js';
import { requestOn } from './rpc.js';
import type { AnsweredHandler } from './types.js';

/**
 * Sends every live queued command in order once the device is authenticated; each leaves the queue
 * once the agent answers it (at-least-once), and features hear about the answer.
 */
export async function flushQueue(
  conn: Connection,
  queue: CommandQueue,
  answered: readonly AnsweredHandler[],
): Promise<void> {
  const systemId = conn.systemId;
  if (!systemId) return;
  const rows = await queue.due(systemId);
  if (!rows.length) return;
  await queue.markAttempt(rows.map((r) => r.id));
  await Promise.all(
    rows.map(async (row) => {
      const args = JSON.parse(row.args);
      const result = await requestOn(conn, row.command, args, row.id);
      if (result.status === 'ok' || result.status === 'error') {
        await queue.remove(row.id);
        for (const handler of answered) handler(systemId, row.command, args, result);
      }
    }),
  );
}

/**
 * Hands a socket that is not (or no longer) authenticated its queued `command` entries, such as an
 * unenrolled device its `unenroll`, waiting briefly for each answer.
 */
export async function deliverQueued(
  conn: Connection,
  queue: CommandQueue,
  systemId: string,
  command: string,
  timeoutMs: number,
): Promise<void> {
  const rows = (await queue.due(systemId)).filter((r) => r.command === command);
  for (const row of rows) {
    const result = await requestOn(conn, row.command, JSON.parse(row.args), row.id, timeoutMs);
    if (result.status === 'ok' || result.status === 'error') await queue.remove(row.id);
  }
}
