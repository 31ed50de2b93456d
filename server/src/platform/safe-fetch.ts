import { lookup, Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { type Readable, Transform, type TransformCallback, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Agent, buildConnector, request } from 'undici';
import { AddressPolicy, hostnameRefusal } from './address-policy.js';
import { HttpError } from './errors.js';

export interface SafeFetchOptions {
  /** config.fetchAllowCidrs (HEARTH_FETCH_ALLOW_CIDRS): the only networks opened beyond public ones. */
  allowCidrs: readonly string[];
  /** e.g. ['127.0.0.1:5353']; unset or empty = the system resolver. */
  dnsServers?: readonly string[];
  /** The whole fetch, redirects and body included; default 15 s. */
  timeoutMs?: number;
  /** Counted on the decoded body; default 20 MiB. */
  maxBytes?: number;
  /** Default 5. */
  maxRedirects?: number;
}

export interface SafeFetchResponse {
  status: number;
  /** The URL that answered, after redirects. */
  url: string;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
}

const MAX_URL_LENGTH = 2048;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = 'Hearth blocklist fetch';

/** A URL that passed every check, with the addresses its host resolved to (all of them allowed). */
interface CheckedUrl {
  url: URL;
  addresses: string[];
}

const notAllowed = (message: string) => new HttpError(400, 'url_not_allowed', message);
const upstreamFailed = (host: string, reason: string) =>
  new HttpError(502, 'upstream_failed', `Could not download the list from ${host}: ${reason}.`);

const mebibytes = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${+(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${bytes} bytes`;
const seconds = (ms: number) => (ms >= 1000 ? `${+(ms / 1000).toFixed(1)} seconds` : `${ms} ms`);

/** The host as the URL shows it, without IPv6 brackets. */
const bareHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/** Rejects as soon as `signal` aborts, so a hung resolver cannot outlast the deadline. */
function beforeDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** Counts the bytes as they arrive and fails past the limit (the compressed side of a body). */
class ByteLimit extends Transform {
  private seen = 0;
  constructor(
    private readonly limit: number,
    private readonly tooLarge: () => Error,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.limit) done(this.tooLarge());
    else done(null, chunk);
  }
}

/**
 * Fetches a URL a parent typed without letting it reach the server's own network (DESIGN §8): only
 * http(s) without credentials, every address of the host public (or inside HEARTH_FETCH_ALLOW_CIDRS),
 * the connection made to exactly those checked addresses, every redirect checked again, one deadline
 * for everything and a size cap on the decoded body.
 */
export class SafeFetcher {
  private readonly policy: AddressPolicy;
  private readonly resolver: Resolver | null;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly maxRedirects: number;

  constructor(options: SafeFetchOptions) {
    this.policy = new AddressPolicy(options.allowCidrs);
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.maxBytes = options.maxBytes ?? 20 * 1024 * 1024;
    this.maxRedirects = options.maxRedirects ?? 5;
    if (options.dnsServers?.length) {
      this.resolver = new Resolver({ timeout: Math.min(this.timeoutMs, 5000), tries: 2 });
      this.resolver.setServers([...options.dnsServers]);
    } else {
      this.resolver = null;
    }
  }

  /**
   * Syntax + scheme + credentials + length + resolution + classification; throws HttpError 400
   * url_not_allowed (502 upstream_failed when the name cannot be resolved: that is not the URL's fault).
   */
  async check(url: string): Promise<URL> {
    return (await this.checkUrl(url, AbortSignal.timeout(this.timeoutMs))).url;
  }

  /**
   * GET with the given extra headers (e.g. If-None-Match). Returns 2xx and 304 answers; a refused URL
   * (first hop or any redirect) is 400 url_not_allowed, any other failure 502 upstream_failed.
   */
  async fetch(url: string, headers: Record<string, string> = {}): Promise<SafeFetchResponse> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    let target = await this.checkUrl(url, signal);
    for (let redirects = 0; ; redirects++) {
      const answer = await this.exchange(target, headers, signal);
      if (!('location' in answer)) return answer;
      const host = bareHost(target.url);
      if (redirects === this.maxRedirects)
        throw upstreamFailed(host, `it redirected more than ${this.maxRedirects} times`);
      let next: URL;
      try {
        next = new URL(answer.location, target.url);
      } catch {
        throw upstreamFailed(host, 'it redirected to an address that is not valid');
      }
      target = await this.checkUrl(
        next.href,
        signal,
        `${host} redirected to ${next.href.slice(0, 200)}, but `,
      );
    }
  }

  /** Every check but the connection; `lead` begins the message when a redirect brought us here. */
  private async checkUrl(text: string, signal: AbortSignal, lead = ''): Promise<CheckedUrl> {
    const refuse = (reason: string) => notAllowed(sentence(lead ? `${lead}${reason}` : reason));
    if (text.length > MAX_URL_LENGTH) throw refuse(`the address is longer than ${MAX_URL_LENGTH} characters`);
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw refuse('that is not a web address (it should start with https://)');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw refuse(`only http:// and https:// addresses can be fetched, not ${url.protocol}`);
    if (url.username || url.password)
      throw refuse('addresses with a user name or password in them (user@host) are not fetched');
    const host = bareHost(url);
    const nameRefusal = hostnameRefusal(host);
    if (nameRefusal) throw refuse(`Hearth does not fetch from ${host}: ${nameRefusal}`);
    const addresses = isIP(host) ? [host] : await this.resolve(host, signal);
    for (const address of addresses) {
      const reason = this.policy.refusal(address);
      if (!reason) continue;
      const named = address === host ? host : `${host} (${address})`;
      throw refuse(
        `Hearth does not fetch from ${named}: it is ${reason}. ` +
          'The server operator can open a home network with HEARTH_FETCH_ALLOW_CIDRS.',
      );
    }
    return { url, addresses };
  }

  /** All the addresses of `host`, IPv4 and IPv6, asked once; none found is an upstream failure. */
  private async resolve(host: string, signal: AbortSignal): Promise<string[]> {
    let addresses: string[];
    try {
      addresses = await beforeDeadline(this.lookup(host), signal);
    } catch (err) {
      if (signal.aborted)
        throw upstreamFailed(host, `finding its address took longer than ${seconds(this.timeoutMs)}`);
      const code = (err as NodeJS.ErrnoException).code;
      const missing = code === 'ENOTFOUND' || code === 'ENODATA';
      throw upstreamFailed(
        host,
        missing ? 'no such name exists' : `its address could not be found (${code})`,
      );
    }
    if (!addresses.length) throw upstreamFailed(host, 'no such name exists');
    return addresses;
  }

  private async lookup(host: string): Promise<string[]> {
    if (!this.resolver) return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    // A missing record of one family is normal; any other failure fails the whole answer, so that
    // every address the name has is the set we judge.
    const noRecords = (err: NodeJS.ErrnoException) =>
      err.code === 'ENODATA' || err.code === 'ENOTFOUND' ? [] : Promise.reject(err);
    const [v4, v6] = await Promise.all([
      this.resolver.resolve4(host).catch(noRecords),
      this.resolver.resolve6(host).catch(noRecords),
    ]);
    return [...v4, ...v6];
  }

  /** One request to a checked URL: a finished answer, or where a redirect points. */
  private async exchange(
    target: CheckedUrl,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<SafeFetchResponse | { location: string }> {
    const host = bareHost(target.url);
    const agent = pinnedAgent(target, this.timeoutMs);
    try {
      // Raced as well as signalled: undici 6 leaves a request pending for good, abort included, when
      // the server closes the connection the moment it accepts it.
      const res = await beforeDeadline(
        request(target.url, {
          dispatcher: agent,
          method: 'GET',
          headers: { 'user-agent': USER_AGENT, ...headers, 'accept-encoding': 'gzip, deflate, br' },
          signal,
          maxRedirections: 0,
        }),
        signal,
      );
      const flat = flattenHeaders(res.headers);
      if (REDIRECTS.has(res.statusCode)) {
        discard(res.body);
        if (!flat.location)
          throw upstreamFailed(host, `it answered ${res.statusCode} without saying where to go`);
        return { location: flat.location };
      }
      if (res.statusCode !== 304 && (res.statusCode < 200 || res.statusCode > 299)) {
        discard(res.body);
        throw upstreamFailed(host, `the server answered with status ${res.statusCode} instead of the list`);
      }
      const answer = { status: res.statusCode, url: target.url.href, headers: flat };
      // A 304 has no body to decode, whatever Content-Encoding it repeats.
      if (res.statusCode === 304) {
        discard(res.body);
        return { ...answer, body: Buffer.alloc(0) };
      }
      return { ...answer, body: await this.readBody(res.body, flat, host, signal) };
    } catch (err) {
      if (err instanceof HttpError) throw err;
      if (signal.aborted) throw upstreamFailed(host, `it took longer than ${seconds(this.timeoutMs)}`);
      throw upstreamFailed(host, connectionProblem(err));
    } finally {
      agent.destroy().catch(() => {});
    }
  }

  /** The body decoded as it arrives, stopped the moment it passes the cap (a gzip bomb included). */
  private async readBody(
    body: Readable,
    headers: Record<string, string>,
    host: string,
    signal: AbortSignal,
  ): Promise<Buffer> {
    // Counted twice: as it arrives (ByteLimit) and, what matters for a gzip bomb, as it is decoded.
    const tooLarge = () => upstreamFailed(host, `the list is larger than ${mebibytes(this.maxBytes)}`);
    const declared = Number(headers['content-length']);
    if (Number.isFinite(declared) && declared > this.maxBytes) {
      discard(body);
      throw tooLarge();
    }
    const decoders = decodersFor(headers['content-encoding'] ?? '');
    if (!decoders) {
      discard(body);
      throw upstreamFailed(host, `it sent the list in an unknown encoding (${headers['content-encoding']})`);
    }
    let badData = false;
    for (const decoder of decoders)
      decoder.once('error', () => {
        badData = true;
      });
    const maxBytes = this.maxBytes;
    // A body whose length is announced and not encoded is copied into one buffer of that size as it
    // arrives, so a 20 MiB list never sits in memory twice (its chunks and their concatenation).
    const exact = !decoders.length && Number.isFinite(declared) && declared >= 0 ? declared : null;
    const whole = exact === null ? null : Buffer.allocUnsafe(exact);
    const chunks: Buffer[] = [];
    let total = 0;
    const collect = new Writable({
      write(chunk: Buffer, _encoding, done) {
        if (total + chunk.length > maxBytes) return done(tooLarge());
        if (whole && total + chunk.length > whole.length)
          return done(upstreamFailed(host, 'it sent more than the length it announced'));
        if (whole) chunk.copy(whole, total);
        else chunks.push(chunk);
        total += chunk.length;
        done();
      },
    });
    try {
      await pipeline([body, new ByteLimit(maxBytes, tooLarge), ...decoders, collect], { signal });
    } catch (err) {
      if (err instanceof HttpError) throw err;
      if (badData && !signal.aborted) throw upstreamFailed(host, 'its compressed data is damaged');
      throw err;
    }
    return whole ? whole.subarray(0, total) : Buffer.concat(chunks, total);
  }
}

/** Drops a body we will not read; undici reports that as an error nobody needs to hear. */
function discard(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}

/** Capital first, full stop last. */
const sentence = (text: string) =>
  `${text.charAt(0).toUpperCase()}${text.slice(1)}${text.endsWith('.') ? '' : '.'}`;

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** zlib decoders for a Content-Encoding, innermost last; null for an encoding we do not read. */
function decodersFor(contentEncoding: string) {
  const codings = contentEncoding
    .toLowerCase()
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c && c !== 'identity');
  if (codings.length > 2) return null;
  const decoders = [];
  for (const coding of codings.reverse()) {
    if (coding === 'gzip' || coding === 'x-gzip') decoders.push(createGunzip());
    else if (coding === 'deflate') decoders.push(createInflate());
    else if (coding === 'br') decoders.push(createBrotliDecompress());
    else return null;
  }
  return decoders;
}

/**
 * A dispatcher whose every connection goes to the addresses already checked, tried in turn: no second
 * lookup, so an answer that changes after the check (DNS rebinding) is never used. The TLS name (SNI
 * and certificate check) and the Host header stay the URL's host.
 */
function pinnedAgent({ url, addresses }: CheckedUrl, timeoutMs: number): Agent {
  const connect = buildConnector({ timeout: Math.min(timeoutMs, 10_000) });
  const host = bareHost(url);
  const servername = isIP(host) ? undefined : host.replace(/\.+$/, '');
  return new Agent({
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect(options, callback) {
      const attempt = (index: number): void => {
        const address = addresses[index];
        if (address === undefined) {
          callback(new Error('no checked address to connect to'), null);
          return;
        }
        connect({ ...options, hostname: address, servername }, (...result) => {
          if (result[0] && index + 1 < addresses.length) attempt(index + 1);
          else callback(...result);
        });
      };
      attempt(0);
    },
  });
}

/** A connection failure in words. */
function connectionProblem(err: unknown): string {
  const code = String((err as { code?: unknown }).code ?? '');
  if (code === 'ECONNREFUSED') return 'the server refused the connection';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'the server closed the connection';
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') return 'the server did not answer';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'the server cannot be reached';
  if (/CERT|SELF_SIGNED|ALTNAME|UNABLE_TO_VERIFY/.test(code))
    return `its HTTPS certificate is not valid (${(err as Error).message})`;
  if (code === 'HPE_INVALID_CONSTANT' || code.startsWith('HPE_')) return 'the server did not answer in HTTP';
  return `the connection failed (${code || (err as Error).message})`;
}
