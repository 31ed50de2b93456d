import type { Host } from './host.ts';

/** Opened straight from the server (a parent previewing the page): there is nobody to deliver to. */
export function previewHost(): Host {
  return {
    kind: 'preview',
    async sendAccessRequest() {
      return { ok: false, error: 'preview' };
    },
  };
}
