import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
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
