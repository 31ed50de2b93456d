import assert from 'node:assert/strict';
import { createHash, createPublicKey } from 'node:crypto';
import { test } from 'node:test';
import { EXTENSION_ID, EXTENSION_PUBLIC_KEY } from '@hearth/protocol';

/** Chromium's rule: SHA-256 of the DER public key, first 16 bytes, each hex digit 0-f written as a-p. */
function extensionIdOf(base64Der: string): string {
  const digest = createHash('sha256').update(Buffer.from(base64Der, 'base64')).digest('hex').slice(0, 32);
  return [...digest].map((h) => String.fromCharCode(97 + Number.parseInt(h, 16))).join('');
}

test('the extension ID is the one Chromium derives from the committed public key', () => {
  assert.equal(extensionIdOf(EXTENSION_PUBLIC_KEY), EXTENSION_ID);
  assert.match(EXTENSION_ID, /^[a-p]{32}$/);
});

test('the public key is an RSA-2048 SubjectPublicKeyInfo, as a manifest `key` must be', () => {
  const key = createPublicKey({
    key: Buffer.from(EXTENSION_PUBLIC_KEY, 'base64'),
    format: 'der',
    type: 'spki',
  });
  assert.equal(key.asymmetricKeyType, 'rsa');
  assert.equal(key.asymmetricKeyDetails?.modulusLength, 2048);
});
