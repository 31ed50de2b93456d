// Issue 17's sign-up detection measurement: every page of extension/test/corpus opened in Debian's
// Chromium with detect.ts injected in every frame (the test's own runner), then sign-up recall and
// precision, false blocks on login and ordinary pages, login capture, which layer matched, and how long
// detectSignup takes in the page (first call, and the mean of 20 more), plus two 50,000-element pages.
// `npm run bench:signup`.
import { loadavg } from 'node:os';
import {
  bundleDetect,
  type CorpusEntry,
  chromiumMissing,
  detectContext,
  detectInFrame,
  hugePage,
  launchBrowser,
  loadCorpus,
  type PageResult,
  runEntry,
  startCorpusServer,
} from '../../extension/test/corpus-runner.js';
import { percentile, provenance, run, writeResult } from './hearth-fixture.js';

const REPEAT = Number(process.env.SIGNUP_REPEAT ?? 20);
const HUGE = 50_000;
const LAYERS = ['url', 'new-password', 'confirm-password', 'registration-fields', 'page-text'] as const;

const pct = (n: number, d: number) => (d ? `${((n / d) * 100).toFixed(1)} %` : 'n/a');
const ms = (v: number) => `${v.toFixed(2)} ms`;

function matchedLayer(r: PageResult): string | null {
  return r.frames.find((f) => f.signup)?.signup?.layer ?? null;
}

async function main(): Promise<void> {
  const missing = chromiumMissing();
  if (missing) throw new Error(`cannot measure: ${missing}`);
  const corpus = loadCorpus();
  const bundle = await bundleDetect();
  const server = await startCorpusServer(
    corpus,
    new Map([
      ['huge.test/login', hugePage('login', HUGE)],
      ['huge.test/welcome', hugePage('signup', HUGE)],
      ['huge.test/sheet', hugePage('grid', HUGE)],
    ]),
  );
  const browser = await launchBrowser();
  const context = await detectContext(browser, bundle);
  const loadBefore = loadavg()[0] ?? 0;
  const results: PageResult[] = [];
  const huge: { kind: string; elements: number; coldMs: number; warmMs: number | null; right: boolean }[] =
    [];
  try {
    for (const entry of corpus) results.push(await runEntry(context, server, bundle, entry, REPEAT));
    for (const [pathname, kind, label] of [
      ['/login', 'login', 'login'],
      ['/welcome', 'signup', 'sign-up'],
      ['/sheet', 'login', 'login after 3,000 inputs'],
    ] as const) {
      const page = await context.newPage();
      await page.goto(server.url('huge.test', pathname));
      await page.waitForSelector('html[data-ready]', { state: 'attached' });
      const elements = Number(await page.getAttribute('html', 'data-ready'));
      const r = await detectInFrame(page.mainFrame(), bundle, REPEAT);
      const right = kind === 'login' ? !r.signup && Boolean(r.login) : Boolean(r.signup);
      huge.push({ kind: label, elements, coldMs: r.detectMs, warmMs: r.warmMs, right });
      await page.close();
    }
  } finally {
    await context.close();
    await browser.close();
    await server.close();
  }

  const loadAfter = loadavg()[0] ?? 0;
  const of = (expect: CorpusEntry['expect']) => results.filter((r) => r.entry.expect === expect);
  const signups = of('signup');
  const logins = of('login');
  const ordinary = of('ordinary');
  const found = signups.filter((r) => r.verdict === 'signup');
  const falseOnLogin = logins.filter((r) => r.verdict === 'signup');
  const falseOnOrdinary = ordinary.filter((r) => r.verdict === 'signup');
  const flagged = results.filter((r) => r.verdict === 'signup');
  const loginsCaptured = logins.filter((r) => r.verdict === 'login');
  const usernameRight = logins.filter((r) => {
    const login = r.frames.find((f) => f.login)?.login;
    return r.entry.username ? login?.username === r.entry.username : Boolean(login);
  });
  const ordinaryAsLogin = ordinary.filter((r) => r.verdict === 'login');
  const layerCount = (layer: string) => found.filter((r) => matchedLayer(r) === layer).length;
  const cold = results.map((r) => r.detectMs).sort((a, b) => a - b);
  const warm = results.map((r) => r.warmMs ?? 0).sort((a, b) => a - b);
  const slowest = results.reduce((a, b) => (b.detectMs > a.detectMs ? b : a));
  const wrong = results.filter((r) => r.verdict !== r.entry.expect);

  writeResult('signup-detection', [
    `### Sign-up detection over the corpus: ${results.length} pages (${signups.length} sign-up, ${logins.length} login, ${ordinary.length} ordinary)`,
    '',
    ...provenance(),
    `- Load average (1 min) before / after: ${loadBefore.toFixed(1)} / ${loadAfter.toFixed(1)}: the times are only ` +
      'meaningful on a quiet machine; the classification does not depend on it',
    `- Browser: ${browser.version()} (Debian's /usr/bin/chromium, headless), detect.ts bundled by esbuild and injected into every frame`,
    '',
    '| Measure | Value | Target |',
    '|---|---|---|',
    `| Sign-up recall (sign-up pages detected) | **${pct(found.length, signups.length)}** (${found.length} / ${signups.length}) | ≥ 95 % |`,
    `| Precision (detections that are sign-up pages) | **${pct(found.length, flagged.length)}** (${found.length} / ${flagged.length}) | |`,
    `| False blocks on login pages | **${falseOnLogin.length}** / ${logins.length} | 0 |`,
    `| False blocks on ordinary pages | **${falseOnOrdinary.length}** / ${ordinary.length} | 0 |`,
    `| Login pages with a login form found / with the expected username field | ${loginsCaptured.length} / ${usernameRight.length} of ${logins.length} | |`,
    `| Ordinary pages taken for a login page | ${ordinaryAsLogin.length} / ${ordinary.length} | |`,
    `| detectSignup per page, first call: median / p90 / max | ${ms(percentile(cold, 50))} / ${ms(percentile(cold, 90))} / ${ms(cold[cold.length - 1] ?? 0)} (slowest: ${slowest.entry.file}) | |`,
    `| detectSignup per page, mean of ${REPEAT} later calls: median / max | ${ms(percentile(warm, 50))} / ${ms(warm[warm.length - 1] ?? 0)} | |`,
    ...huge.map(
      (h) =>
        `| ${h.elements.toLocaleString('en-US')}-element ${h.kind} page: first call / later (mean) | ${ms(h.coldMs)} / ${ms(h.warmMs ?? 0)} (${h.right ? 'answered right' : '**answered wrong**'}) | |`,
    ),
    '',
    'Layer that matched on the detected sign-up pages (the first frame that matched):',
    '',
    `| ${LAYERS.map((l, i) => `${i + 1} ${l}`).join(' | ')} |`,
    `|${LAYERS.map(() => '---:').join('|')}|`,
    `| ${LAYERS.map(layerCount).join(' | ')} |`,
    '',
    wrong.length
      ? `Pages answered wrong:\n\n${wrong
          .map(
            (r) =>
              `- ${r.entry.file} (${r.entry.host}${r.entry.path}): expected ${r.entry.expect}, got ${r.verdict}` +
              (matchedLayer(r) ? ` (${r.frames.find((f) => f.signup)?.signup?.reason})` : ''),
          )
          .join('\n')}`
      : 'Every page answered as corpus.json expects.',
    '',
    'Per page:',
    '',
    '| page | expect | got | layer: reason | first call |',
    '|---|---|---|---|---:|',
    ...results.map((r) => {
      const m = r.frames.find((f) => f.signup)?.signup;
      return `| ${r.entry.file} | ${r.entry.expect} | ${r.verdict} | ${m ? `${m.index} ${m.layer}: ${m.reason.replaceAll('|', '\\|')}` : ''} | ${ms(r.detectMs)} |`;
    }),
  ]);
}

run(main);
