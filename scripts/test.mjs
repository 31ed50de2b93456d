// `npm test`: lint, type-check, build the UI the browser tests drive, then run every test file with
// node's test runner (TypeScript through tsx, workspace packages from their sources).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const only = process.argv.slice(2);

function step(label, cmd, args, env = {}) {
  console.log(`\n# ${label}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, env: { ...process.env, ...env } });
  if (r.status !== 0) {
    console.error(`# ${label} failed`);
    process.exit(r.status ?? 1);
  }
}

function findTests(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...findTests(full));
    else if (/\.test\.tsx?$/.test(entry.name)) out.push(path.relative(root, full));
  }
  return out;
}

if (!only.length) {
  step('lint (biome)', bin('biome'), ['check', '.']);
  step('type-check (packages)', bin('tsc'), ['-b', 'protocol', 'server']);
  for (const project of [
    'server/test',
    'web',
    'web/test',
    'overlay',
    'agent',
    'extension',
    'bench',
    'simulators',
  ]) {
    if (existsSync(path.join(root, project, 'tsconfig.json')))
      step(`type-check (${project})`, bin('tsc'), ['-p', project]);
  }
  step('build', process.execPath, [path.join(root, 'scripts', 'build.mjs')]);
}

const files = only.length
  ? only
  : ['protocol', 'server', 'web', 'overlay', 'agent', 'extension', 'bench', 'simulators']
      .flatMap((pkg) => findTests(path.join(root, pkg)))
      .sort();
step(
  `tests (${files.length} files)`,
  process.execPath,
  [
    '--conditions=hearth-source',
    '--import',
    'tsx',
    '--test',
    '--test-reporter=spec',
    '--test-concurrency=2',
    // A bound on each test file (node 20 applies it per file here): a test that hangs fails its file
    // after half an hour instead of holding CI until its limit. The longest file takes a few minutes.
    '--test-timeout=1800000',
    // A file whose tests have all finished ends then, even if something it started (a timer, a child's
    // pipe) would keep it alive: such a leftover cannot turn a green file into a half-hour wait.
    '--test-force-exit',
    ...files,
  ],
  { NODE_ENV: 'test' },
);
