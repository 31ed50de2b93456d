import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import {
  hook,
  launch,
  openPage,
  overlayUrl,
  pageFile,
  REASONS,
  settle,
  skipReason,
  TIERS,
  text,
} from './helpers.ts';

describe('Hearth Space content', { skip: skipReason }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('the built page is one file under 150 KB', () => {
    const size = statSync(pageFile).size;
    console.log(`# blockedv2.html is ${size} bytes (${(size / 1024).toFixed(1)} KB)`);
    assert.ok(size < 150 * 1024, `${size} bytes`);
  });

  test('every reason and tier has its own headline and description, and only under8 says Cozy Corner', async () => {
    const { page, errors, close } = await openPage(browser);
    const headlines = new Set<string>();
    const descriptions = new Set<string>();
    for (const reason of REASONS) {
      for (const age of TIERS) {
        await page.goto(overlayUrl({ reason, age }));
        const headline = await text(page, 'headline');
        const description = await text(page, 'description');
        assert.ok(headline.length > 5, `${reason}/${age} headline`);
        assert.ok(description.length > 40, `${reason}/${age} description`);
        headlines.add(headline);
        descriptions.add(description);
        const brand = (await page.locator('.brand-name').textContent()) ?? '';
        const body = (await page.locator('.shell').textContent()) ?? '';
        if (age === 'under8') {
          assert.equal(brand, 'Cozy Corner');
        } else {
          assert.equal(brand, 'Hearth Space');
          assert.ok(!body.includes('Cozy Corner'), `${reason}/${age} must not say Cozy Corner`);
        }
        assert.equal(await page.locator('h1').count(), 1);
        assert.equal(await page.evaluate(() => document.documentElement.dataset.tier), age);
        assert.equal(await page.evaluate(() => document.documentElement.dataset.reason), reason);
      }
    }
    assert.equal(headlines.size, 15, 'fifteen different headlines');
    assert.equal(descriptions.size, 15, 'fifteen different descriptions');
    assert.deepEqual(errors, []);
    await close();
  });

  test('a missing or unknown age is shown as eight12', async () => {
    const { page, close } = await openPage(browser);
    await page.goto(overlayUrl({ reason: 'locked', age: 'eight12' }));
    const expected = await text(page, 'headline');
    const queries: Record<string, string>[] = [
      { reason: 'locked' },
      { reason: 'locked', age: 'toddler' },
      { reason: 'locked', age: '' },
    ];
    for (const query of queries) {
      await page.goto(overlayUrl(query));
      assert.equal(await text(page, 'headline'), expected, JSON.stringify(query));
      assert.equal(await page.evaluate(() => document.documentElement.dataset.tier), 'eight12');
      assert.equal(await page.locator(hook('preset')).count(), 3);
    }
    await close();
  });

  test('shows the parent note on the card and the device discreetly, and hides the note when there is none', async () => {
    const { page, close } = await openPage(browser);
    await page.goto(
      overlayUrl({ reason: 'sleep', age: 'teen', device: 'Study laptop', note: 'Bed by ten, please.' }),
    );
    assert.equal(await text(page, 'note'), 'Bed by ten, please.');
    assert.ok(await page.locator(hook('note')).isVisible());
    assert.match((await page.locator('.chip').textContent()) ?? '', /Device:\s*Study laptop/);
    await page.goto(overlayUrl({ reason: 'sleep', age: 'teen' }));
    assert.equal(await page.locator(hook('note')).isVisible(), false);
    assert.equal(await page.locator('.chip').isVisible(), false);
    await close();
  });

  test('markup in note and device is shown as text and never runs', async () => {
    const { page, errors, close } = await openPage(browser);
    const note = '<img src=x onerror="window.__pwned=1"><b>hi</b>';
    const device = '<script>window.__pwned=2</script><svg onload="window.__pwned=3">';
    for (const reason of ['locked', 'signup']) {
      await page.goto(overlayUrl({ reason, age: 'eight12', note, device }));
      assert.equal(await text(page, 'note'), note);
      assert.ok(((await page.locator('.chip-value').textContent()) ?? '') === device);
      assert.equal(
        await page.locator('main img, main b, body > script ~ script, .chip svg[onload]').count(),
        0,
      );
      assert.equal(await page.evaluate(() => (window as any).__pwned), undefined);
      assert.match(await page.locator(hook('note')).innerHTML(), /&lt;img src=x/);
    }
    assert.deepEqual(errors, []);
    await close();
  });

  test('the language comes from lang, then the browser, with English as the fallback', async () => {
    const { page, close } = await openPage(browser);
    await page.goto(overlayUrl({ reason: 'locked', age: 'eight12', lang: 'de' }));
    assert.equal(await text(page, 'headline'), 'Die Bildschirmzeit ist um');
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'de');
    await page.goto(overlayUrl({ reason: 'locked', age: 'eight12', lang: 'fr' }));
    assert.equal(await text(page, 'headline'), 'Screen time is up');
    await close();

    const german = await openPage(browser, { locale: 'de-AT' });
    await german.page.goto(overlayUrl({ reason: 'signup', age: 'teen', device: 'example.com' }));
    assert.equal(await text(german.page, 'request-signup'), 'Anmeldung freigeben lassen');
    await german.page.goto(overlayUrl({ reason: 'signup', age: 'teen', lang: 'en' }));
    assert.equal(await text(german.page, 'request-signup'), 'Request Sign-up Approval');
    await german.close();
  });

  test('German has its own text for every reason and tier', async () => {
    const { page, close } = await openPage(browser);
    for (const reason of REASONS) {
      for (const age of TIERS) {
        await page.goto(overlayUrl({ reason, age }));
        const english = await text(page, 'headline');
        await page.goto(overlayUrl({ reason, age, lang: 'de-DE' }));
        const german = await text(page, 'headline');
        assert.notEqual(german, english, `${reason}/${age}`);
      }
    }
    await close();
  });

  test('locked with context=paused tells the child a parent paused them, in every tier and language', async () => {
    const { page, errors, close } = await openPage(browser);
    for (const lang of ['en', 'de']) {
      for (const age of TIERS) {
        await page.goto(overlayUrl({ reason: 'locked', age, lang }));
        const usedUp = {
          headline: await text(page, 'headline'),
          description: await text(page, 'description'),
        };
        await page.goto(overlayUrl({ reason: 'locked', context: 'paused', age, lang }));
        const headline = await text(page, 'headline');
        const description = await text(page, 'description');
        assert.notEqual(headline, usedUp.headline, `${lang}/${age} headline`);
        assert.notEqual(description, usedUp.description, `${lang}/${age} description`);
        assert.match(`${headline} ${description}`, lang === 'en' ? /paused/i : /pausiert|angehalten/i);
        if (lang === 'en') assert.doesNotMatch(description, /used (it )?all|used up all|time is up|reached/i);
        assert.equal(await page.evaluate(() => document.documentElement.dataset.context), 'paused');
        assert.equal(await page.evaluate(() => document.documentElement.dataset.reason), 'locked');
        if (age !== 'teen') {
          const presets = await page.locator(hook('preset')).allTextContents();
          assert.ok(presets.length >= 2, `${lang}/${age} presets`);
          assert.ok(
            !presets.some((p) => /15|more time|noch ein bisschen/i.test(p)),
            `${lang}/${age}: ${presets}`,
          );
        }
      }
    }
    // Only `locked` has a context; elsewhere, and for an unknown value, it changes nothing.
    await page.goto(overlayUrl({ reason: 'sleep', age: 'teen' }));
    const sleep = await text(page, 'headline');
    await page.goto(overlayUrl({ reason: 'sleep', age: 'teen', context: 'paused' }));
    assert.equal(await text(page, 'headline'), sleep);
    await page.goto(overlayUrl({ reason: 'locked', age: 'teen', context: 'nope' }));
    assert.equal(await text(page, 'headline'), 'You’ve reached today’s limit');
    assert.deepEqual(errors, []);
    await close();
  });

  test('sleep texts promise no schedule: nothing about tomorrow, the morning or a schedule', async () => {
    const { page, close } = await openPage(browser);
    for (const age of TIERS) {
      await page.goto(overlayUrl({ reason: 'sleep', age, lang: 'en' }));
      const english = `${await text(page, 'headline')} ${await text(page, 'description')}`;
      assert.doesNotMatch(english, /tomorrow|morning|tonight|schedule|set for this device/i, `en/${age}`);
      await page.goto(overlayUrl({ reason: 'sleep', age, lang: 'de' }));
      const german = `${await text(page, 'headline')} ${await text(page, 'description')}`;
      assert.doesNotMatch(german, /morgen|heute abend|zeitplan|hat begonnen/i, `de/${age}`);
    }
    await close();
  });

  test('the teen send button is on a 1440×900 screen without scrolling, for every reason and language', async () => {
    const { page, close } = await openPage(browser, { viewport: { width: 1440, height: 900 } });
    const note = 'Bed by ten, please. I love you, and we can talk about it at breakfast.';
    for (const lang of ['en', 'de']) {
      for (const query of [
        ...REASONS.filter((r) => r !== 'signup').map((reason) => ({ reason })),
        { reason: 'locked', context: 'paused' },
      ]) {
        await page.goto(overlayUrl({ ...query, age: 'teen', lang, device: 'Study laptop', note }));
        await settle(page);
        const box = await page.locator(hook('send')).boundingBox();
        assert.ok(box, 'the send button is shown');
        assert.equal(await page.evaluate(() => window.scrollY), 0);
        const where = `${lang} ${JSON.stringify(query)}: ${JSON.stringify(box)}`;
        assert.ok(box.y >= 0 && box.y + box.height <= 900, where);
        assert.ok(box.x >= 0 && box.x + box.width <= 1440, where);
      }
    }
    await close();
  });

  test('the page loads nothing from the network and keeps a strict content security policy', async () => {
    const { page, close } = await openPage(browser);
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(overlayUrl({ reason: 'filtered', age: 'under8', url: 'https://example.com/' }));
    await page.waitForTimeout(300);
    assert.deepEqual(
      requests.filter((url) => !url.startsWith('file:')),
      [],
    );
    const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    assert.match(csp ?? '', /default-src 'none'/);
    assert.match(csp ?? '', /script-src 'sha256-/);
    assert.doesNotMatch(csp ?? '', /unsafe-inline/);
    await close();
  });
});
