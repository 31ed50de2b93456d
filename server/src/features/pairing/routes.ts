import { createReadStream } from 'node:fs';
import { ErrorBody, PairingConfig, ProvisioningConfig } from '@hearth/protocol';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requireSession } from '../../platform/access.js';
import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';
import type { ArtifactKind } from './service.js';

const tags = ['pairing'];
const errors = { 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

const origin = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

export function pairingRoutes(app: HearthApp, { pairing }: Services): void {
  app.get(
    '/api/pairing/config',
    {
      config: { access: 'session:admin' },
      schema: { tags, summary: 'In-app pairing QR data', response: { 200: PairingConfig, ...errors } },
    },
    async (request) => pairing.pairingConfig(requireSession(request).householdId, origin(request)),
  );

  app.get(
    '/api/pairing/qr.png',
    { config: { access: 'session:admin' }, schema: { tags, summary: 'In-app pairing QR image (image/png)' } },
    async (request, reply) => {
      const config = await pairing.pairingConfig(requireSession(request).householdId, origin(request));
      return reply
        .type('image/png')
        .header('cache-control', 'no-store')
        .send(await pairing.qrPng(config.payload));
    },
  );

  app.get(
    '/api/pairing/provisioning/config',
    {
      config: { access: 'session:admin' },
      schema: {
        tags,
        summary: 'Android device-owner provisioning QR data',
        response: { 200: ProvisioningConfig, ...errors },
      },
    },
    async (request) => pairing.provisioning(requireSession(request).householdId, origin(request)),
  );

  app.get(
    '/api/pairing/provisioning/qr.png',
    {
      config: { access: 'session:admin' },
      schema: { tags, summary: 'Android device-owner provisioning QR image (image/png)' },
    },
    async (request, reply) => {
      const config = await pairing.provisioning(requireSession(request).householdId, origin(request));
      return reply
        .type('image/png')
        .header('cache-control', 'no-store')
        .send(await pairing.qrPng(config.payload));
    },
  );

  const download = (kind: ArtifactKind) => async (_request: FastifyRequest, reply: FastifyReply) => {
    const file = await pairing.artifact(kind);
    return reply
      .type(file.type)
      .header('content-length', String(file.size))
      .header('content-disposition', `attachment; filename="${file.file}"`)
      .send(createReadStream(file.path));
  };

  app.get(
    '/api/pairing/provisioning/apk',
    {
      config: { access: 'session' },
      schema: { tags, summary: 'Download the uploaded Android agent', response: errors },
    },
    download('apk'),
  );
  app.get(
    '/api/pairing/provisioning/apk/:token',
    {
      // The provisioning QR's download location: a factory-fresh phone has no session; the token in
      // the address (only in the QR) is what lets it in.
      config: { access: 'public', ipLimit: { max: 30, windowMs: 60_000 } },
      schema: {
        tags,
        summary: 'The Android agent for a phone provisioned from the QR (token from the QR)',
        params: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }),
      },
    },
    async (request, reply) => {
      const file = await pairing.provisioningApk((request.params as { token: string }).token);
      return reply
        .type(file.type)
        .header('content-length', String(file.size))
        .header('cache-control', 'no-store')
        .header('content-disposition', `attachment; filename="${file.file}"`)
        .send(createReadStream(file.path));
    },
  );
  app.get(
    '/api/pairing/windows/msi',
    {
      config: { access: 'session' },
      schema: { tags, summary: 'Download the uploaded Windows agent installer', response: errors },
    },
    download('msi'),
  );
}
