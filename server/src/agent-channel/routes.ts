import fastifyWebsocket from '@fastify/websocket';
import { WS_MAX_FRAME_BYTES, WS_PATH } from '@hearth/protocol';
import { HttpError } from '../platform/errors.js';
import type { Services } from '../services.js';
import type { HearthApp } from '../types.js';

export async function agentChannelRoutes(app: HearthApp, { channel }: Services): Promise<void> {
  await app.register(fastifyWebsocket, {
    options: {
      maxPayload: WS_MAX_FRAME_BYTES,
      perMessageDeflate: false,
      clientTracking: false,
      // One frame per socket per turn of the event loop: a socket's burst cannot hold up the others
      // or the HTTP routes (docs/protocol.md, "Budgets").
      allowSynchronousEvents: false,
    },
  });
  app.route({
    method: 'GET',
    url: WS_PATH,
    config: { access: 'public' },
    schema: { hide: true },
    // A plain HTTP request here gets the envelope rather than an empty 404.
    handler: async () => {
      throw new HttpError(
        400,
        'invalid_request',
        'This is the agent channel: connect with a WebSocket (Upgrade: websocket).',
      );
    },
    wsHandler: (socket, request) => channel.accept(socket, request.ip),
  });
}
