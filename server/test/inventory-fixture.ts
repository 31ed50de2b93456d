import { createHash } from 'node:crypto';
import { PNG } from 'pngjs';
import type { SimAgent, SimAgentOptions } from '../../bench/src/simulator.js';
import { type ChildAgentsSuite, withChildAgents } from './child-agents.js';
import type { ServerSuite } from './helpers.js';

export const app = (name: string, version = '1.0', extra: Record<string, unknown> = {}) => ({
  application_name: name,
  identifier: `/usr/bin/${name.toLowerCase()}`,
  match_type: 'executable',
  version_name: version,
  ...extra,
});

export function png(width: number, height: number, noise = false): Buffer {
  const image = new PNG({ width, height });
  for (let i = 0; i < image.data.length; i++)
    image.data[i] = noise ? Math.floor(Math.random() * 256) : (i * 37) % 256;
  return PNG.sync.write(image);
}
export const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

export interface InventorySuite extends ChildAgentsSuite {
  /** A paired agent whose `account` is mapped to the child Ada. */
  paired(options?: Partial<SimAgentOptions>, account?: string): Promise<SimAgent>;
  /** Sends one chunk and returns the ack for its report. */
  chunk(a: SimAgent, report: Record<string, unknown>): Promise<any>;
  /** The device's installed applications as the admin UI reads them. */
  inventory(a: SimAgent): Promise<any>;
}

/** The apps home: the child Ada, agents that also report the unmapped account `other`. */
export function inventorySuite(suite: ServerSuite): InventorySuite {
  const ctx = withChildAgents(suite, { child: 'Ada', spareAccount: 'other' }) as InventorySuite;
  ctx.paired = async (options = {}, account = 'kid') =>
    (await ctx.pairedAgent(options, ctx.childId, account)).agent;
  ctx.chunk = (a, report) => {
    const ack = a.waitFor(
      (f) => f.type === 'installed_apps_report_ack' && f.report_id === (report.report_id ?? null),
    );
    a.send({
      type: 'installed_apps_report',
      linux_username: 'kid',
      reported_at: new Date().toISOString(),
      is_final: false,
      ...report,
    });
    return ack;
  };
  ctx.inventory = async (a) => (await ctx.home.client.get(`/api/devices/${a.systemId}/installed-apps`)).body;
  return ctx;
}
