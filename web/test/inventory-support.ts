// What the installed-apps browser tests send as a device's agent: app lists, icons, and the checks on them.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import type { Frame, SimAgent } from '../../bench/src/simulator.ts';
import { createAnnAndBen, type Household, openHousehold, pairAgent } from './support.ts';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once the image has loaded with real pixels. */
export async function assertIconLoaded(page: Page, img: Locator): Promise<void> {
  await img.scrollIntoViewIfNeeded();
  const handle = await img.elementHandle();
  await page.waitForFunction((el) => {
    const image = el as HTMLImageElement;
    return image.complete && image.naturalWidth > 0;
  }, handle);
  assert.ok((await img.evaluate((el) => (el as HTMLImageElement).naturalWidth)) > 0);
}

export interface Icon {
  hash: string;
  base64: string;
}

/** A small PNG: a rounded tile of one colour with a lighter band, so it reads as an app icon. */
function makeIcon([r, g, b]: [number, number, number]): Icon {
  const size = 48;
  const image = new PNG({ width: size, height: size });
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const i = (y * size + x) * 4;
      const corner = Math.min(x, size - 1 - x) + Math.min(y, size - 1 - y) < 8;
      const band = y > 18 && y < 30;
      image.data[i] = band ? Math.min(255, r + 90) : r;
      image.data[i + 1] = band ? Math.min(255, g + 90) : g;
      image.data[i + 2] = band ? Math.min(255, b + 90) : b;
      image.data[i + 3] = corner ? 0 : 255;
    }
  }
  const bytes = PNG.sync.write(image);
  return { hash: createHash('sha256').update(bytes).digest('hex'), base64: bytes.toString('base64') };
}

export const FIREFOX_ICON = makeIcon([233, 110, 52]);
export const GIMP_ICON = makeIcon([110, 98, 90]);
export const KRITA_ICON = makeIcon([60, 120, 200]);

export type App = {
  application_name: string;
  identifier: string;
  match_type: 'executable';
  version_name: string;
};

export function app(name: string, version: string, icon?: Icon): App & { icon_hash?: string } {
  return {
    application_name: name,
    identifier: `/usr/bin/${name.toLowerCase().replaceAll(' ', '-')}`,
    match_type: 'executable',
    version_name: version,
    ...(icon ? { icon_hash: icon.hash } : {}),
  };
}

/** Sends an icon as the agent does, and waits until the server has it. */
export async function sendIcon(agent: SimAgent, icon: Icon): Promise<void> {
  const ack = agent.waitFor((f) => f.type === 'app_icon_report_ack' && f.content_hash === icon.hash);
  agent.send({
    type: 'app_icon_report',
    content_hash: icon.hash,
    mime_type: 'image/png',
    data_base64: icon.base64,
  });
  assert.equal((await ack).success, true);
}

/** Sends a complete one-chunk report for an account and waits for its final ack. */
export async function report(agent: SimAgent, apps: App[], account = 'kid'): Promise<Frame> {
  const reportId = randomUUID();
  const ack = agent.waitFor(
    (f) => f.type === 'installed_apps_report_ack' && f.report_id === reportId && f.pending === false,
  );
  agent.send({
    type: 'installed_apps_report',
    report_id: reportId,
    linux_username: account,
    chunk_index: 0,
    chunk_total: 1,
    is_final: true,
    reported_at: new Date().toISOString(),
    apps,
  });
  const frame = await ack;
  assert.equal(frame.success, true, JSON.stringify(frame));
  return frame;
}

export interface AppsHousehold extends Household {
  ann: { id: string };
  ben: { id: string };
  /** Ann's `kid` and Ben's `ben`; it takes a moment to answer "rescan", as a real agent does. */
  laptop: SimAgent;
  /** Ann's `kid` only. */
  study: SimAgent;
  agents: SimAgent[];
}

/** Maria's household with Ann and Ben, the family laptop and the study PC, paired and mapped. */
export async function openAppsHousehold(): Promise<AppsHousehold> {
  const household = await openHousehold();
  const agents: SimAgent[] = [];
  const { ann, ben } = await createAnnAndBen(household.owner);
  const laptop = await pairAgent(
    household,
    agents,
    {
      hostname: 'family-laptop',
      linuxUsers: [{ username: 'kid', display_name: 'Ann' }, { username: 'ben' }],
      respond: async (command) => {
        if (command === 'refresh_installed_apps') {
          await delay(600);
          return { success: true, data: { queued: true } };
        }
        return { success: true, data: {} };
      },
    },
    'Living room laptop',
    [
      ['kid', ann],
      ['ben', ben],
    ],
  );
  const study = await pairAgent(
    household,
    agents,
    { hostname: 'study-pc', linuxUsers: [{ username: 'kid' }] },
    'Study PC',
    [['kid', ann]],
  );
  return { ...household, ann, ben, laptop, study, agents };
}
