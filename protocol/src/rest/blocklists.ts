import { type Static, Type } from '@sinclair/typebox';
import { Id, LinuxUsername, Name, Nullable, strict } from './common.js';
import { ScheduleSyncView } from './time.js';

// DESIGN §11: blocklist sources, each child's domain policy, its delivery and the domain check.

export const BLOCKLIST_KINDS = ['manual', 'url'] as const;
export type BlocklistKind = (typeof BLOCKLIST_KINDS)[number];
/** How a list's text is read; `auto` decides from the content. */
export const BLOCKLIST_FORMATS = ['auto', 'hosts', 'adblock', 'domains'] as const;
export type BlocklistFormat = (typeof BLOCKLIST_FORMATS)[number];
export type DetectedFormat = Exclude<BlocklistFormat, 'auto'>;

/** How often the worker fetches every url source again. */
export const BLOCKLIST_REFRESH_MS = 24 * 60 * 60 * 1000;
/** A list URL's longest accepted length. */
export const BLOCKLIST_URL_MAX = 2048;
/** Entries a child's own `block_domains` or `allow_domains` may hold. */
export const MAX_CHILD_DOMAINS = 10_000;

const Kind = Type.Union(BLOCKLIST_KINDS.map((k) => Type.Literal(k)));
const Format = Type.Union(BLOCKLIST_FORMATS.map((f) => Type.Literal(f)));
const Detected = Type.Union(
  BLOCKLIST_FORMATS.filter((f) => f !== 'auto').map((f) => Type.Literal(f as DetectedFormat)),
);
const Url = Type.String({ minLength: 1, maxLength: BLOCKLIST_URL_MAX });
const DomainText = Type.String({ minLength: 1, maxLength: 300 });
/** A manual list: one entry per array item, or one text with an entry a line (a pasted list). */
const ListText = Type.Union([
  Type.Array(Type.String({ maxLength: 1024 }), { maxItems: 200_000 }),
  Type.String({ maxLength: 1024 * 1024 }),
]);

export const AddSourceBody = Type.Object(
  {
    name: Name,
    kind: Kind,
    domains: Type.Optional(ListText),
    url: Type.Optional(Url),
    format: Type.Optional(Format),
  },
  strict,
);
export type AddSourceBody = Static<typeof AddSourceBody>;

export const UpdateSourceBody = Type.Object(
  { name: Type.Optional(Name), domains: Type.Optional(ListText) },
  strict,
);
export type UpdateSourceBody = Static<typeof UpdateSourceBody>;

export const SourceView = Type.Object({
  id: Id,
  name: Type.String(),
  kind: Kind,
  url: Nullable(Type.String()),
  /** The format asked for (`auto` included). */
  format: Format,
  /** The format the last content was read as (what `auto` decided); null before any content. */
  detected_format: Nullable(Detected),
  /** Blocked domains (distinct, normalised). */
  domain_count: Type.Integer(),
  /** Exceptions the list carries (adblock `@@||d^`). */
  allow_count: Type.Integer(),
  skipped_lines: Type.Integer(),
  etag: Nullable(Type.String()),
  last_modified: Nullable(Type.String()),
  /** The last fetch that succeeded (200 or 304). */
  last_refreshed_at: Nullable(Type.String()),
  /** The last fetch that ended, well or not; null while a new url source waits for its first. */
  last_attempt_at: Nullable(Type.String()),
  /** Why the last fetch failed; null once one succeeds. */
  last_error: Nullable(Type.String()),
  created_at: Type.String(),
});
export type SourceView = Static<typeof SourceView>;

export const SourceRefreshView = Type.Object({ source: SourceView, changed: Type.Boolean() });
export type SourceRefreshView = Static<typeof SourceRefreshView>;

export const PreviewBody = Type.Object({ url: Url }, strict);
export type PreviewBody = Static<typeof PreviewBody>;
export const PreviewView = Type.Object({
  format: Detected,
  /** The first non-empty lines as fetched (at most 20). */
  first_lines: Type.Array(Type.String()),
  domain_count: Type.Integer(),
});
export type PreviewView = Static<typeof PreviewView>;

const DomainEntries = Type.Array(DomainText, { maxItems: MAX_CHILD_DOMAINS });
export const AssignBlocklistsBody = Type.Object(
  {
    source_ids: Type.Array(Id, { maxItems: 100 }),
    block_domains: Type.Optional(DomainEntries),
    allow_domains: Type.Optional(DomainEntries),
  },
  strict,
);
export type AssignBlocklistsBody = Static<typeof AssignBlocklistsBody>;

export const DomainPolicyView = Type.Object({
  managed_user_id: Id,
  /** Rises whenever the effective content changes (0: never set). */
  version: Type.Integer(),
  source_ids: Type.Array(Id),
  block_domains: Type.Array(Type.String()),
  allow_domains: Type.Array(Type.String()),
  /** Domains in the effective block list. */
  domain_count: Type.Integer(),
});
export type DomainPolicyView = Static<typeof DomainPolicyView>;

export const AgentDomainPolicyQuery = Type.Object({ linux_username: LinuxUsername }, strict);
export type AgentDomainPolicyQuery = Static<typeof AgentDomainPolicyQuery>;
/** What an agent enforces: blocked unless an `allow` entry covers the domain (entries cover subdomains). */
export const AgentDomainPolicyView = Type.Object({
  linux_username: Type.String(),
  version: Type.Integer(),
  block: Type.Array(Type.String()),
  allow: Type.Array(Type.String()),
});
export type AgentDomainPolicyView = Static<typeof AgentDomainPolicyView>;

export const DomainCheckQuery = Type.Object({ domain: DomainText }, strict);
export const DOMAIN_MATCH_KINDS = ['source', 'block_domain', 'allow_domain', 'grant'] as const;
export const DomainMatch = Type.Object({
  kind: Type.Union(DOMAIN_MATCH_KINDS.map((k) => Type.Literal(k))),
  /** Whether the rule blocks or allows (a source's adblock exception allows). */
  action: Type.Union([Type.Literal('block'), Type.Literal('allow')]),
  /** The listed domain that covers the one checked: itself or a parent domain. */
  rule: Type.String(),
  source_id: Type.Optional(Type.String()),
  source_name: Type.Optional(Type.String()),
  grant_id: Type.Optional(Type.String()),
  expires_at: Type.Optional(Nullable(Type.String())),
});
export type DomainMatch = Static<typeof DomainMatch>;
export const DomainCheckView = Type.Object({
  domain: Type.String(),
  blocked: Type.Boolean(),
  matches: Type.Array(DomainMatch),
});
export type DomainCheckView = Static<typeof DomainCheckView>;

/** Like the schedule's: one item per mapped account (DESIGN §10). */
export const DomainPolicySyncView = ScheduleSyncView;
export type DomainPolicySyncView = Static<typeof DomainPolicySyncView>;
