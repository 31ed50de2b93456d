export declare const newId: () => string;
/** A random secret as URL-safe text (used for session cookies and CSRF tokens). */
export declare const randomToken: (bytes?: number) => string;
export declare const sha256Hex: (value: string | Buffer) => string;
export declare function safeEqual(a: string, b: string): boolean;
export declare const hashPassword: (password: string) => Promise<string>;
/** Verifies a password; with no stored hash it still spends the same work so timing reveals nothing. */
export declare function verifyPassword(hash: string | undefined, password: string): Promise<boolean>;
