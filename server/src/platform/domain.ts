import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { getDomain } from 'tldts';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * Whether a hostname is already in stored form, as agents send nearly every domain and lists hold
 * nearly every entry: lower-case ASCII labels of 1–63 letters, digits and inner hyphens, at most 253
 * characters, not all digits (IPv4 look-alikes), no punycode (checked the long way). One pass over the
 * characters, for the million-line lists.
 */
export function isStoredDomain(text: string): boolean {
  const n = text.length;
  if (n === 0 || n > 253) return false;
  let label = 0;
  let letter = false;
  let prev = 0x2e;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2e) {
      if (label === 0 || prev === 0x2d) return false;
      label = 0;
    } else if ((c >= 0x61 && c <= 0x7a) || c === 0x2d) {
      if (label === 0 && c === 0x2d) return false;
      if (++label > 63) return false;
      letter = true;
    } else if (c >= 0x30 && c <= 0x39) {
      if (++label > 63) return false;
    } else return false;
    prev = c;
  }
  return label > 0 && prev !== 0x2d && letter && !text.includes('xn--');
}

/**
 * A site's domain as Hearth stores it: lower case, IDN in punycode, no port, no trailing dot. IP
 * literals are kept as given (IPv6 without brackets). Returns null for anything that is not a hostname.
 */
export function normalizeDomain(input: string): string | null {
  // Punycode labels are still checked by domainToASCII below, and all-digit names may be IPv4.
  if (isStoredDomain(input)) return input;
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
