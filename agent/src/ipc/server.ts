// The IPC sockets of DESIGN §14. Node cannot read SO_PEERCRED, so the kernel's file permissions say who
// speaks instead: each human account has `<runDir>/users/<uid>/` (0700) holding `ipc.sock` (0600), both
// owned by that account, and only that account (and root) can connect. A message is answered for the
// account whose socket it came in on, whatever it says. The native host finds its socket by its own uid.
import { chmodSync, chownSync, existsSync, lchownSync, mkdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { HumanAccount } from '../accounts.js';
import type { AgentContext, AgentModule } from '../context.js';
import { LineSplitter, MAX_LINE } from './lines.js';
import { handleMessage, type Message } from './messages.js';

/** Answers being worked on per connection before we stop reading from it. */
const MAX_IN_FLIGHT = 32;
const RESCAN_MS = 60_000;

export const usersDir = (runDir: string) => path.join(runDir, 'users');
export const socketPathOf = (runDir: string, uid: number) =>
  path.join(usersDir(runDir), String(uid), 'ipc.sock');

interface Listener {
  account: HumanAccount;
  server: net.Server;
  clients: Set<net.Socket>;
}

export class IpcServer {
  private readonly listeners = new Map<number, Listener>();
  private readonly isRoot = process.getuid?.() === 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly ctx: AgentContext) {}

  async start(): Promise<void> {
    const { runDir } = this.ctx.paths;
    mkdirSync(runDir, { recursive: true, mode: 0o755 });
    chmodSync(runDir, 0o755);
    // Whatever a previous run left (directories the accounts own) goes; we make it again ourselves.
    rmSync(usersDir(runDir), { recursive: true, force: true });
    mkdirSync(usersDir(runDir), { mode: 0o755 });
    await this.sync();
    this.ctx.domainPolicies?.onChange((username, version) =>
      this.push(username, { type: 'POLICY_CHANGED', version }),
    );
    this.timer = setInterval(() => void this.sync().catch(() => {}), RESCAN_MS);
    this.timer.unref();
  }

  /** Opens a socket for each account that has none, and closes those of accounts that went away. */
  async sync(): Promise<void> {
    const accounts = new Map<number, HumanAccount>();
    for (const a of this.ctx.accounts()) if (!accounts.has(a.uid)) accounts.set(a.uid, a);
    // An account may delete its own directory; the next round makes it again.
    for (const [uid, l] of this.listeners)
      if (!accounts.has(uid) || !existsSync(socketPathOf(this.ctx.paths.runDir, uid))) await this.close(l);
    for (const [uid, account] of accounts) {
      if (this.listeners.has(uid)) continue;
      try {
        await this.open(account);
      } catch (err) {
        this.ctx.log.warn('ipc socket not opened', { linux_username: account.username, err });
      }
    }
  }

  private async open(account: HumanAccount): Promise<void> {
    const dir = path.dirname(socketPathOf(this.ctx.paths.runDir, account.uid));
    const file = path.join(dir, 'ipc.sock');
    rmSync(dir, { recursive: true, force: true });
    // Made root-only first and handed over last: while we chown, the account cannot swap in a link.
    mkdirSync(dir, { mode: 0o700 });
    const listener: Listener = { account, server: net.createServer(), clients: new Set() };
    listener.server.on('connection', (socket) => this.serve(listener, socket));
    await new Promise<void>((resolve, reject) => {
      listener.server.once('error', reject);
      listener.server.listen(file, () => {
        listener.server.off('error', reject);
        resolve();
      });
    });
    listener.server.on('error', (err) =>
      this.ctx.log.warn('ipc socket error', { linux_username: account.username, err }),
    );
    chmodSync(file, 0o600);
    chmodSync(dir, 0o700);
    if (this.isRoot) {
      lchownSync(file, account.uid, account.gid);
      chownSync(dir, account.uid, account.gid);
    }
    this.listeners.set(account.uid, listener);
    this.ctx.log.debug('ipc socket open', { linux_username: account.username, path: file });
  }

  private serve(listener: Listener, socket: net.Socket): void {
    const username = listener.account.username;
    listener.clients.add(socket);
    const lines = new LineSplitter(MAX_LINE);
    let inFlight = 0;
    const send = (obj: Record<string, unknown>) => {
      if (!socket.destroyed && socket.writable) socket.write(`${JSON.stringify(obj)}\n`);
    };
    socket.on('data', (chunk: Buffer) => {
      const got = lines.push(chunk);
      if (got === null) {
        send({ id: null, ok: false, error: 'line_too_long' });
        socket.end();
        socket.pause();
        return;
      }
      for (const line of got) {
        if (!line.trim()) continue;
        let msg: unknown;
        try {
          msg = JSON.parse(line);
        } catch {
          send({ id: null, ok: false, error: 'bad_json' });
          continue;
        }
        if (!msg || typeof msg !== 'object' || Array.isArray(msg)) {
          send({ id: null, ok: false, error: 'bad_message' });
          continue;
        }
        const id = (msg as Message).id ?? null;
        inFlight += 1;
        if (inFlight >= MAX_IN_FLIGHT) socket.pause();
        void handleMessage(this.ctx, username, msg as Message).then((answer) => {
          inFlight -= 1;
          if (inFlight < MAX_IN_FLIGHT && !socket.readableEnded) socket.resume();
          send({ ...answer, id });
        });
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => listener.clients.delete(socket));
  }

  /** A push to every connected client of `username` (POLICY_CHANGED). */
  push(username: string, frame: Record<string, unknown>): void {
    const line = `${JSON.stringify(frame)}\n`;
    for (const l of this.listeners.values())
      if (l.account.username === username) for (const c of l.clients) if (c.writable) c.write(line);
  }

  private async close(l: Listener): Promise<void> {
    this.listeners.delete(l.account.uid);
    for (const c of l.clients) c.destroy();
    await new Promise<void>((resolve) => l.server.close(() => resolve()));
    const file = socketPathOf(this.ctx.paths.runDir, l.account.uid);
    if (existsSync(path.dirname(file))) rmSync(path.dirname(file), { recursive: true, force: true });
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.listeners.values()].map((l) => this.close(l)));
  }
}

export function ipcModule(): AgentModule {
  let server: IpcServer | undefined;
  return {
    name: 'ipc',
    async start(ctx) {
      server = new IpcServer(ctx);
      await server.start();
    },
    async stop() {
      await server?.stop();
    },
  };
}
