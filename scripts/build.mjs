// Builds what is out of date: TypeScript packages incrementally, Hearth Space, the browser extension and
// the admin UI when their sources changed.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

function run(cmd, args, cwd = root) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd });
  if (r.status !== 0) {
    console.error(`build: ${path.basename(cmd)} ${args.join(' ')} failed`);
    process.exit(r.status ?? 1);
  }
}

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }
  return latest;
}

const force = process.argv.includes('--force');
run(bin('tsc'), ['-b', 'protocol', 'server']);

const overlay = path.join(root, 'overlay');
if (existsSync(path.join(overlay, 'package.json'))) {
  const page = path.join(overlay, 'dist', 'blockedv2.html');
  const stale =
    force ||
    !existsSync(page) ||
    newest(overlay) > statSync(page).mtimeMs ||
    newest(path.join(root, 'protocol', 'src')) > statSync(page).mtimeMs;
  if (stale) run('npm', ['run', 'build', '--silent'], overlay);
}

// The browser extension carries Hearth Space, so it is built after it and again when it changed.
const extension = path.join(root, 'extension');
if (existsSync(path.join(extension, 'build.mjs'))) {
  const manifest = path.join(extension, 'dist', 'manifest.json');
  const built = existsSync(manifest) ? statSync(manifest).mtimeMs : 0;
  const stale =
    force ||
    !built ||
    newest(path.join(extension, 'src')) > built ||
    statSync(path.join(extension, 'build.mjs')).mtimeMs > built ||
    newest(path.join(overlay, 'dist')) > built ||
    newest(path.join(root, 'protocol', 'src')) > built;
  if (stale) run(process.execPath, [path.join(extension, 'build.mjs')]);
}

const web = path.join(root, 'web');
const index = path.join(web, 'dist', 'index.html');
if (existsSync(path.join(web, 'index.html'))) {
  const stale =
    force ||
    !existsSync(index) ||
    newest(web) > statSync(index).mtimeMs ||
    newest(path.join(root, 'protocol', 'src')) > statSync(index).mtimeMs;
  if (stale) run(process.execPath, [path.join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build'], web);
}
