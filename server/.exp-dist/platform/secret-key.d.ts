/** HEARTH_SECRET_KEY, or a key generated once into the data directory and kept there. */
export declare function ensureSecretKey(dataDir: string, configured: string | null): string;
