import {
  createCipheriv,
  createDecipheriv,
  createHash,
  hkdfSync,
  randomBytes,
  randomUUID,
  timingSafeEqual,
} from 'node:crypto';
import argon2 from 'argon2';

export const newId = (): string => randomUUID();

/** A random secret as URL-safe text (used for session cookies and CSRF tokens). */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');

/** A random secret as hex (device tokens: 32 bytes). */
export const randomHex = (bytes = 32): string => randomBytes(bytes).toString('hex');

export const sha256Hex = (value: string | Buffer): string => createHash('sha256').update(value).digest('hex');

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

// Interactive sign-in cost: argon2id with the library's recommended memory and time cost.
const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string): Promise<string> => argon2.hash(password, ARGON2_OPTIONS);

let dummyHash: Promise<string> | undefined;

/** Verifies a password; with no stored hash it still spends the same work so timing reveals nothing. */
export async function verifyPassword(hash: string | undefined, password: string): Promise<boolean> {
  if (!hash) {
    dummyHash ??= hashPassword('hearth-timing-equaliser');
    await argon2.verify(await dummyHash, password).catch(() => false);
    return false;
  }
  return argon2.verify(hash, password).catch(() => false);
}

/**
 * Encrypts what must be kept but never read back in clear (vendor tokens): AES-256-GCM with a key
 * derived from HEARTH_SECRET_KEY for one purpose. Text form `v1.<iv>.<tag>.<ciphertext>` (base64url);
 * a text made with another key or altered fails to open.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(secretKey: string, purpose: string) {
    this.key = Buffer.from(hkdfSync('sha256', secretKey, 'hearth', purpose, 32));
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url'));
    return `v1.${parts.join('.')}`;
  }

  /** The plain text, or null when the text is not one this key sealed. */
  open(sealed: string): string | null {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || body === undefined) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      return null;
    }
  }
}
