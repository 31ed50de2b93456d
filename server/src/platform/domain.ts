import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { getDomain } from 'tldts';

const LABEL_PATTERN = '(?!-)[a-z0-9-]{1,63}(?<!-)';
const LABEL = new RegExp(`^${LABEL_PATTERN}$`);
/** A hostname already in stored form, as agents send nearly every domain: nothing to convert. */
const STORED_FORM = new RegExp(`^${LABEL_PATTERN}(?:\\.${LABEL_PATTERN})*$`);
const HAS_LETTER = /[a-z-]/;

/**
 * A site's domain as Hearth stores it: lower case, IDN in punycode, no port, no trailing dot. IP
 * literals are kept as given (IPv6 without brackets). Returns null for anything that is not a hostname.
 */
export function normalizeDomain(input: string): string | null {
  // Punycode labels are still checked by domainToASCII below, and all-digit names may be IPv4.
  if (input.length <= 253 && STORED_FORM.test(input) && !input.includes('xn--') && HAS_LETTER.test(input))
    return input;
  let text = input.trim().toLowerCase();
  if (!text || text.length > 300) return null;
  // Tolerate a full URL or host:port from the extension; keep only the host.
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(text)) {
    try {
      text = new URL(text).hostname;
    } catch {
      return null;
    }
  }
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    const v6 = end > 0 ? text.slice(1, end) : '';
    return isIP(v6) === 6 ? v6 : null;
  }
  if (isIP(text) === 6) return text;
  const colon = text.lastIndexOf(':');
  if (colon >= 0) {
    if (!/^\d{1,5}$/.test(text.slice(colon + 1))) return null;
    text = text.slice(0, colon);
  }
  if (text.endsWith('.')) text = text.slice(0, -1);
  if (isIP(text) === 4) return text;
  const ascii = domainToASCII(text);
  if (!ascii || ascii.length > 253) return null;
  const labels = ascii.split('.');
  if (!labels.every((label) => LABEL.test(label))) return null;
  // A dotted-quad look-alike that is not a valid IPv4 address is not a hostname either.
  if (labels.every((label) => /^\d+$/.test(label))) return null;
  return ascii;
}

/** The domain and every parent domain it sits under ("a.b.example.com" → …, "b.example.com", "example.com", "com"). */
export function domainAndParents(domain: string): string[] {
  if (isIP(domain)) return [domain];
  const labels = domain.split('.');
  return labels.map((_, i) => labels.slice(i).join('.'));
}

/**
 * The site a stored domain belongs to: its registrable domain by the Public Suffix List ("www.example.com"
 * and "example.com" → "example.com"; "foo.co.uk" stays apart from "bar.co.uk"). Private suffixes count, so
 * "alice.github.io" is a site of its own. IP literals, single labels and public suffixes are their own site.
 */
export function registrableDomain(domain: string): string {
  if (isIP(domain)) return domain;
  return getDomain(domain, { allowPrivateDomains: true, extractHostname: false }) ?? domain;
}
