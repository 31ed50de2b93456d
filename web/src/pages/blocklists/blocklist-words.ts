// Blocklists in a parent's words: formats, counts, when a list was last downloaded and why a
// download failed (the server's codes and recorded errors turned into sentences).
import type { BlocklistFormat } from '@hearth/protocol';
import type { BlocklistSource, DomainMatch } from '../../api/blocklists';
import { ApiError } from '../../api/client';
import { clockTime } from '../../components/time-bits';
import { plural, timeAgo } from '../../labels';

export const FORMAT_LABELS: Record<BlocklistFormat, string> = {
  auto: 'Detect automatically',
  hosts: 'Hosts file',
  adblock: 'Adblock rules',
  domains: 'One domain a line',
};

export const FORMAT_OPTIONS = (['auto', 'hosts', 'adblock', 'domains'] as const).map((value) => ({
  value,
  label: FORMAT_LABELS[value],
}));

export const KIND_LABELS: Record<BlocklistSource['kind'], string> = {
  manual: 'Typed in',
  url: 'From a web address',
};

const numbers = new Intl.NumberFormat('en-US');

/** "12,345", the same in every browser. */
export const count = (n: number) => numbers.format(n);

/** "1 domain", "12,345 domains". */
export const domainCount = (n: number) => `${count(n)} ${n === 1 ? 'domain' : 'domains'}`;

export const skippedText = (n: number) =>
  n === 0
    ? null
    : `${count(n)} ${n === 1 ? 'line' : 'lines'} skipped (not a website address or not a blocking rule)`;

export const NOT_ALLOWED_TEXT =
  'Hearth only downloads lists from public web addresses starting with http:// or https://. This one points to a private or local network, or is not a web address, so Hearth did not contact it.';

export const UPSTREAM_TEXT =
  'The website with the list could not be reached or did not send a usable list, so nothing was changed.';

/** A refused add, preview or refresh in plain words. */
export function fetchErrorText(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.code === 'url_not_allowed') return NOT_ALLOWED_TEXT;
    if (err.code === 'upstream_failed') return withReason(UPSTREAM_TEXT, err.message);
    return err.message;
  }
  return 'Something unexpected happened. Please reload the page and try again.';
}

function withReason(sentence: string, reason: string | null | undefined): string {
  const said = reason?.trim();
  if (!said || said === sentence) return sentence;
  return `${sentence} (${said.replace(/\.$/, '')}.)`;
}

/** What the source's last recorded error means for the parent, or null when the last download worked. */
export function lastErrorText(source: BlocklistSource): string | null {
  const error = source.last_error?.trim();
  if (!error) return null;
  // The server records its own sentence; a refused address gets Hearth's explanation as well.
  const refused = /not (a )?public|private|not allowed|loopback|only http/i.test(error)
    ? ` ${NOT_ALLOWED_TEXT}`
    : '';
  const kept = source.last_refreshed_at
    ? ` Hearth keeps using the ${domainCount(source.domain_count)} from the last good download.`
    : '';
  return `The last download failed. ${error.replace(/([^.!?])$/, '$1.')}${refused}${kept}`;
}

/** "Downloaded 3 h ago", "Downloading for the first time…", "Tried 5 min ago" (never downloaded). */
export function refreshedText(source: BlocklistSource, now = Date.now()): string {
  if (source.kind === 'manual') return `Added ${timeAgo(source.created_at, now)}`;
  if (source.last_refreshed_at) return `Downloaded ${timeAgo(source.last_refreshed_at, now)}`;
  if (source.last_attempt_at === null) return 'Downloading for the first time…';
  return `Tried ${timeAgo(source.last_attempt_at, now)}`;
}

/** "12,345 domains", or that a web list has no content yet. */
export function sizeText(source: BlocklistSource): string {
  if (source.kind === 'url' && !source.last_refreshed_at) return 'Not downloaded yet';
  return domainCount(source.domain_count);
}

/** The format a list is read as: what `auto` detected, or the one chosen. */
export function formatText(source: BlocklistSource): string {
  if (source.format === 'auto')
    return source.detected_format
      ? `${FORMAT_LABELS[source.detected_format]} (detected)`
      : 'Detected on download';
  return FORMAT_LABELS[source.format];
}

/** "3 exceptions" an adblock list carries, or null. */
export const exceptionsText = (n: number) =>
  n ? `${count(n)} ${n === 1 ? 'exception' : 'exceptions'} (sites the list allows)` : null;

/** The words after a refresh: "Updated: 12,345 domains" or "No change". */
export function refreshResultText(answer: { source: BlocklistSource; changed: boolean }): string {
  return answer.changed ? `Updated: ${domainCount(answer.source.domain_count)}` : 'No change';
}

/** One domain-check match in words, with whether it blocks or allows. */
export function matchText(
  match: DomainMatch,
  childName: string,
): { effect: 'blocks' | 'allows'; text: string } {
  const effect = match.action === 'allow' ? 'allows' : 'blocks';
  switch (match.kind) {
    case 'source': {
      const list = `the list “${match.source_name ?? 'a removed list'}”`;
      return {
        effect,
        text:
          effect === 'allows'
            ? `An exception on ${list} (rule ${match.rule})`
            : `On ${list} (rule ${match.rule})`,
      };
    }
    case 'block_domain':
      return { effect, text: `On ${childName}’s own block list (${match.rule})` };
    case 'allow_domain':
      return { effect, text: `On ${childName}’s allow list (${match.rule})` };
    case 'grant':
      return {
        effect,
        text: match.expires_at
          ? `An approved request allows ${match.rule} until ${clockTime(match.expires_at)}`
          : `An approved request allows ${match.rule} for good`,
      };
  }
}

export const listCount = (n: number) => plural(n, 'list');
