// `npm start`: build whatever is not built yet, then run `hearth serve` (SQLite in ./data by default).
//
// The server runs in a child process so that its environment can carry MALLOC_ARENA_MAX=2 (unless
// the operator set it): glibc reads it only when a process starts, and without it the threads' malloc
// arenas keep what a blocklist refresh freed, some 50 MB (BENCHMARKS.md, "Blocklists").
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const built = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], {
  stdio: 'inherit',
  cwd: root,
});
if (built.status !== 0) process.exit(built.status ?? 1);

const server = spawn(
  process.execPath,
  [path.join(root, 'server', 'bin', 'hearth.mjs'), 'serve', ...process.argv.slice(2)],
  { stdio: 'inherit', env: { MALLOC_ARENA_MAX: '2', ...process.env } },
);
// Stopping `npm start` stops the server the same way.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
