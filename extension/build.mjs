// Builds the Manifest V3 extension into dist/: manifest.json, the service worker, the content script, the
// popup, Hearth Space (blockedv2.html + .js from overlay/dist/extension), icons rastered from one SVG,
// and dist/hearth-extension-<version>.zip with all of it for the store or a managed install.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32, deflateRawSync } from 'node:zlib';
import { initWasm, Resvg } from '@resvg/resvg-wasm';
import * as esbuild from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const protocolSrc = path.join(root, 'protocol', 'src');
const overlayDist = path.join(root, 'overlay', 'dist', 'extension');
const dist = path.join(here, 'dist');
const version = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version;

/** protocol/ has no side effects (STYLE), so its TypeBox schemas drop out of the bundles (as in overlay/). */
const pureProtocol = {
  name: 'pure-protocol',
  setup(build) {
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData === 'pure-protocol') return undefined;
      if (args.path !== '@hearth/protocol' && !args.resolveDir.startsWith(protocolSrc)) return undefined;
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: 'pure-protocol',
      });
      if (resolved.errors.length) return { errors: resolved.errors };
      return {
        ...resolved,
        sideEffects: resolved.path.startsWith(protocolSrc) ? false : resolved.sideEffects,
      };
    });
  },
};

const common = {
  bundle: true,
  minify: true,
  target: 'chrome110',
  platform: 'browser',
  conditions: ['hearth-source'],
  legalComments: 'none',
  charset: 'utf8',
  plugins: [pureProtocol],
  logLevel: 'warning',
};

/** The protocol's constants, read from its sources the way the bundles see them. */
async function protocolConstants() {
  const out = await esbuild.build({
    ...common,
    minify: false,
    platform: 'node',
    format: 'esm',
    write: false,
    stdin: {
      contents: "export { EXTENSION_ID, EXTENSION_PUBLIC_KEY, NATIVE_HOST_NAME } from '@hearth/protocol';",
      resolveDir: here,
    },
  });
  return import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString('base64')}`);
}

function ensureOverlay() {
  if (
    existsSync(path.join(overlayDist, 'blockedv2.html')) &&
    existsSync(path.join(overlayDist, 'blockedv2.js'))
  )
    return;
  const r = spawnSync(process.execPath, [path.join(root, 'overlay', 'build.mjs')], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('extension: building the overlay failed');
}

/** One mark for every size: Hearth's house and flame, white on the ember of Hearth Space. */
const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 128 128">
  <rect x="4" y="4" width="120" height="120" rx="28" fill="#b4441c"/>
  <g transform="translate(16 14) scale(4)" fill="none" stroke="#fff" stroke-width="1.9" stroke-linejoin="round">
    <path d="M3.5 11.2 12 3.8l8.5 7.4V19a2 2 0 0 1-2 2h-13a2 2 0 0 1-2-2z"/>
    <path fill="#fff" stroke="none" d="M12 18.2c-1.8 0-2.9-1.1-2.9-2.6 0-1.6 1.3-2.5 1.9-4 .9.9 1.2 1.7 1.2 2.5.5-.4.9-1 1-1.7 1 .9 1.7 2 1.7 3.2 0 1.5-1.1 2.6-2.9 2.6z"/>
  </g>
</svg>`;
const ICON_SIZES = [16, 32, 48, 128];

async function icons() {
  const require = createRequire(import.meta.url);
  await initWasm(readFileSync(require.resolve('@resvg/resvg-wasm/index_bg.wasm')));
  const out = {};
  for (const size of ICON_SIZES) {
    const png = new Resvg(ICON_SVG, { fitTo: { mode: 'width', value: size } }).render().asPng();
    writeFileSync(path.join(dist, 'icons', `hearth-${size}.png`), png);
    out[size] = `icons/hearth-${size}.png`;
  }
  return out;
}

/**
 * Permissions, each for something the worker does (docs/extension.md says more):
 * - nativeMessaging: the only way to the agent (com.hearth.agent).
 * - storage: the popup's status and whether sign-ups are enforced (local); which tab the worker sent to
 *   Hearth Space and for what (session, gone with the browser).
 * - webNavigation: top-level navigations for the domain policy (before they load, and after a server
 *   redirect), and the top frame's URL when a sign-up form sits in a frame.
 * No host_permissions: the content script's matches let it run, and the worker needs no page access.
 */
function manifest(constants, iconFiles) {
  return {
    manifest_version: 3,
    name: 'Hearth',
    short_name: 'Hearth',
    description:
      'Hearth for your family: sign-ups that wait for a parent’s OK, the accounts a child uses, and blocked sites.',
    version,
    key: constants.EXTENSION_PUBLIC_KEY,
    // 110: a service worker lives as long as events reach it; 105 keeps it alive while the native port is
    // open; 102 brought storage.session.
    minimum_chrome_version: '110',
    icons: iconFiles,
    action: { default_title: 'Hearth', default_popup: 'popup.html', default_icon: iconFiles },
    background: { service_worker: 'worker.js', type: 'module' },
    content_scripts: [
      {
        matches: ['http://*/*', 'https://*/*'],
        js: ['content.js'],
        all_frames: true,
        // A form a page builds in an about:blank frame is the page's own form.
        match_about_blank: true,
        run_at: 'document_end',
      },
    ],
    permissions: ['nativeMessaging', 'storage', 'webNavigation'],
    // Hearth Space, web-accessible as the issue asks (a page may show it, e.g. a school portal's frame):
    // the worker trusts it only as the top frame of a tab it sent there itself, for what it recorded.
    web_accessible_resources: [
      { resources: ['blockedv2.html', 'blockedv2.js'], matches: ['http://*/*', 'https://*/*'] },
    ],
    // Only extension pages send messages: no web page or other extension can connect.
    externally_connectable: { ids: [] },
  };
}

const ZIP_TIME = { time: 0, date: ((2024 - 1980) << 9) | (1 << 5) | 1 };

/** A plain zip (deflate) of dist/'s files, with a fixed date so the same sources give the same bytes. */
function zip(files) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const name of files) {
    const data = readFileSync(path.join(dist, name));
    const packed = deflateRawSync(data, { level: 9 });
    const nameBytes = Buffer.from(name, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(ZIP_TIME.time, 10);
    local.writeUInt16LE(ZIP_TIME.date, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    locals.push(local, nameBytes, packed);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x0314, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(ZIP_TIME.time, 12);
    central.writeUInt16LE(ZIP_TIME.date, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

function listFiles(dir, prefix = '') {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? listFiles(path.join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
    )
    .sort();
}

const started = Date.now();
ensureOverlay();
const constants = await protocolConstants();
rmSync(dist, { recursive: true, force: true });
mkdirSync(path.join(dist, 'icons'), { recursive: true });

await Promise.all([
  esbuild.build({
    ...common,
    format: 'esm',
    entryPoints: [path.join(here, 'src/worker/main.ts')],
    outfile: path.join(dist, 'worker.js'),
  }),
  esbuild.build({
    ...common,
    format: 'iife',
    entryPoints: [path.join(here, 'src/content/main.ts')],
    outfile: path.join(dist, 'content.js'),
  }),
  esbuild.build({
    ...common,
    format: 'iife',
    entryPoints: [path.join(here, 'src/popup/popup.ts')],
    outfile: path.join(dist, 'popup.js'),
  }),
]);
cpSync(path.join(here, 'src/popup/popup.html'), path.join(dist, 'popup.html'));
cpSync(path.join(here, 'src/popup/popup.css'), path.join(dist, 'popup.css'));
cpSync(path.join(overlayDist, 'blockedv2.html'), path.join(dist, 'blockedv2.html'));
cpSync(path.join(overlayDist, 'blockedv2.js'), path.join(dist, 'blockedv2.js'));
const iconFiles = await icons();
writeFileSync(
  path.join(dist, 'manifest.json'),
  `${JSON.stringify(manifest(constants, iconFiles), null, 2)}\n`,
);

const files = listFiles(dist);
const archive = `hearth-extension-${version}.zip`;
writeFileSync(path.join(dist, archive), zip(files));
const kb = (name) => (statSync(path.join(dist, name)).size / 1024).toFixed(1);
console.log(
  `extension: dist/ (worker.js ${kb('worker.js')} KB, content.js ${kb('content.js')} KB) and ${archive} ` +
    `${kb(archive)} KB in ${Date.now() - started} ms`,
);
