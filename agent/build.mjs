// Builds the agent for shipping: dist/hearth-agent.mjs (the CLI) and dist/hearth-native-host.mjs, one
// file each for Node ≥ 18 (Debian 12 has 18.19), with resvg's WebAssembly (resvg.wasm) and the overlay
// page beside them. `--deb` also makes dist/hearth-agent_<version>_all.deb, staged by the built CLI's
// own `install` so the package and `hearth-agent install` write the very same files. `--out DIR`
// builds elsewhere (tests).
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const { values } = parseArgs({ options: { deb: { type: 'boolean' }, out: { type: 'string' } } });
const out = path.resolve(values.out ?? path.join(here, 'dist'));
const { version } = JSON.parse(readFileSync(path.join(here, 'package.json'), 'utf8'));

function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.error})`);
  return r;
}

mkdirSync(out, { recursive: true });
const programs = [
  { entry: 'src/cli.ts', file: 'hearth-agent.mjs' },
  { entry: 'src/native-host-main.ts', file: 'hearth-native-host.mjs' },
];
for (const { entry, file } of programs) {
  await esbuild.build({
    entryPoints: [path.join(here, entry)],
    outfile: path.join(out, file),
    bundle: true,
    platform: 'node',
    target: 'node18',
    format: 'esm',
    // @hearth/protocol from its TypeScript sources; no built protocol/dist is needed.
    conditions: ['hearth-source'],
    // ws may use these native add-ons when present; it works without them.
    external: ['bufferutil', 'utf-8-validate'],
    // Bundled CommonJS (ws, pngjs, jsqr) calls require() for Node's own modules.
    banner: {
      js: "import { createRequire as __hearthRequire } from 'node:module';\nconst require = __hearthRequire(import.meta.url);",
    },
    legalComments: 'none',
    logLevel: 'warning',
  });
  const target = path.join(out, file);
  const code = readFileSync(target, 'utf8').replace(/^#!.*\n/, '');
  writeFileSync(target, `#!/usr/bin/env node\n${code}`);
  chmodSync(target, 0o755);
}

// resvg's WebAssembly beside the bundle, where the bundled rasterer looks for it (inventory/icons.ts).
copyFileSync(
  fileURLToPath(import.meta.resolve('@resvg/resvg-wasm/index_bg.wasm')),
  path.join(out, 'resvg.wasm'),
);
chmodSync(path.join(out, 'resvg.wasm'), 0o644);

// The kiosk overlay page (Hearth Space), built by the overlay workspace.
const page = path.join(root, 'overlay', 'dist', 'blockedv2.html');
if (!existsSync(page)) run('npm', ['run', 'build', '--silent'], { cwd: path.join(root, 'overlay') });
copyFileSync(page, path.join(out, 'blockedv2.html'));
chmodSync(path.join(out, 'blockedv2.html'), 0o644);
console.log(
  `built ${path.relative(process.cwd(), out) || '.'}/{hearth-agent.mjs,hearth-native-host.mjs,resvg.wasm,blockedv2.html}`,
);

if (values.deb) {
  const stage = mkdtempSync(path.join(tmpdir(), 'hearth-agent-deb-'));
  try {
    const env = {
      PATH: process.env.PATH,
      HEARTH_AGENT_SYSROOT: stage,
      HEARTH_AGENT_STATE_DIR: path.join(stage, 'var/lib/hearth-agent'),
      HEARTH_AGENT_RUN_DIR: path.join(stage, 'run/hearth-agent'),
    };
    run(process.execPath, [path.join(out, 'hearth-agent.mjs'), 'install'], {
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    // Every file under /etc is configuration to dpkg: an admin's edit survives an upgrade.
    const conffiles = readdirSync(path.join(stage, 'etc'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => `/${path.relative(stage, path.join(e.parentPath ?? e.path, e.name))}`)
      .sort();
    const debian = path.join(stage, 'DEBIAN');
    mkdirSync(debian, { mode: 0o755 });
    chmodSync(stage, 0o755);
    const installedKb = Math.ceil(
      Number(
        run('du', ['-sk', '--exclude=DEBIAN', stage], { stdio: ['ignore', 'pipe', 'inherit'] })
          .stdout.toString()
          .split('\t')[0],
      ),
    );
    const control = [
      'Package: hearth-agent',
      `Version: ${version}`,
      'Architecture: all',
      'Section: admin',
      'Priority: optional',
      'Depends: nodejs (>= 18)',
      'Recommends: chromium, x11-apps, rfkill',
      'Maintainer: Hearth maintainers <hearth@localhost>',
      `Installed-Size: ${installedKb}`,
      'Description: Hearth agent: family device management for this computer',
      ' Enrol this computer with a Hearth server (hearth-agent enroll) and its',
      " service reports the accounts and applications, keeps the children's screen",
      ' time and shows Hearth Space on their screen. Parents manage it from Hearth.',
      '',
    ].join('\n');
    writeFileSync(path.join(debian, 'control'), control, { mode: 0o644 });
    writeFileSync(path.join(debian, 'conffiles'), `${conffiles.join('\n')}\n`, { mode: 0o644 });
    for (const script of ['postinst', 'prerm', 'postrm']) {
      copyFileSync(path.join(here, 'debian', script), path.join(debian, script));
      chmodSync(path.join(debian, script), 0o755);
    }
    const deb = path.join(out, `hearth-agent_${version}_all.deb`);
    run('dpkg-deb', ['--root-owner-group', '-Zxz', '--build', stage, deb], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    console.log(`built ${path.relative(process.cwd(), deb)}`);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
