#!/usr/bin/env node
// The hearth CLI: builds the server on first use, then runs its compiled entry point.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entry = path.join(serverDir, 'dist', 'cli.js');
if (!existsSync(entry)) {
  const root = path.resolve(serverDir, '..');
  const built = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], {
    stdio: 'inherit',
    cwd: root,
  });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
await import(pathToFileURL(entry).href);
