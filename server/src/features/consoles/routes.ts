import {
  CONSOLE_PROVIDERS,
  ConsoleAccountStatusQuery,
  ConsoleAccountStatusView,
  ConsoleAuthenticateBody,
  ConsoleAuthenticateView,
  ConsoleDevicesView,
  ConsoleImportBody,
  ConsoleLoginUrlView,
  ConsoleSyncView,
  ConsoleUnlinkView,
  DeviceView,
} from '@hearth/protocol';
import { optionalBody } from '../../platform/http.js';
import { errorBodies, routeGroup } from '../../platform/route-kit.js';
import type { Services } from '../../services.js';
import type { HearthApp } from '../../types.js';

const NAMES = { xbox: 'Xbox (Microsoft Family Safety)', nintendo: 'Nintendo Switch (parental controls)' };

/**
 * DESIGN §6 and §13, the same routes for each console vendor. Linking, importing, unlinking and
 * forcing a sync are the household's (owner or admin); any parent may read the link's state.
 */
export function consoleRoutes(app: HearthApp, { consoles }: Services): void {
  for (const provider of CONSOLE_PROVIDERS) {
    const name = NAMES[provider];
    const admin = routeGroup(app, {
      access: 'session:admin',
      tags: ['consoles'],
      errors: errorBodies(400, 401, 403, 404, 409, 502),
    });
    admin.get(
      `/api/${provider}/login-url`,
      {
        summary: `Start linking the ${name} account: the sign-in address to open`,
        reply: ConsoleLoginUrlView,
      },
      (actor) => consoles.loginUrl(actor, provider),
    );
    admin.post(
      `/api/${provider}/authenticate`,
      {
        summary: `Finish linking the ${name} account with the address the sign-in ended on`,
        body: ConsoleAuthenticateBody,
        reply: ConsoleAuthenticateView,
      },
      (actor, request) => consoles.authenticate(actor, provider, request.body),
    );
    admin.get(
      `/api/${provider}/devices`,
      { summary: `The consoles and players of the linked ${name} account`, reply: ConsoleDevicesView },
      (actor) => consoles.devicesOf(actor, provider),
    );
    admin.post(
      `/api/${provider}/import-device`,
      {
        summary: 'Add a console as a device, its player mapped to a child',
        body: ConsoleImportBody,
        reply: DeviceView,
        status: 201,
      },
      (actor, request) => consoles.importDevice(actor, provider, request.body),
    );
    admin.post(
      `/api/${provider}/unlink`,
      {
        summary: `Unlink the ${name} account: its credentials are deleted and its consoles leave`,
        reply: ConsoleUnlinkView,
        preValidation: optionalBody,
      },
      (actor) => consoles.unlink(actor, provider),
    );
    admin.post(
      `/api/${provider}/sync`,
      {
        summary: 'Sync the consoles now: limits out, playtime in',
        reply: ConsoleSyncView,
        preValidation: optionalBody,
      },
      (actor) => consoles.syncNow(actor, provider),
    );
    const parent = routeGroup(app, {
      access: 'session',
      tags: ['consoles'],
      errors: errorBodies(400, 401, 502),
    });
    parent.get(
      `/api/${provider}/account-status`,
      {
        summary: 'Whether an account is linked; validate=true also checks the stored credentials',
        querystring: ConsoleAccountStatusQuery,
        reply: ConsoleAccountStatusView,
      },
      (actor, request) =>
        consoles.accountStatus(
          actor,
          provider,
          request.query.validate === 'true' || request.query.validate === '1',
        ),
    );
  }
}
