import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../platform/errors.js';
import type { HearthApp } from '../../types.js';

/** The built admin UI, found beside the server in the repository unless HEARTH_WEB_DIR says otherwise. */
export function defaultWebDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../web/dist');
}

const NOT_SPA = /^\/(api|ws|overlay|healthz)(\/|$)/;

export async function webRoutes(
  app: HearthApp,
  webDir: string,
): Promise<(req: FastifyRequest, reply: FastifyReply) => boolean> {
  const hasIndex = existsSync(path.join(webDir, 'index.html'));
  // serve:false registers no routes of its own: every route stays declared here.
  await app.register(fastifyStatic, { root: webDir, serve: false });

  app.get('/assets/*', { config: { access: 'public' }, schema: { hide: true } }, (request, reply) => {
    const file = (request.params as { '*': string })['*'];
    // Built asset names carry a content hash, so they never change.
    return reply
      .header('cache-control', 'public, max-age=31536000, immutable')
      .sendFile(path.join('assets', file), { cacheControl: false });
  });
  app.get('/', { config: { access: 'public' }, schema: { hide: true } }, (_request, reply) => {
    if (!hasIndex) {
      throw new HttpError(
        503,
        'unavailable',
        'The admin UI has not been built yet; run `npm run build` (npm start does it for you).',
      );
    }
    return reply.header('cache-control', 'no-cache').sendFile('index.html', { cacheControl: false });
  });
  app.get('/favicon.svg', { config: { access: 'public' }, schema: { hide: true } }, (_request, reply) =>
    reply.header('cache-control', 'public, max-age=86400').sendFile('favicon.svg', { cacheControl: false }),
  );

  /** Browser navigations to UI paths get the single-page app; everything else falls through. */
  return (request, reply) => {
    if (!hasIndex || (request.method !== 'GET' && request.method !== 'HEAD')) return false;
    const pathname = request.url.split('?')[0] ?? '/';
    if (NOT_SPA.test(pathname) || !(request.headers.accept ?? '').includes('text/html')) return false;
    reply.header('cache-control', 'no-cache').sendFile('index.html', { cacheControl: false });
    return true;
  };
}
