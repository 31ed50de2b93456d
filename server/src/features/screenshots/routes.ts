import type { Readable } from 'node:stream';
import {
  CaptureScreenshotAnswer,
  CaptureScreenshotBody,
  Items,
  MAX_SCREENSHOT_BYTES,
  SCREENSHOT_REQUEST_HEADER,
  SCREENSHOT_TYPES,
  SCREENSHOT_USERNAME_HEADER,
  ScreenshotView,
  SystemIdParams,
} from '@hearth/protocol';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { invalidRequest } from '../../platform/errors.js';
import { errorBodies, IdParams, routeGroup } from '../../platform/route-kit.js';
import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';
import { screenshotTooLarge } from './service.js';

const tags = ['screenshots'];
const errors = errorBodies(400, 401, 403, 404, 409);

/** Reads an image body up to the limit; one byte more is 413 (the rest is not read). */
async function readImage(payload: Readable, declaredLength: string | undefined): Promise<Buffer> {
  if (declaredLength !== undefined && Number(declaredLength) > MAX_SCREENSHOT_BYTES)
    throw screenshotTooLarge(MAX_SCREENSHOT_BYTES);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of payload) {
    size += (chunk as Buffer).length;
    if (size > MAX_SCREENSHOT_BYTES) {
      payload.destroy();
      throw screenshotTooLarge(MAX_SCREENSHOT_BYTES);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** DESIGN §12: capture, the agent's upload, the gallery, the image and its deletion. */
export async function screenshotRoutes(app: HearthApp, { screenshots }: Services): Promise<void> {
  const parent = routeGroup(app, { access: 'session', tags, errors });
  parent.post(
    '/api/devices/:system_id/screenshots/capture',
    {
      summary: "Ask the device for a screenshot of the account's screen now (a sensitive device route)",
      params: SystemIdParams,
      body: CaptureScreenshotBody,
      reply: CaptureScreenshotAnswer,
    },
    (actor, request) => screenshots.capture(actor, request.params.system_id, request.body.linux_username),
  );
  parent.get(
    '/api/devices/:system_id/screenshots',
    {
      summary: "The device's screenshots, newest first",
      params: SystemIdParams,
      reply: Items(ScreenshotView),
    },
    async (actor, request) => ({ items: await screenshots.list(actor, request.params.system_id) }),
  );
  parent.delete(
    '/api/screenshots/:id',
    {
      summary: 'Delete a screenshot and its file (a sensitive device route)',
      params: IdParams,
      reply: Type.Object({ id: Type.String(), deleted: Type.Boolean() }),
    },
    (actor, request) => screenshots.remove(actor, request.params.id),
  );
  app.get(
    '/api/screenshots/:id/image',
    {
      config: { access: 'session' },
      schema: { tags, summary: 'The screenshot image (never cached by shared caches)', params: IdParams },
    },
    async (request, reply) => {
      const image = await screenshots.image(
        request.auth as NonNullable<typeof request.auth>,
        request.params.id,
      );
      return reply
        .type(image.contentType)
        .header('cache-control', 'private, no-store')
        .header('x-content-type-options', 'nosniff')
        .header('content-disposition', 'inline')
        .send(image.bytes);
    },
  );

  // The upload takes the raw image, in a scope of its own so no other route parses image bodies; JSON
  // and forms still parse (and are refused by the handler) so their shared checks answer first.
  await app.register(async (scope) => {
    scope.addContentTypeParser([...SCREENSHOT_TYPES], (request: FastifyRequest, payload: Readable) =>
      readImage(payload, header(request.headers['content-length'])),
    );
    scope.addContentTypeParser('*', async () => {
      throw invalidRequest('Send the screenshot as image/png or image/jpeg.');
    });
    const agent = routeGroup(scope as unknown as HearthApp, {
      access: 'bearer',
      tags,
      errors: errorBodies(400, 401, 403, 404, 413, 429),
    });
    agent.post(
      '/api/agent/screenshots',
      {
        summary: 'The agent uploads a screenshot (body: the PNG or JPEG image)',
        reply: ScreenshotView,
        status: 201,
      },
      (device, request) => {
        const bytes = request.body as unknown;
        if (!Buffer.isBuffer(bytes)) throw invalidRequest('The body must be the screenshot image.');
        return screenshots.upload(device, {
          contentType: header(request.headers['content-type']) ?? '',
          bytes,
          linuxUsername: header(request.headers[SCREENSHOT_USERNAME_HEADER]),
          requestId: header(request.headers[SCREENSHOT_REQUEST_HEADER]),
        });
      },
    );
  });
}
