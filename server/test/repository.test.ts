// The repository itself: its licence is declared everywhere, and every locked dependency installs
// without an engine warning on the oldest Node.js the README promises.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import semver from 'semver';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const WORKSPACES = ['.', 'protocol', 'server', 'web', 'overlay', 'bench'];

test('LICENSE holds the AGPL and every package.json declares AGPL-3.0-or-later', () => {
  assert.match(read('LICENSE'), /^GNU AFFERO GENERAL PUBLIC LICENSE\s+Version 3, 19 November 2007/);
  for (const dir of WORKSPACES) {
    const manifest = JSON.parse(read(path.join(dir, 'package.json'))) as { license?: string };
    assert.equal(manifest.license, 'AGPL-3.0-or-later', `${dir}/package.json`);
  }
});

test('every locked package supports the Node.js version the README names', () => {
  const named = /Node\.js (\d+\.\d+(?:\.\d+)?) or newer/.exec(read('README.md'));
  assert.ok(named, 'the README names the oldest supported Node.js as "Node.js X.Y or newer"');
  const oldest = semver.coerce(named[1])?.version ?? '';
  const rootManifest = JSON.parse(read('package.json')) as { engines: { node: string } };
  assert.ok(
    semver.satisfies(oldest, rootManifest.engines.node),
    'package.json engines agree with the README',
  );

  const lock = JSON.parse(read('package-lock.json')) as {
    packages: Record<string, { engines?: { node?: string } | string[] }>;
  };
  const refused = Object.entries(lock.packages)
    .map(([where, entry]) => ({
      where,
      range: Array.isArray(entry.engines) ? undefined : entry.engines?.node,
    }))
    .filter(({ range }) => range !== undefined && !semver.satisfies(oldest, range))
    .map(({ where, range }) => `${where} wants node ${range}`);
  assert.deepEqual(refused, [], `packages that warn on Node.js ${oldest}`);
});
