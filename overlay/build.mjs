// Builds Hearth Space into one self-contained page: dist/blockedv2.html, with the bundled script and the
// styles inlined. A Manifest V3 extension may not run inline scripts, so dist/extension/ carries the same
// page with the script beside it as blockedv2.js.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const protocolSrc = path.resolve(here, '../protocol/src');
const dist = path.join(here, 'dist');
const BUDGET = 150 * 1024;

/**
 * protocol/ has no side effects (STYLE: "No I/O"), but its package does not say so; telling esbuild lets
 * it drop the TypeBox schemas the page never uses.
 */
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

const bundle = await esbuild.build({
  entryPoints: [path.join(here, 'src/main.ts')],
  bundle: true,
  format: 'iife',
  minify: true,
  target: 'chrome100',
  platform: 'browser',
  conditions: ['hearth-source'],
  legalComments: 'none',
  charset: 'utf8',
  write: false,
  plugins: [pureProtocol],
});
// Inside an inline <script>, "</script" in a string would end the element early.
const script = bundle.outputFiles[0].text.replaceAll('</script', '<\\/script').trim();
if (script.includes('<!--'))
  throw new Error('overlay: the bundle contains "<!--", which an inline script cannot hold');

// The sheet is kept in a few files by part of the page; they are one stylesheet, in this order.
const sheet = ['base.css', 'card.css', 'activities.css']
  .map((file) => readFileSync(path.join(here, 'src/styles', file), 'utf8'))
  .join('\n');
const css = await esbuild.transform(sheet, {
  loader: 'css',
  minify: true,
  target: 'chrome100',
});
const styles = css.code.trim();

const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
/**
 * Loopback only: the Linux kiosk's bridge; nothing else is ever fetched. CSP has no syntax for an IPv6
 * literal, so a bridge on [::1] must share the page's origin ('self'), as the agent serving both does.
 */
const connect = "'self' http://127.0.0.1:* http://localhost:*";
const csp = (scriptSource) =>
  [
    "default-src 'none'",
    `script-src ${scriptSource}`,
    `style-src ${sha256(styles)}`,
    'img-src data: blob:',
    `connect-src ${connect}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');

const template = readFileSync(path.join(here, 'src/index.html'), 'utf8');
const page = (scriptTag, scriptSource) =>
  template
    .replace('%CSP%', () => csp(scriptSource))
    .replace('/* styles */', () => styles)
    .replace('<!-- script -->', () => scriptTag);

const single = page(`<script>${script}</script>`, sha256(script));
const bytes = Buffer.byteLength(single);
if (bytes > BUDGET) {
  console.error(`overlay: blockedv2.html is ${bytes} bytes, over the ${BUDGET} byte budget`);
  process.exit(1);
}
/** Write-then-rename, so a test that reads the page never sees half of it. */
function put(name, text) {
  const file = path.join(dist, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(`${file}.${process.pid}.tmp`, text);
  renameSync(`${file}.${process.pid}.tmp`, file);
}
put('extension/blockedv2.js', script);
put('extension/blockedv2.html', page('<script src="blockedv2.js"></script>', "'self'"));
put('blockedv2.html', single);
console.log(`overlay: dist/blockedv2.html ${(bytes / 1024).toFixed(1)} KB`);
