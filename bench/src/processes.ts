import { type ChildProcess, fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A port the OS just handed out and released; a child that binds it at once will almost surely get it. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (!address || typeof address === 'string') throw new Error('could not find a free port');
  return address.port;
}

export interface Child {
  name: string;
  process: ChildProcess;
  /** The child's last output, for the error message when it fails to start or dies. */
  output(): string;
  /** Set once the child has exited, with its code or signal. */
  exited: Promise<string>;
  /** How the child exited, or null while it runs. */
  exitStatus(): string | null;
}

const OUTPUT_KEEP = 8_000;

/** Starts `node <args>` with its output captured rather than mixed into the benchmark's table. */
export function spawnNode(
  name: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Child {
  const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env, stdio: 'pipe' });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-OUTPUT_KEEP);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let status: string | null = null;
  const exited = new Promise<string>((resolve) => {
    const done = (how: string) => {
      status ??= how;
      resolve(status);
    };
    child.once('exit', (code, signal) => done(signal ? `signal ${signal}` : `code ${code}`));
    child.once('error', (err) => done(`spawn error: ${err.message}`));
  });
  return { name, process: child, output: () => output, exited, exitStatus: () => status };
}

/** Polls `url` until it answers 200; fails early, with the child's output, when the child exits. */
export async function waitForOk(child: Child, url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    const exitedWith = child.exitStatus();
    if (exitedWith)
      throw new Error(`${child.name} exited (${exitedWith}) before answering:\n${child.output()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
      last = `status ${res.status}`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await sleep(100);
  }
  throw new Error(
    `${child.name} did not answer 200 at ${url} within ${timeoutMs} ms (${last}):\n${child.output()}`,
  );
}

/** SIGTERM and a few seconds for a clean close, then SIGKILL. */
export async function stopChild(child: Child, graceMs = 5_000): Promise<void> {
  const proc = child.process;
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
  await child.exited;
  clearTimeout(timer);
}

/** A benchmark worker process (a .ts file run through tsx) asked one request at a time over IPC. */
export interface Worker<Req, Reply> {
  child: ChildProcess;
  ask(req: Req): Promise<Reply>;
}

/** Forks `file` with the workspace sources loadable; a reply `{op:'error', message}` rejects. */
export function forkWorker<Req, Reply extends { op: string }>(file: string): Worker<Req, Reply> {
  const child = fork(file, [], {
    execArgv: ['--conditions=hearth-source', '--import', import.meta.resolve('tsx')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return {
    child,
    ask: (req) =>
      new Promise((resolve, reject) => {
        child.once('message', (m: Reply) =>
          m.op === 'error' ? reject(new Error((m as { message?: string }).message)) : resolve(m),
        );
        child.send(req as object);
      }),
  };
}
