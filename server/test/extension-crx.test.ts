// The extension for managed browsers: the update manifest names this deployment's extension ID and a
// CRX3 whose header proves that ID with a valid RSA signature over the zip — what Chromium checks before
// it force-installs anything. The package is read back with the proof checked here, by hand.
import assert from 'node:assert/strict';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { unzipSync } from 'fflate';
import { extensionIdOf } from '../src/features/extension/crx.js';
import { startTestServer, type TestServer } from './helpers.js';

/** Protobuf fields (wire type 2 only, as CRX3 uses) of one message. */
function fields(buf: Buffer): { number: number; bytes: Buffer }[] {
  const out: { number: number; bytes: Buffer }[] = [];
  let at = 0;
  const varint = () => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const b = buf[at++] as number;
      value += (b & 0x7f) * scale;
      scale *= 128;
      if (b < 0x80) return value;
    }
  };
  while (at < buf.length) {
    const tag = varint();
    assert.equal(tag & 7, 2, 'only length-delimited fields');
    const length = varint();
    out.push({ number: Math.floor(tag / 8), bytes: buf.subarray(at, at + length) });
    at += length;
  }
  return out;
}

function readCrx(crx: Buffer) {
  assert.equal(crx.subarray(0, 4).toString('latin1'), 'Cr24');
  assert.equal(crx.readUInt32LE(4), 3, 'CRX version 3');
  const headerLength = crx.readUInt32LE(8);
  const header = crx.subarray(12, 12 + headerLength);
  const zip = crx.subarray(12 + headerLength);
  const top = fields(header);
  const proofs = top.filter((f) => f.number === 2).map((f) => fields(f.bytes));
  const signedData = top.find((f) => f.number === 10000)?.bytes;
  assert.ok(signedData, 'signed header data');
  assert.equal(proofs.length, 1, 'one RSA proof');
  const publicKey = proofs[0]?.find((f) => f.number === 1)?.bytes as Buffer;
  const signature = proofs[0]?.find((f) => f.number === 2)?.bytes as Buffer;
  const crxId = fields(signedData).find((f) => f.number === 1)?.bytes as Buffer;
  return { publicKey, signature, signedData, crxId, zip };
}

describe('the extension for managed browsers: update manifest and signed CRX', () => {
  let server: TestServer;
  let dist: string;

  before(async () => {
    dist = mkdtempSync(path.join(tmpdir(), 'hearth-ext-dist-'));
    mkdirSync(path.join(dist, 'popup'));
    writeFileSync(
      path.join(dist, 'manifest.json'),
      JSON.stringify({ manifest_version: 3, name: 'Hearth', version: '0.57.0', key: 'AAAA' }),
    );
    writeFileSync(path.join(dist, 'worker.js'), 'self.addEventListener("install", () => {});\n');
    writeFileSync(path.join(dist, 'popup', 'popup.html'), '<!doctype html><title>Hearth</title>\n');
    writeFileSync(path.join(dist, 'hearth-extension-0.57.0.zip'), 'not packed again');
    // Kept on close: the restart below comes back on the same data directory (the last close removes it).
    server = await startTestServer(undefined, { HEARTH_EXTENSION_DIR: dist }, { keep: true });
  });
  after(async () => {
    await server?.close();
    rmSync(dist, { recursive: true, force: true });
  });

  test('the update manifest names the deployment ID and the CRX; the CRX proves that ID', async () => {
    const res = await fetch(`${server.url}/extension/update.xml`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/xml/);
    const xml = await res.text();
    const id = /appid='([a-p]{32})'/.exec(xml)?.[1];
    const codebase = /codebase='([^']+)'/.exec(xml)?.[1];
    assert.ok(id, xml);
    assert.equal(codebase, `${server.url}/extension/hearth-extension-0.57.0.crx`);
    assert.match(xml, /version='0\.57\.0'/);

    const crxRes = await fetch(codebase);
    assert.equal(crxRes.status, 200);
    assert.equal(crxRes.headers.get('content-type'), 'application/x-chrome-extension');
    const crx = Buffer.from(await crxRes.arrayBuffer());
    const { publicKey, signature, signedData, crxId, zip } = readCrx(crx);

    assert.equal(extensionIdOf(publicKey), id, 'the ID is the signer key’s');
    assert.deepEqual(crxId, createHash('sha256').update(publicKey).digest().subarray(0, 16));
    const length = Buffer.alloc(4);
    length.writeUInt32LE(signedData.length, 0);
    const signed = Buffer.concat([Buffer.from('CRX3 SignedData\0', 'latin1'), length, signedData, zip]);
    const key = createPublicKey({ key: publicKey, format: 'der', type: 'spki' });
    assert.ok(verify('sha256', signed, key, signature), 'the signature holds');
    const tampered = Buffer.from(zip);
    tampered[tampered.length - 30] ^= 1;
    assert.ok(
      !verify(
        'sha256',
        Buffer.concat([Buffer.from('CRX3 SignedData\0', 'latin1'), length, signedData, tampered]),
        key,
        signature,
      ),
      'and fails for other bytes',
    );

    const files = unzipSync(zip);
    assert.deepEqual(Object.keys(files).sort(), ['manifest.json', 'popup/popup.html', 'worker.js']);
    const manifest = JSON.parse(Buffer.from(files['manifest.json'] as Uint8Array).toString());
    assert.equal(manifest.key, undefined, 'the development key is not packed');
    assert.equal(manifest.version, '0.57.0');

    const keyFile = path.join(server.dataDir, 'extension-signing-key.pem');
    assert.equal(statSync(keyFile).mode & 0o777, 0o600, 'the signing key is private to the server');
  });

  test('the ID stays with the deployment across restarts; a rebuilt extension is packed again', async () => {
    const first = await (await fetch(`${server.url}/extension/update.xml`)).text();
    const crx1 = Buffer.from(
      await (await fetch(`${server.url}/extension/hearth-extension-0.57.0.crx`)).arrayBuffer(),
    );
    writeFileSync(path.join(dist, 'worker.js'), 'self.addEventListener("install", () => { /* v2 */ });\n');
    const later = new Date(Date.now() + 5_000);
    utimesSync(path.join(dist, 'manifest.json'), later, later);
    const crx2 = Buffer.from(
      await (await fetch(`${server.url}/extension/hearth-extension-0.57.0.crx`)).arrayBuffer(),
    );
    assert.notDeepEqual(crx2, crx1, 'the new build is served');
    const worker = unzipSync(readCrx(crx2).zip)['worker.js'] as Uint8Array;
    assert.match(Buffer.from(worker).toString(), /v2/);

    const env = { ...server.storageEnv, HEARTH_EXTENSION_DIR: dist };
    await server.close();
    server = await startTestServer(undefined, env);
    const again = await (await fetch(`${server.url}/extension/update.xml`)).text();
    assert.equal(/appid='([a-p]{32})'/.exec(again)?.[1], /appid='([a-p]{32})'/.exec(first)?.[1]);
    assert.ok(
      readFileSync(path.join(server.dataDir, 'extension-signing-key.pem'), 'utf8').includes('PRIVATE KEY'),
    );
  });

  test('another file name is 404; an unbuilt extension is 503 in the error envelope', async () => {
    for (const name of ['hearth-extension-0.56.0.crx', 'manifest.json', '..%2Fsecret.key', 'x'.repeat(200)]) {
      const res = await fetch(`${server.url}/extension/${name}`);
      assert.ok(res.status === 404 || res.status === 400, `${name}: ${res.status}`);
      assert.ok((await res.json()).error.code, name);
    }
    const bare = await startTestServer(undefined, { HEARTH_EXTENSION_DIR: path.join(dist, 'missing') });
    try {
      const res = await fetch(`${bare.url}/extension/update.xml`);
      assert.equal(res.status, 503);
      assert.equal((await res.json()).error.code, 'unavailable');
    } finally {
      await bare.close();
    }
  });
});
