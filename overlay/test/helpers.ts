import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import axe from 'axe-core';
import { type Browser, type BrowserContextOptions, chromium, type Page } from 'playwright-core';

export const overlayDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const repoRoot = path.resolve(overlayDir, '..');
export const pageFile = path.join(overlayDir, 'dist', 'blockedv2.html');
export const pageUrl = pathToFileURL(pageFile).href;
export const CHROMIUM = '/usr/bin/chromium';

/** Debian's Chromium or nothing: these tests never download a browser. */
export const skipReason = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing (apt-get install chromium)`;
if (skipReason) console.log(`# skipping Hearth Space browser tests: ${skipReason}`);

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }
  return latest;
}

/** `npm test` builds first; a test file run on its own builds the page when the sources are newer. */
export function ensureBuilt(): void {
  const sources = Math.max(
    newest(path.join(overlayDir, 'src')),
    statSync(path.join(overlayDir, 'build.mjs')).mtimeMs,
    newest(path.join(repoRoot, 'protocol', 'src')),
  );
  if (existsSync(pageFile) && statSync(pageFile).mtimeMs >= sources) return;
  const r = spawnSync(process.execPath, [path.join(overlayDir, 'build.mjs')], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('building the overlay failed');
}

export async function launch(): Promise<Browser> {
  ensureBuilt();
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // Chromium builds the address bar's WebUI popup in a renderer of its own for every new context, that
      // is for every openPage: 200–400 ms of CPU spent while the page under test paints, on a two-core
      // machine. A child's browser does that when a window opens, not for each page.
      '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup',
    ],
  });
}

export function overlayUrl(query: Record<string, string> = {}, base = pageUrl): string {
  const qs = new URLSearchParams(query).toString();
  return qs ? `${base}?${qs}` : base;
}

/** A fresh context and page; page errors fail the test instead of passing unseen. */
export async function openPage(
  browser: Browser,
  options: BrowserContextOptions = {},
): Promise<{ page: Page; errors: Error[]; close(): Promise<void> }> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    locale: 'en-GB',
    ...options,
  });
  const page = await context.newPage();
  const errors: Error[] = [];
  page.on('pageerror', (error) => errors.push(error));
  return { page, errors, close: () => context.close() };
}

export const hook = (name: string) => `[data-hearth="${name}"]`;

/**
 * Waits for what the page adds just after its first paint (the breathing exercise, the sketchpad, the
 * glow) and ends their fade-in, so that a test sees the page as the child does a moment after it opens.
 */
export async function settle(page: Page): Promise<void> {
  await page.waitForSelector('html[data-settled]', { state: 'attached' });
  await page.evaluate(() => {
    for (const animation of document.getAnimations())
      if ((animation as CSSAnimation).animationName === 'settle') animation.finish();
  });
}

/** How many pixels of the sketchpad's canvas hold paint. */
export const painted = (page: Page) =>
  page.evaluate(() => {
    const canvas = document.querySelector('[data-hearth="sketchpad"]') as HTMLCanvasElement;
    const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data ?? [];
    let n = 0;
    for (let i = 3; i < data.length; i += 4) if ((data[i] ?? 0) > 0) n++;
    return n;
  });

export async function text(page: Page, name: string): Promise<string> {
  return (await page.locator(hook(name)).first().textContent()) ?? '';
}

export async function waitForStatus(page: Page, pattern: RegExp): Promise<string> {
  await page.waitForFunction(
    ([selector, source, flags]) =>
      new RegExp(source, flags).test(document.querySelector(selector)?.textContent ?? ''),
    [hook('status'), pattern.source, pattern.flags] as const,
  );
  return text(page, 'status');
}

/** Runs axe-core in the page and returns its violations (rule id and the offending nodes). */
export async function axeViolations(page: Page): Promise<{ id: string; nodes: string[] }[]> {
  await page.evaluate(axe.source);
  const result = await page.evaluate(async () => {
    const w = window as unknown as { axe: { run(ctx: Document, opts: unknown): Promise<any> } };
    const r = await w.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v: any) => ({ id: v.id, nodes: v.nodes.map((n: any) => n.html) }));
  });
  return result;
}

export const REASONS = ['sleep', 'filtered', 'locked', 'signup', 'clock_tamper'] as const;
export const TIERS = ['under8', 'eight12', 'teen'] as const;
