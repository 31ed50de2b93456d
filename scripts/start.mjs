// `npm start`: build whatever is not built yet, then run `hearth serve` (SQLite in ./data by default).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const built = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], {
  stdio: 'inherit',
  cwd: root,
});
if (built.status !== 0) process.exit(built.status ?? 1);
const { main } = await import(pathToFileURL(path.join(root, 'server', 'dist', 'main.js')).href);
await main(['serve', ...process.argv.slice(2)]);
