// The native-messaging host `com.hearth.agent` (DESIGN §14): Chrome starts it for the extension and speaks
// its framing on stdin/stdout (4-byte little-endian length, then JSON); it relays each message as a JSON
// line to the daemon's IPC socket of the account it runs as, and each answer and push back to Chrome.
import net from 'node:net';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { LineSplitter } from './ipc/lines.js';

/** Chrome sends at most 64 MiB, but nothing of ours is near 1 MiB; Chrome takes at most 1 MiB from us. */
export const MAX_FROM_CHROME = 1024 * 1024;
export const MAX_TO_CHROME = 1024 * 1024;
/**
 * An answer from the daemon larger than what Chrome takes is refused (`too_large`); GET_POLICY answers in
 * parts of at most POLICY_PART_BYTES of names (agent/src/domain-policy.ts) so that a big policy fits.
 */
const MAX_FROM_AGENT = 16 * 1024 * 1024;
const RECONNECT_MS = 5_000;

export function encodeFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32LE(body.length, 0);
  return Buffer.concat([head, body]);
}

/** Chrome's frames out of a byte stream; `push` gives null once the stream is not Chrome's framing. */
export class FrameReader {
  private buffer: Buffer = Buffer.alloc(0);

  constructor(private readonly max = MAX_FROM_CHROME) {}

  push(chunk: Buffer): unknown[] | null {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    const out: unknown[] = [];
    while (this.buffer.length >= 4) {
      const length = this.buffer.readUInt32LE(0);
      if (length > this.max) return null;
      if (this.buffer.length < 4 + length) break;
      const body = this.buffer.subarray(4, 4 + length).toString('utf8');
      this.buffer = this.buffer.subarray(4 + length);
      try {
        out.push(JSON.parse(body));
      } catch {
        return null;
      }
    }
    return out;
  }
}

/** The account's socket: HEARTH_AGENT_IPC_SOCKET, else `users/<own uid>/ipc.sock` in the run directory. */
export function socketPathFor(env: NodeJS.ProcessEnv, uid: number): string {
  if (env.HEARTH_AGENT_IPC_SOCKET) return env.HEARTH_AGENT_IPC_SOCKET;
  return path.join(env.HEARTH_AGENT_RUN_DIR || '/run/hearth-agent', 'users', String(uid), 'ipc.sock');
}

export interface NativeHostOptions {
  input: Readable;
  output: Writable;
  socketPath: string;
  /** A line for stderr (Chrome shows a host's stderr in its own log). */
  say?: (line: string) => void;
}

/** Runs until Chrome closes stdin (0) or sends something that is not its framing (1). */
export function runNativeHost(o: NativeHostOptions): Promise<number> {
  const say = o.say ?? (() => {});
  let socket: net.Socket | null = null;
  let connecting: Promise<net.Socket | null> | null = null;
  /** Ids of messages the daemon has not answered, in order. */
  const pending: unknown[] = [];
  let done = false;

  const toChrome = (message: Record<string, unknown>) => {
    if (done) return;
    let frame = encodeFrame(message);
    if (frame.length - 4 > MAX_TO_CHROME)
      frame = encodeFrame({ id: message.id ?? null, ok: false, error: 'too_large' });
    o.output.write(frame);
  };

  const unreachable = (id: unknown) => toChrome({ id, ok: false, error: 'agent_unreachable' });

  const connect = (): Promise<net.Socket | null> => {
    if (socket) return Promise.resolve(socket);
    if (connecting) return connecting;
    connecting = new Promise((resolve) => {
      const s = net.createConnection(o.socketPath);
      const lines = new LineSplitter(MAX_FROM_AGENT);
      s.once('connect', () => {
        socket = s;
        connecting = null;
        resolve(s);
      });
      s.on('data', (chunk: Buffer) => {
        const got = lines.push(chunk);
        if (got === null) return s.destroy();
        for (const line of got) {
          let answer: unknown;
          try {
            answer = JSON.parse(line);
          } catch {
            continue;
          }
          if (!answer || typeof answer !== 'object' || Array.isArray(answer)) continue;
          const a = answer as Record<string, unknown>;
          if ('id' in a) {
            const at = pending.findIndex((id) => JSON.stringify(id) === JSON.stringify(a.id));
            if (at !== -1) pending.splice(at, 1);
          }
          toChrome(a);
        }
      });
      s.on('error', () => {});
      s.once('close', () => {
        if (socket === s) socket = null;
        if (connecting) {
          connecting = null;
          resolve(null);
        }
        // What the daemon took but did not answer will not be answered now.
        for (const id of pending.splice(0)) unreachable(id);
      });
    });
    return connecting;
  };

  return new Promise<number>((resolve) => {
    const finish = (code: number) => {
      if (done) return;
      done = true;
      clearInterval(retry);
      socket?.destroy();
      o.input.removeAllListeners('data');
      resolve(code);
    };
    // Pushes (POLICY_CHANGED) reach the extension only while we are connected, so keep trying.
    const retry = setInterval(() => {
      if (!socket) void connect();
    }, RECONNECT_MS);
    retry.unref();
    void connect();

    const reader = new FrameReader();
    // One message at a time reaches the socket in Chrome's order, even while a connection is being made.
    let queue = Promise.resolve();
    o.input.on('data', (chunk: Buffer) => {
      const messages = reader.push(chunk);
      if (messages === null) {
        say('hearth native host: input is not native-messaging framing; exiting');
        return finish(1);
      }
      for (const message of messages) {
        queue = queue.then(async () => {
          if (done) return;
          const id =
            message && typeof message === 'object' && !Array.isArray(message)
              ? ((message as Record<string, unknown>).id ?? null)
              : null;
          if (id === null && (!message || typeof message !== 'object' || Array.isArray(message)))
            return toChrome({ id: null, ok: false, error: 'bad_message' });
          const s = await connect();
          if (!s?.writable) return unreachable(id);
          pending.push(id);
          s.write(`${JSON.stringify(message)}\n`);
        });
      }
    });
    o.input.once('end', () => void queue.then(() => finish(0)));
    o.input.once('error', () => finish(1));
  });
}
