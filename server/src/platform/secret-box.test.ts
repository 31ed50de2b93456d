import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SecretBox } from './crypto.js';

test('a sealed secret opens with the same key and purpose, never in clear, never with another key', () => {
  const box = new SecretBox('k'.repeat(40), 'console-credentials');
  const secret = JSON.stringify({ refresh_token: 'M.R3_BAY.refresh-token-value' });
  const sealed = box.seal(secret);
  assert.ok(sealed.startsWith('v1.'));
  assert.ok(!sealed.includes('refresh-token-value'));
  assert.notEqual(box.seal(secret), sealed, 'a fresh nonce each time');
  assert.equal(box.open(sealed), secret);
  assert.equal(new SecretBox('j'.repeat(40), 'console-credentials').open(sealed), null);
  assert.equal(new SecretBox('k'.repeat(40), 'other-purpose').open(sealed), null);
});

test('an altered or malformed text does not open', () => {
  const box = new SecretBox('k'.repeat(40), 'p');
  const sealed = box.seal('hello');
  const parts = sealed.split('.');
  const body = Buffer.from(parts[3] ?? '', 'base64url');
  body[0] = (body[0] ?? 0) ^ 1;
  assert.equal(box.open([parts[0], parts[1], parts[2], body.toString('base64url')].join('.')), null);
  for (const bad of ['', 'v1.', 'v2.a.b.c', 'v1.a.b', 'plain text']) assert.equal(box.open(bad), null, bad);
});
