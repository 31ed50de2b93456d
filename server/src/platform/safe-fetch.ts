// PLACEHOLDER (replaced by branch wt-fetch): the interface of the SSRF-safe fetch, with a minimal body
// so the blocklists feature can be built and tested against a loopback server. It lets through only
// addresses inside `allowCidrs` and public-looking names; it does NOT pin connections or cap bodies.
import { BlockList, isIP } from 'node:net';
import { HttpError } from './errors.js';

export interface SafeFetchOptions {
  allowCidrs: readonly string[];
  dnsServers?: readonly string[];
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
}

export interface SafeFetchResponse {
  status: number;
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

const refused = (message: string) => new HttpError(400, 'url_not_allowed', message);

export class SafeFetcher {
  private readonly allowed = new BlockList();

  constructor(private readonly options: SafeFetchOptions) {
    for (const cidr of options.allowCidrs) {
      const [address, bits] = cidr.split('/');
      if (!address) continue;
      this.allowed.addSubnet(address, Number(bits), isIP(address) === 6 ? 'ipv6' : 'ipv4');
    }
  }

  async check(url: string): Promise<URL> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw refused('The address is not a valid URL.');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw refused('Only http and https addresses can be fetched.');
    if (parsed.username || parsed.password) throw refused('The address must not carry a user name.');
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    const family = isIP(host);
    if (family) {
      if (!this.allowed.check(host, family === 6 ? 'ipv6' : 'ipv4'))
        throw refused('The address is not a public one.');
      return parsed;
    }
    // The placeholder never resolves names: tests use loopback literals only.
    throw refused('The placeholder fetch only reaches allowed address literals.');
  }

  async fetch(url: string, headers: Record<string, string> = {}): Promise<SafeFetchResponse> {
    const checked = await this.check(url);
    let res: Response;
    try {
      res = await fetch(checked, {
        headers,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 15_000),
      });
    } catch (err) {
      throw new HttpError(502, 'upstream_failed', `The list could not be fetched: ${(err as Error).message}`);
    }
    if (res.status !== 304 && (res.status < 200 || res.status > 299))
      throw new HttpError(502, 'upstream_failed', `The list's server answered ${res.status}.`);
    const body = Buffer.from(await res.arrayBuffer());
    const out: Record<string, string> = {};
    res.headers.forEach((value, key) => {
      out[key] = value;
    });
    return { status: res.status, url: checked.toString(), headers: out, body };
  }
}
