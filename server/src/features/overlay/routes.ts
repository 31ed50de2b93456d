import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpError } from '../../platform/errors.js';
import type { HearthApp } from '../../types.js';

/** The built Hearth Space page, beside the server in the repository. */
export function defaultOverlayDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../overlay/dist');
}

export function overlayRoutes(app: HearthApp, overlayDir: string): void {
  app.get(
    '/overlay/blockedv2.html',
    {
      config: { access: 'public' },
      schema: {
        tags: ['overlay'],
        summary: 'Hearth Space, the full-screen page a child sees at a limit (self-contained HTML)',
      },
    },
    (_request, reply) => {
      if (!existsSync(path.join(overlayDir, 'blockedv2.html'))) {
        throw new HttpError(503, 'unavailable', 'Hearth Space has not been built yet; run `npm run build`.');
      }
      // The page is one self-contained file: no scripts or styles from elsewhere, no framing by other sites.
      return reply
        .header('cache-control', 'no-cache')
        .header('x-content-type-options', 'nosniff')
        .sendFile('blockedv2.html', overlayDir, { cacheControl: false });
    },
  );
}
