import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { HEARTH_VERSION, LIMITS } from '@hearth/protocol';
import Fastify, { LogController } from 'fastify';
import { agentChannelRoutes } from './agent-channel/routes.js';
import type { Config } from './config.js';
import { alertRoutes } from './features/alerts/routes.js';
import { approvalRoutes } from './features/approvals/routes.js';
import { authRoutes } from './features/auth/routes.js';
import { blocklistRoutes } from './features/blocklists/routes.js';
import { consoleRoutes } from './features/consoles/routes.js';
import { dashboardRoutes } from './features/dashboard/routes.js';
import { devicePolicyRoutes } from './features/device-policies/routes.js';
import { deviceRoutes } from './features/devices/routes.js';
import { eventRoutes } from './features/events/routes.js';
import { defaultExtensionDir, extensionRoutes } from './features/extension/routes.js';
import { healthRoutes } from './features/health/routes.js';
import { householdRoutes } from './features/household/routes.js';
import { inventoryRoutes } from './features/inventory/routes.js';
import { defaultOverlayDir, overlayRoutes } from './features/overlay/routes.js';
import { pairingRoutes } from './features/pairing/routes.js';
import { screenshotRoutes } from './features/screenshots/routes.js';
import { timeRoutes } from './features/time/routes.js';
import { usageRoutes } from './features/usage/routes.js';
import { userRoutes } from './features/users/routes.js';
import { defaultWebDir, webRoutes } from './features/web/routes.js';
import { installAccessControl } from './platform/access.js';
import {
  clientErrorHandler,
  type Fallback,
  frameworkErrors,
  installErrorHandling,
  installSecurityHeaders,
  installValidators,
} from './platform/http.js';
import type { Services } from './services.js';
import type { HearthApp } from './types.js';

export interface BuildAppOptions {
  config: Config;
  services: Services;
}

/**
 * HEARTH_TRUST_PROXY=n: the socket's peer and the n-1 addresses before it in X-Forwarded-For are
 * proxies; the address before those is the client. Right only when Hearth cannot be reached except
 * through those proxies (else list the proxies' addresses instead).
 */
const trustHops = (hops: number) => (_address: string, hop: number) => hop < hops;

/** Builds the Fastify app from its parts; no side effects until `listen`. */
export async function buildApp({ config, services }: BuildAppOptions): Promise<HearthApp> {
  const app = Fastify({
    loggerInstance: services.log,
    bodyLimit: LIMITS.jsonBodyBytes,
    // A hop count is given as a function: Fastify takes a bare number as "trust no hop".
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    // Per-request lines only when debugging: a busy household server should not log every poll.
    logController: new LogController({
      disableRequestLogging: config.logLevel !== 'debug' && config.logLevel !== 'trace',
    }),
    routerOptions: { maxParamLength: 200 },
    frameworkErrors,
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();

  installValidators(app);
  const fallbacks: Fallback[] = [];
  installErrorHandling(app, fallbacks);
  installSecurityHeaders(app);
  // Cookies must be parsed before the access hook reads the session cookie.
  // Cookies are parsed only where a session is needed (the access check does it).
  await app.register(fastifyCookie, { hook: false });
  installAccessControl(app, {
    resolveSession: (cookie) => services.auth.resolveSession(cookie),
    resolveDevice: (token) => services.devices.resolveBearer(token),
    bootstrapToken: config.agentToken,
    limitDevice: (systemId) => services.limitDevice(systemId),
    limitIp: (key, max, windowMs) => services.limitIp(key, max, windowMs),

    publicPrefixes: ['/api/docs'],
  });

  await app.register(fastifyFormbody, { bodyLimit: LIMITS.jsonBodyBytes });
  await app.register(fastifySwagger, {
    openapi: {
      info: {
        title: 'Hearth',
        version: HEARTH_VERSION,
        description: 'Family device management: the parent-facing and agent REST API.',
      },
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'cookie', name: 'hearth_session' },
          csrf: { type: 'apiKey', in: 'header', name: 'X-CSRFToken' },
          device: { type: 'http', scheme: 'bearer' },
        },
      },
    },
    transform: ({ schema, url, route }) => {
      const access = route.config?.access;
      const security =
        access === 'bearer'
          ? [{ device: [] }]
          : access?.startsWith('session')
            ? [{ session: [], csrf: [] }]
            : [];
      return { schema: { ...schema, security } as typeof schema, url };
    },
  });
  await app.register(fastifySwaggerUi, {
    routePrefix: '/api/docs',
    // The docs page's own policy (hashes of its inline scripts), without forcing https on a LAN
    // server, without being framed, and with the inline styles Swagger UI sets at run time.
    staticCSP: true,
    transformStaticCSP: (header) =>
      header
        .replace(/\s*upgrade-insecure-requests;?/, '')
        .replace("frame-ancestors 'self'", "frame-ancestors 'none'")
        .replace(/style-src [^;]*/, "style-src 'self' 'unsafe-inline'"),
  });

  fallbacks.push(await webRoutes(app, config.webDir ?? defaultWebDir()));

  app.get('/api/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
  healthRoutes(app, services);
  authRoutes(app, services);
  householdRoutes(app, services);
  userRoutes(app, services);
  usageRoutes(app, services);
  deviceRoutes(app, services);
  alertRoutes(app, services);
  approvalRoutes(app, services);
  inventoryRoutes(app, services);
  dashboardRoutes(app, services);
  eventRoutes(app, services);
  consoleRoutes(app, services);
  pairingRoutes(app, services);
  timeRoutes(app, services);
  blocklistRoutes(app, services);
  devicePolicyRoutes(app, services);
  await screenshotRoutes(app, services);
  await agentChannelRoutes(app, services);
  overlayRoutes(app, config.overlayDir ?? defaultOverlayDir());
  extensionRoutes(app, config, config.extensionDir ?? defaultExtensionDir());

  return app;
}
