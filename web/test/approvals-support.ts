// Shared parts of the sign-up approval browser tests: the household, what its devices ask, and the
// parts of the pages they look at.
import type { Page } from 'playwright-core';
import type { SimAgent } from '../../bench/src/simulator.ts';
import type { TestServer } from '../../server/test/helpers.ts';
import {
  asDevice,
  createAnnAndBen,
  type Household,
  mapAccount,
  openHousehold,
  pairAgent,
} from './support.ts';

// A picture of one section: no passing notification, nor the fixed header over it.
export const WITHOUT_OVERLAYS =
  '.mantine-Notifications-root, .mantine-AppShell-header { display: none !important; }';
export const deviceSection = (page: Page) => page.getByRole('region', { name: 'Devices' });

/** A device mapping's box on a child's page. */
export const mappingRow = (page: Page, hostname: string) =>
  page.getByTestId('mapping-row').filter({ hasText: hostname });

/** Approval requests waiting for a decision. */
export const waitingItems = (page: Page) =>
  page.getByRole('list', { name: 'Approval requests' }).getByTestId('approval-item');

/** What the laptop's agent asks with its own token, as the browser extension's helper does. */
export function laptopRequests(server: TestServer, laptop: SimAgent) {
  const bearer = asDevice(server, laptop);
  return {
    bearer,
    check: async (domain: string, account = 'ann') =>
      (
        await bearer(
          'GET',
          `/api/registration/check?domain=${encodeURIComponent(domain)}&linux_username=${account}`,
        )
      ).body,
    askSignup: (domain: string, url: string, account = 'ann') =>
      bearer('POST', '/api/registration/request', { domain, linux_username: account, url }),
    logLogin: (domain: string, username: string, account = 'ann') =>
      bearer('POST', '/api/registration/log-login', { domain, username, linux_username: account }),
    askOther: (type: string, details: object, account = 'ann') =>
      bearer('POST', '/api/approvals/request', { type, linux_username: account, details }),
    requestAccess: (account: string, reason: string, message: string, domain?: string) =>
      bearer('POST', '/api/access-request', {
        linux_username: account,
        reason,
        message,
        ...(domain ? { domain } : {}),
      }),
  };
}

export interface ApprovalsHousehold extends Household {
  ann: { id: string };
  ben: { id: string };
  laptop: SimAgent;
  /** Ann's account on the family laptop. */
  annLaptopMapping: string;
  agents: SimAgent[];
}

/** Maria's household: Ann and Ben on the family laptop, and Ann's old laptop from before sign-up approvals. */
export async function openApprovalsHousehold(): Promise<ApprovalsHousehold> {
  const household = await openHousehold();
  const agents: SimAgent[] = [];
  const { ann, ben } = await createAnnAndBen(household.owner);
  const laptop = await pairAgent(
    household,
    agents,
    { hostname: 'family-laptop', linuxUsers: [{ username: 'ann' }, { username: 'ben' }] },
    'Living room laptop',
  );
  const annLaptopMapping = (await mapAccount(household.owner, ann, laptop.systemId, 'ann')).id;
  await mapAccount(household.owner, ben, laptop.systemId, 'ben');
  // Ann's old laptop runs an agent from before sign-up approvals.
  await pairAgent(
    household,
    agents,
    { hostname: 'old-laptop', agentVersion: '0.56.0', linuxUsers: [{ username: 'ann' }] },
    'Old laptop',
    [['ann', ann]],
  );
  return { ...household, ann, ben, laptop, annLaptopMapping, agents };
}
