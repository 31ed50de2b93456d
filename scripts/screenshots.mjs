// `npm run screenshots`: builds the UI and runs the browser tests that take pictures, writing them to
// docs/screenshots/ (a plain `npm test` writes them under test-results/, which git ignores).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const env = { ...process.env, HEARTH_SCREENSHOTS_DIR: path.join(root, 'docs', 'screenshots') };

function run(args) {
  const r = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: root, env });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const webTests = readdirSync(path.join(root, 'web', 'test'))
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => path.join('web', 'test', name));
run([path.join(root, 'scripts', 'build.mjs')]);
run([
  path.join(root, 'scripts', 'test.mjs'),
  ...webTests,
  path.join('overlay', 'test', 'screenshots.test.ts'),
  path.join('extension', 'test', 'extension.test.ts'),
]);
console.log(`\n# screenshots refreshed in ${path.relative(root, env.HEARTH_SCREENSHOTS_DIR)}/`);
