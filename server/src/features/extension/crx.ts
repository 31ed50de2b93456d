// Packing the built extension as a CRX3 signed with this deployment's key, so that a managed browser
// can force-install it from the server (Chromium installs a force-listed extension only from a signed
// CRX named by an update manifest). The format: "Cr24", version 3, the length of a CrxFileHeader
// protobuf, the header, then the zip. The header holds the RSA public key, its signature over the signed
// data and the zip, and the signed data itself (the extension ID, 16 bytes).
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
} from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { zipSync } from 'fflate';

/** The key Chromium derives the ID from: the DER SubjectPublicKeyInfo. */
export function publicKeyDer(key: KeyObject): Buffer {
  return createPublicKey(key).export({ type: 'spki', format: 'der' });
}

/** Chromium's extension ID: the first 16 bytes of SHA-256 of the public key, each hex digit 0-f read as a-p. */
export function extensionIdOf(spki: Buffer): string {
  const hex = createHash('sha256').update(spki).digest('hex').slice(0, 32);
  return Array.from(hex, (c) => String.fromCharCode(97 + Number.parseInt(c, 16))).join('');
}

/**
 * The deployment's signing key, generated once into the data directory (0600) and kept: the extension
 * ID is derived from it, so losing it means every browser installs "another" extension. Instances that
 * share one database must share this file too (docs/extension.md).
 */
export function ensureSigningKey(dataDir: string): KeyObject {
  const file = path.join(dataDir, 'extension-signing-key.pem');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    try {
      writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      // Another process made it first: use theirs.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return createPrivateKey(readFileSync(file));
}

function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Buffer.from(out);
}

/** One length-delimited protobuf field (wire type 2). */
function field(number: number, bytes: Buffer): Buffer {
  return Buffer.concat([varint(number * 8 + 2), varint(bytes.length), bytes]);
}

const SIGNATURE_CONTEXT = Buffer.from('CRX3 SignedData\0', 'latin1');

/** The CRX3 file around `zip`, signed with `key`. */
export function crx3(zip: Uint8Array, key: KeyObject): Buffer {
  const spki = publicKeyDer(key);
  const crxId = createHash('sha256').update(spki).digest().subarray(0, 16);
  const signedData = field(1, crxId);
  const signedLength = Buffer.alloc(4);
  signedLength.writeUInt32LE(signedData.length, 0);
  const signature = sign('sha256', Buffer.concat([SIGNATURE_CONTEXT, signedLength, signedData, zip]), key);
  const header = Buffer.concat([
    field(2, Buffer.concat([field(1, spki), field(2, signature)])),
    field(10000, signedData),
  ]);
  const prefix = Buffer.alloc(12);
  prefix.write('Cr24', 0, 'latin1');
  prefix.writeUInt32LE(3, 4);
  prefix.writeUInt32LE(header.length, 8);
  return Buffer.concat([prefix, header, zip]);
}

function filesOf(dir: string, base = dir, out: Record<string, Uint8Array> = {}): Record<string, Uint8Array> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) filesOf(full, base, out);
    else if (entry.isFile() && !entry.name.endsWith('.zip') && !entry.name.endsWith('.crx'))
      out[path.relative(base, full).split(path.sep).join('/')] = readFileSync(full);
  }
  return out;
}

export interface PackedExtension {
  id: string;
  version: string;
  crx: Buffer;
  /** mtime of the manifest it was packed from, to pack again after a rebuild. */
  builtAt: number;
}

/**
 * The built extension (`extension/dist`) as this deployment's CRX. The manifest's `key` (the one fixing
 * the ID of an unpacked development load) is left out: a packed extension's ID comes from its signer.
 */
export function packExtension(distDir: string, key: KeyObject): PackedExtension | null {
  const manifestFile = path.join(distDir, 'manifest.json');
  if (!existsSync(manifestFile)) return null;
  const files = filesOf(distDir);
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, unknown>;
  delete manifest.key;
  files['manifest.json'] = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
  // A fixed time for every entry: the same build packs to the same bytes.
  const zip = zipSync(
    Object.fromEntries(Object.entries(files).map(([name, data]) => [name, [data, { mtime: 315532800000 }]])),
    { level: 9 },
  );
  return {
    id: extensionIdOf(publicKeyDer(key)),
    version: String(manifest.version),
    crx: crx3(zip, key),
    builtAt: statSync(manifestFile).mtimeMs,
  };
}
