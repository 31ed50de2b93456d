import fastifyWebsocket from '@fastify/websocket';
import { WS_MAX_FRAME_BYTES, WS_PATH } from '@hearth/protocol';
import type { Services } from '../services.js';
import type { HearthApp } from '../types.js';

export async function agentChannelRoutes(app: HearthApp, { hub }: Services): Promise<void> {
  await app.register(fastifyWebsocket, {
    options: { maxPayload: WS_MAX_FRAME_BYTES, perMessageDeflate: false, clientTracking: false },
  });
  app.get(WS_PATH, { websocket: true, config: { access: 'public' }, schema: { hide: true } }, (socket) =>
    hub.accept(socket),
  );
}
