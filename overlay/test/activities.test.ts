import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { hook, launch, openPage, overlayUrl, painted, settle, skipReason } from './helpers.ts';

async function dragAcross(page: Page): Promise<void> {
  const box = await page.locator(hook('sketchpad')).boundingBox();
  assert.ok(box);
  await page.mouse.move(box.x + box.width * 0.2, box.y + box.height * 0.3);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++)
    await page.mouse.move(box.x + box.width * (0.2 + i * 0.05), box.y + box.height * 0.5);
  await page.mouse.up();
}

const cue = (page: Page) => page.locator('.breath-cue').textContent();
const phase = (page: Page) => page.locator(hook('breathing')).getAttribute('data-phase');

describe('Hearth Space calm activities', { skip: skipReason }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('dragging on the sketchpad paints pixels; the eraser removes them and Clear empties the canvas', async () => {
    const { page, errors, close } = await openPage(browser);
    await page.goto(overlayUrl({ reason: 'locked', age: 'eight12' }));
    await settle(page);
    assert.equal(await painted(page), 0);
    await dragAcross(page);
    const afterDrawing = await painted(page);
    assert.ok(afterDrawing > 500, `${afterDrawing} pixels painted`);

    await page.getByRole('button', { name: 'Eraser' }).click();
    assert.equal(await page.getByRole('button', { name: 'Eraser' }).getAttribute('aria-pressed'), 'true');
    await dragAcross(page);
    assert.ok((await painted(page)) < afterDrawing / 4, 'the eraser took most of the line away');

    await page.getByRole('button', { name: 'Coral' }).click();
    assert.equal(await page.getByRole('button', { name: 'Eraser' }).getAttribute('aria-pressed'), 'false');
    await dragAcross(page);
    const colour = await page.evaluate(() => {
      const canvas = document.querySelector('[data-hearth="sketchpad"]') as HTMLCanvasElement;
      const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data ?? [];
      for (let i = 0; i < data.length; i += 4)
        if (data[i + 3] === 255) return [data[i], data[i + 1], data[i + 2]];
      return null;
    });
    assert.ok(colour, 'some solid paint');
    const coral = [0xe4, 0x57, 0x2e];
    assert.ok(
      colour.every((c, i) => Math.abs((c ?? 0) - (coral[i] ?? 0)) <= 3),
      `coral paint, got ${colour}`,
    );

    await page.getByRole('button', { name: 'Clear' }).click();
    assert.equal(await painted(page), 0);
    assert.deepEqual(errors, []);
    await close();
  });

  test('touch and pen pointers draw too', async () => {
    const { page, errors, close } = await openPage(browser, { hasTouch: true });
    await page.goto(overlayUrl({ reason: 'sleep', age: 'teen' }));
    await settle(page);
    for (const pointerType of ['touch', 'pen']) {
      await page.getByRole('button', { name: 'Clear' }).click();
      await page.evaluate((type) => {
        const canvas = document.querySelector('[data-hearth="sketchpad"]') as HTMLCanvasElement;
        const r = canvas.getBoundingClientRect();
        const steps: [string, number][] = [['pointerdown', 0.2]];
        for (let f = 0.25; f < 0.8; f += 0.05) steps.push(['pointermove', f]);
        steps.push(['pointerup', 0.8]);
        for (const [kind, f] of steps) {
          canvas.dispatchEvent(
            new PointerEvent(kind, {
              pointerId: 7,
              pointerType: type,
              isPrimary: true,
              pressure: 0.8,
              clientX: r.left + r.width * f,
              clientY: r.top + r.height * f,
              bubbles: true,
              cancelable: true,
            }),
          );
        }
      }, pointerType);
      assert.ok((await painted(page)) > 200, pointerType);
    }
    assert.equal(
      await page.locator(hook('sketchpad')).evaluate((c) => getComputedStyle(c).touchAction),
      'none',
    );
    assert.deepEqual(errors, []);
    await close();
  });

  test('under8 draws with a fatter line than teen', async () => {
    const counts: Record<string, number> = {};
    for (const age of ['under8', 'teen']) {
      const { page, close } = await openPage(browser);
      await page.goto(overlayUrl({ reason: 'locked', age }));
      await settle(page);
      await dragAcross(page);
      counts[age] = await painted(page);
      await close();
    }
    assert.ok((counts.under8 ?? 0) > (counts.teen ?? 0) * 2, JSON.stringify(counts));
  });

  test('the canvas fills its paper and follows the device pixel ratio', async () => {
    const { page, close } = await openPage(browser, {
      deviceScaleFactor: 2,
      viewport: { width: 390, height: 844 },
    });
    await page.goto(overlayUrl({ reason: 'locked', age: 'eight12' }));
    await settle(page);
    const size = await page.locator(hook('sketchpad')).evaluate((c: HTMLCanvasElement) => ({
      width: c.width,
      height: c.height,
      cssWidth: c.getBoundingClientRect().width,
      cssHeight: c.getBoundingClientRect().height,
    }));
    assert.equal(size.width, Math.round(size.cssWidth * 2));
    assert.equal(size.height, Math.round(size.cssHeight * 2));
    assert.ok(size.cssWidth > 280, 'nearly the phone width');
    await close();
  });

  test('breathing walks through in, hold, out and rest, and the circle grows and shrinks', async () => {
    const { page, close } = await openPage(browser);
    await page.clock.install();
    await page.goto(overlayUrl({ reason: 'sleep', age: 'eight12' }));
    await settle(page);
    await page.clock.runFor(200);
    const seen: string[] = [];
    for (let s = 0; s < 13; s++) {
      seen.push(`${await phase(page)}:${await cue(page)}`);
      await page.clock.runFor(1000);
    }
    assert.deepEqual([...new Set(seen)], ['in:Breathe in', 'hold:Hold', 'out:Breathe out', 'rest:Rest']);
    const circle = page.locator('.breath-circle');
    const style = await circle.evaluate((c) => ({
      property: getComputedStyle(c).transitionProperty,
      duration: getComputedStyle(c).transitionDuration,
    }));
    assert.match(style.property, /transform/);
    assert.notEqual(style.duration, '0s');
    await close();
  });

  test('under8 gets playful cues, and the pause button stops and restarts the exercise', async () => {
    const { page, close } = await openPage(browser);
    await page.clock.install();
    await page.goto(overlayUrl({ reason: 'sleep', age: 'under8' }));
    await settle(page);
    await page.clock.runFor(200);
    assert.equal(await cue(page), 'Smell the flower');
    await page.getByRole('button', { name: 'Pause breathing' }).click();
    assert.equal(await phase(page), 'paused');
    await page.clock.runFor(5000);
    assert.equal(await phase(page), 'paused');
    await page.getByRole('button', { name: 'Start breathing' }).click();
    assert.equal(await phase(page), 'in');
    await close();
  });

  test('with reduced motion the circle does not scale; only the words change', async () => {
    const { page, close } = await openPage(browser);
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.clock.install();
    await page.goto(overlayUrl({ reason: 'locked', age: 'teen' }));
    await settle(page);
    await page.clock.runFor(200);
    const transforms = new Set<string>();
    const cues = new Set<string>();
    for (let s = 0; s < 13; s++) {
      transforms.add(await page.locator('.breath-circle').evaluate((c) => getComputedStyle(c).transform));
      cues.add((await cue(page)) ?? '');
      await page.clock.runFor(1000);
    }
    assert.deepEqual([...transforms], ['none']);
    assert.deepEqual([...cues], ['Breathe in', 'Hold', 'Breathe out', 'Rest']);
    assert.equal(
      await page.locator('.breathe .card-hint').textContent(),
      'Follow the words at your own pace.',
    );
    await close();
  });
});
