import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  hook,
  launch,
  openPage,
  overlayUrl,
  painted,
  repoRoot,
  settle,
  skipReason,
  waitForStatus,
} from './helpers.ts';

// Beside the admin UI's: test-results/screenshots unless HEARTH_SCREENSHOTS_DIR says (npm run screenshots).
const outDir = path.join(
  process.env.HEARTH_SCREENSHOTS_DIR
    ? path.resolve(process.env.HEARTH_SCREENSHOTS_DIR)
    : path.join(repoRoot, 'test-results', 'screenshots'),
  'overlay',
);
const DESKTOP = { width: 1920, height: 1080 };
const PHONE = { width: 390, height: 844 };

/** A little picture, so the screenshots show the sketchpad in use: a sun, a heart and green hills. */
async function doodle(page: Page): Promise<void> {
  const canvas = page.locator(hook('sketchpad'));
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  assert.ok(box);
  const stroke = async (colour: string, points: [number, number][]) => {
    await page.getByRole('button', { name: colour }).click();
    // Clicking a colour may scroll the page: bring the whole canvas back into view and measure it again.
    await canvas.evaluate((c) => c.scrollIntoView({ block: 'center' }));
    const at = await canvas.boundingBox();
    assert.ok(at);
    const [first, ...rest] = points;
    if (!first) return;
    await page.mouse.move(at.x + first[0], at.y + first[1]);
    await page.mouse.down();
    for (const [x, y] of rest) await page.mouse.move(at.x + x, at.y + y);
    await page.mouse.up();
  };
  const r = Math.min(box.width, box.height) * 0.12;
  const sun: [number, number][] = [];
  for (let a = 0; a <= 64; a++) {
    const t = (a / 64) * Math.PI * 2;
    sun.push([box.width * 0.75 + r * Math.cos(t), box.height * 0.3 + r * Math.sin(t)]);
  }
  const heart: [number, number][] = [];
  const s = Math.min(box.width, box.height) / 90;
  for (let a = 0; a <= 80; a++) {
    const t = (a / 80) * Math.PI * 2;
    const x = 16 * Math.sin(t) ** 3;
    const y = 13 * Math.cos(t) - 5 * Math.cos(2 * t) - 2 * Math.cos(3 * t) - Math.cos(4 * t);
    heart.push([box.width * 0.3 + x * s, box.height * 0.38 - y * s]);
  }
  const hills: [number, number][] = [];
  for (let a = 0; a <= 60; a++) {
    const x = box.width * (0.06 + (a / 60) * 0.88);
    hills.push([x, box.height * 0.78 + Math.sin((a / 60) * Math.PI * 3) * box.height * 0.06]);
  }
  await stroke('Sunflower', sun);
  await stroke('Coral', heart);
  await stroke('Leaf', hills);
}

interface Shot {
  file: string;
  query: Record<string, string>;
  viewport: { width: number; height: number };
  colorScheme?: 'light' | 'dark';
  act?: (page: Page) => Promise<void>;
}

/** Plays the extension so that screenshots can show a confirmation. */
async function fakeExtension(page: Page): Promise<void> {
  await page.addInitScript(() => {
    (window as any).chrome = {
      runtime: {
        sendMessage(message: any, callback: (r: unknown) => void) {
          const reply =
            message.type === 'CHECK_REGISTRATION' ? { allowed: false, pending: false } : { ok: true };
          // A microtask, not a timer: the screenshots run on a paused clock.
          Promise.resolve(reply).then(callback);
        },
      },
    };
  });
}

const note = { note: 'Homework first, then we can play a board game together. Love you!' };
const shots: Shot[] = [
  {
    file: 'under8-desktop.png',
    query: { reason: 'sleep', age: 'under8', device: 'Mia’s tablet', ...note },
    viewport: DESKTOP,
  },
  {
    file: 'under8-phone.png',
    query: { reason: 'sleep', age: 'under8', device: 'Mia’s tablet', ...note },
    viewport: PHONE,
  },
  {
    file: 'eight12-desktop.png',
    query: { reason: 'locked', age: 'eight12', device: 'Family laptop', ...note },
    viewport: DESKTOP,
    act: async (page) => {
      await page.locator(hook('preset')).first().click();
      await waitForStatus(page, /Sent!/);
    },
  },
  {
    file: 'eight12-phone.png',
    query: { reason: 'locked', age: 'eight12', device: 'Family laptop', ...note },
    viewport: PHONE,
  },
  {
    file: 'teen-desktop.png',
    query: { reason: 'filtered', age: 'teen', device: 'Sam’s laptop' },
    viewport: DESKTOP,
    act: async (page) => {
      await page
        .locator(hook('message-input'))
        .fill('I need this site for my chemistry project. It’s the lab simulation our teacher set.');
    },
  },
  {
    file: 'teen-phone.png',
    query: { reason: 'filtered', age: 'teen', device: 'Sam’s phone' },
    viewport: PHONE,
  },
  {
    file: 'signup-desktop.png',
    query: {
      reason: 'signup',
      age: 'eight12',
      device: 'games.example.com',
      url: 'https://games.example.com/join',
    },
    viewport: DESKTOP,
    act: async (page) => {
      await page.locator(hook('request-signup')).click();
      await waitForStatus(page, /Waiting/);
    },
  },
  {
    file: 'signup-phone.png',
    query: {
      reason: 'signup',
      age: 'teen',
      device: 'forum.example.org',
      url: 'https://forum.example.org/register',
    },
    viewport: PHONE,
  },
  {
    file: 'dark-eight12-desktop.png',
    query: { reason: 'sleep', age: 'eight12', device: 'Family laptop', ...note },
    viewport: DESKTOP,
    colorScheme: 'dark',
  },
  {
    file: 'dark-under8-phone.png',
    query: { reason: 'clock_tamper', age: 'under8', device: 'Mia’s tablet' },
    viewport: PHONE,
    colorScheme: 'dark',
  },
  {
    file: 'dark-teen-desktop.png',
    query: {
      reason: 'locked',
      age: 'teen',
      device: 'Sam’s laptop',
      note: 'We can talk about more time at the weekend.',
    },
    viewport: DESKTOP,
    colorScheme: 'dark',
  },
];

describe('Hearth Space screenshots and first render', { skip: skipReason }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launch();
    mkdirSync(outDir, { recursive: true });
  });
  after(async () => {
    await browser?.close();
  });

  for (const shot of shots) {
    test(`screenshot ${shot.file}`, async () => {
      // bypassCSP only so the test may add a style that stops the breathing transition mid-way.
      const { page, errors, close } = await openPage(browser, {
        viewport: shot.viewport,
        colorScheme: shot.colorScheme ?? 'light',
        bypassCSP: true,
      });
      // A paused clock holds the breathing exercise still: every run takes the same picture.
      await page.clock.install({ time: new Date('2025-03-01T19:30:00Z') });
      await page.clock.pauseAt(new Date('2025-03-01T19:30:05Z'));
      await fakeExtension(page);
      await page.goto(overlayUrl(shot.query));
      await settle(page);
      await page.addStyleTag({ content: '.breath-circle { transition: none !important; }' });
      await page.clock.runFor(1200);
      await doodle(page);
      // Once, on a loaded machine, a picture came out with an empty pad: draw again rather than commit
      // it. (Drawing itself is asserted in activities.test.ts; this only keeps the pictures whole.)
      for (let again = 0; again < 2 && (await painted(page)) === 0; again++) {
        console.log(`# ${shot.file}: the doodle left no paint; drawing it again`);
        await doodle(page);
      }
      await shot.act?.(page);
      await page.evaluate(() => {
        (document.activeElement as HTMLElement | null)?.blur();
        window.scrollTo(0, 0);
      });
      await page.mouse.move(0, 0);
      await page.screenshot({ path: path.join(outDir, shot.file), fullPage: shot.viewport === PHONE });
      assert.deepEqual(errors, []);
      await close();
    });
  }

  test('measures the first render (reported, not asserted)', async () => {
    const query = { reason: 'locked', age: 'eight12', device: 'Family laptop', ...note };
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? -1;
    for (const [label, viewport] of [
      ['1920×1080', DESKTOP],
      ['390×844', PHONE],
    ] as const) {
      const runs: { fcp: number; rendered: number; settled: number }[] = [];
      for (let i = 0; i < 6; i++) {
        const { page, close } = await openPage(browser, { viewport });
        await page.goto(overlayUrl(query));
        // Waits inside the page with a PerformanceObserver. Playwright's waitForFunction would first compile
        // its own injected script in the page, while the page is still painting the frame being measured.
        const timing = await page.evaluate(
          () =>
            new Promise<{ fcp: number; rendered: number; settled: number }>((resolve) => {
              const observer = new PerformanceObserver(() => {
                const [fcp] = performance.getEntriesByName('first-contentful-paint');
                const [rendered] = performance.getEntriesByName('hearth-space-rendered');
                const [settled] = performance.getEntriesByName('hearth-space-settled');
                if (!fcp || !settled) return;
                observer.disconnect();
                resolve({
                  fcp: fcp.startTime,
                  rendered: rendered?.startTime ?? -1,
                  settled: settled.startTime,
                });
              });
              observer.observe({ type: 'paint', buffered: true });
              observer.observe({ type: 'mark', buffered: true });
            }),
        );
        runs.push(timing);
        await close();
      }
      const warm = runs.slice(1);
      const fcp = median(warm.map((r) => r.fcp));
      console.log(
        `# first render in Chromium at ${label}: first-contentful-paint median ${fcp.toFixed(1)} ms ` +
          `(runs ${warm.map((r) => r.fcp.toFixed(0)).join(', ')}; cold run ${runs[0]?.fcp.toFixed(0)}), ` +
          `card built by ${median(warm.map((r) => r.rendered)).toFixed(1)} ms, ` +
          `calm activities added at ${median(warm.map((r) => r.settled)).toFixed(1)} ms`,
      );
      assert.ok(fcp > 0);
    }
  });
});
