// The browser extension for managed browsers (issue 17): the update manifest and the signed CRX that a
// force-install policy names (the Linux agent writes that policy; docs/extension.md). Both are public:
// the browser fetches them without a session, and they hold nothing of any household.

import type { KeyObject } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { HttpError } from '../../platform/errors.js';
import type { HearthApp } from '../../types.js';
import { ensureSigningKey, type PackedExtension, packExtension } from './crx.js';

/** The built extension, beside the server in the repository. */
export function defaultExtensionDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../extension/dist');
}

const xmlEscape = (s: string) =>
  s.replace(
    /[<>&'"]/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] ?? c,
  );

export function extensionRoutes(app: HearthApp, config: Config, distDir: string): void {
  let key: KeyObject | null = null;
  let packed: PackedExtension | null = null;

  /** The CRX of the current build, packed again when the build is newer than the last packing. */
  const current = (): PackedExtension => {
    const manifest = path.join(distDir, 'manifest.json');
    if (!existsSync(manifest))
      throw new HttpError(
        503,
        'unavailable',
        'The browser extension has not been built yet; run `npm run build`.',
      );
    if (!packed || statSync(manifest).mtimeMs !== packed.builtAt) {
      key ??= ensureSigningKey(config.dataDir);
      packed = packExtension(distDir, key);
      if (!packed) throw new HttpError(503, 'unavailable', 'The browser extension has not been built yet.');
    }
    return packed;
  };
  const serverUrl = (request: FastifyRequest) => config.publicUrl ?? `${request.protocol}://${request.host}`;

  app.get(
    '/extension/update.xml',
    {
      config: { access: 'public' },
      schema: {
        tags: ['extension'],
        summary: "The browser extension's update manifest, for a force-install policy (XML)",
      },
    },
    (request, reply) => {
      const { id, version } = current();
      const codebase = `${serverUrl(request)}/extension/hearth-extension-${version}.crx`;
      const xml =
        "<?xml version='1.0' encoding='UTF-8'?>\n" +
        "<gupdate xmlns='http://www.google.com/update2/response' protocol='2.0'>\n" +
        `  <app appid='${id}'>\n` +
        `    <updatecheck codebase='${xmlEscape(codebase)}' version='${xmlEscape(version)}' />\n` +
        '  </app>\n</gupdate>\n';
      return reply.type('application/xml; charset=utf-8').header('cache-control', 'no-cache').send(xml);
    },
  );

  app.get<{ Params: { file: string } }>(
    '/extension/:file',
    {
      config: { access: 'public' },
      schema: {
        tags: ['extension'],
        summary: 'The browser extension, packed and signed with this deployment’s key (CRX3)',
        params: {
          type: 'object',
          properties: { file: { type: 'string', maxLength: 80 } },
          required: ['file'],
        },
      },
    },
    (request, reply) => {
      const { crx, version } = current();
      if (request.params.file !== `hearth-extension-${version}.crx`)
        throw new HttpError(404, 'not_found', `This server has hearth-extension-${version}.crx.`);
      return reply
        .type('application/x-chrome-extension')
        .header('cache-control', 'no-cache')
        .header('x-content-type-options', 'nosniff')
        .send(crx);
    },
  );
}
