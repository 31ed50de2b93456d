import assert from 'node:assert/strict';
import { test } from 'node:test';
import { de, en, pickText } from '../src/popup/locales.ts';

test('the popup speaks the browser’s first language it knows, else English', () => {
  assert.equal(pickText(['de-AT', 'en-US']).lang, 'de');
  assert.equal(pickText(['fr-FR', 'en-GB', 'de']).lang, 'en');
  assert.equal(pickText(['fr-FR']).lang, 'en');
  assert.equal(pickText([]).lang, 'en');
});

test('German says everything English does', () => {
  const shape = (o: unknown): unknown =>
    typeof o === 'object' && o !== null
      ? Object.fromEntries(Object.entries(o).map(([k, v]) => [k, shape(v)]))
      : typeof o;
  assert.deepEqual(shape(de), shape(en));
  assert.equal(en.policyLine(3, 1, '1'), 'Version 3 · 1 site');
  assert.equal(de.policyLine(3, 1200, '1.200'), 'Version 3 · 1.200 Seiten');
});
