import { COMMAND_TIMEOUT_MS, type CommandRequest, CommandResponseMessage } from '@hearth/protocol';
import type { Bus } from '../platform/bus.js';
import { newId } from '../platform/crypto.js';
import { compileStrict, describeErrors } from '../platform/validate.js';
import { type Connection, sendError, sendFrame } from './connection.js';
import { REFUSED } from './dispatch.js';
import type { CommandResult, Decision } from './types.js';

/** What instances tell each other on `instance:<id>`: commands, their results, pushes and decisions. */
export type InstanceMessage =
  | {
      kind: 'command';
      request_id: string;
      system_id: string;
      command: string;
      args: Record<string, unknown>;
      reply_to: string;
    }
  | { kind: 'command_result'; request_id: string; result: CommandResult }
  /** A frame that needs no answer (a push such as `time_status`) for a socket held there. */
  | { kind: 'frame'; system_id: string; frame: Record<string, unknown> }
  | { kind: Decision; system_id: string };

export const instanceTopic = (instanceId: string) => `instance:${instanceId}`;

const validateResponse = compileStrict<CommandResponseMessage>(CommandResponseMessage);

/** Sends a command on this socket and waits for its answer, the timeout, or the socket closing. */
export function requestOn(
  conn: Connection,
  command: string,
  args: Record<string, unknown>,
  requestId = newId(),
  timeoutMs = COMMAND_TIMEOUT_MS,
): Promise<CommandResult> {
  if (conn.ws.readyState !== conn.ws.OPEN) return Promise.resolve({ status: 'offline' });
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      conn.waiting?.delete(requestId);
      resolve({ status: 'timeout' });
    }, timeoutMs);
    conn.waiting ??= new Map();
    conn.waiting.set(requestId, (result) => {
      clearTimeout(timer);
      resolve(result);
    });
    const request: CommandRequest = { type: 'command_request', request_id: requestId, command, args };
    sendFrame(conn, request);
  });
}

/** Settles the command a `command_response` answers; an answer nobody waits for is dropped. */
export function takeResponse(conn: Connection, frame: Record<string, unknown>): typeof REFUSED | undefined {
  if (!validateResponse(frame)) {
    sendError(conn, 'invalid_message', `command_response: ${describeErrors(validateResponse.errors)}`);
    return REFUSED;
  }
  const resolve = conn.waiting?.get(frame.request_id);
  if (!resolve) return undefined;
  conn.waiting?.delete(frame.request_id);
  resolve(
    frame.success
      ? { status: 'ok', data: frame.data ?? null }
      : { status: 'error', error: frame.error ?? null },
  );
  return undefined;
}

/** Commands for sockets other instances hold, sent over the bus and waiting for their results. */
export class RemoteCommands {
  private readonly waits = new Map<string, (result: CommandResult) => void>();

  constructor(
    private readonly bus: Bus,
    private readonly instanceId: string,
  ) {}

  send(
    holder: string,
    systemId: string,
    command: string,
    args: Record<string, unknown>,
  ): Promise<CommandResult> {
    const requestId = newId();
    return new Promise((resolve) => {
      // The holder times out first, so its `timeout` normally arrives before this one fires.
      const timer = setTimeout(() => {
        this.waits.delete(requestId);
        resolve({ status: 'timeout' });
      }, COMMAND_TIMEOUT_MS + 1000);
      this.waits.set(requestId, (result) => {
        clearTimeout(timer);
        resolve(result);
      });
      const message: InstanceMessage = {
        kind: 'command',
        request_id: requestId,
        system_id: systemId,
        command,
        args,
        reply_to: this.instanceId,
      };
      this.bus.publish(instanceTopic(holder), message).catch(() => {
        this.waits.delete(requestId);
        clearTimeout(timer);
        resolve({ status: 'offline' });
      });
    });
  }

  settle(requestId: string, result: CommandResult): void {
    this.waits.get(requestId)?.(result);
    this.waits.delete(requestId);
  }
}
