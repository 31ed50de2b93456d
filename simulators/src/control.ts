import type {
  NintendoFamily,
  NintendoPlaytime,
  SimConfig,
  SimFault,
  SimState,
  XboxFamily,
  XboxPlaytime,
} from './types.js';

/** The `/_sim` control API of a running simulator, over HTTP. */
export class SimControl<Family = XboxFamily | NintendoFamily, Playtime = XboxPlaytime | NintendoPlaytime> {
  /** `url` is the simulator's root (`http://127.0.0.1:<port>`). */
  constructor(readonly url: string) {}

  private async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.url}/_sim/${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`simulator ${method} /_sim/${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  }

  /** Back to the start: the default family, no tokens, no faults, no limits, counters at zero. */
  async reset(): Promise<void> {
    await this.call('POST', 'reset');
  }

  /** Replaces the family (accounts, consoles, players); tokens and stored limits stay. */
  async family(family: Family): Promise<void> {
    await this.call('POST', 'family', family);
  }

  /** Sets (not adds) the minutes of one day. */
  async playtime(playtime: Playtime): Promise<void> {
    await this.call('POST', 'playtime', playtime);
  }

  async fault(fault: SimFault): Promise<void> {
    await this.call('POST', 'faults', fault);
  }

  /** Every access (and id) token stops working. */
  async expireAccess(): Promise<void> {
    await this.call('POST', 'expire-access');
  }

  /** Every refresh or session token (and access token) stops working: the link has expired. */
  async revoke(): Promise<void> {
    await this.call('POST', 'revoke');
  }

  async config(config: SimConfig): Promise<SimConfig> {
    return this.call<SimConfig>('POST', 'config', config);
  }

  async state(): Promise<SimState> {
    return this.call<SimState>('GET', 'state');
  }
}
