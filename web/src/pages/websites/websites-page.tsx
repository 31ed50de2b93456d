// A child's websites (DESIGN §11): which of the household's lists they get, the sites always blocked
// or always allowed for them, what is in effect and whether each device has it, and "Why is this
// blocked?" for any site.
import {
  Alert,
  Anchor,
  Button,
  Card,
  Checkbox,
  Grid,
  Group,
  Skeleton,
  Stack,
  Text,
  Textarea,
  Title,
} from '@mantine/core';
import { useMemo, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import {
  type BlocklistSource,
  type DomainPolicy,
  useBlocklistSources,
  useDomainPolicy,
  useDomainSync,
  useSaveDomainPolicy,
} from '../../api/blocklists';
import { ApiError, messageOf } from '../../api/client';
import { IconAlert } from '../../components/icons';
import { ErrorAlert, notifySaved } from '../../components/page';
import { SyncItems } from '../../components/time-bits';
import { count, domainCount, sizeText } from '../blocklists/blocklist-words';
import { ChildEditorPage } from '../child/child-subpage';
import { DomainCheckCard } from './domain-check';

/** The lines of a textarea as domains: trimmed, lower case, empty lines and repeats dropped. */
export function domainLines(text: string): string[] {
  const seen = new Set<string>();
  for (const line of text.split('\n')) {
    const domain = line.trim().toLowerCase();
    if (domain) seen.add(domain);
  }
  return [...seen];
}

/** "From 2 lists, 3 websites always blocked and 1 always allowed." */
function effectSentence(policy: DomainPolicy): string {
  const lists = policy.source_ids.length;
  const parts = [
    lists ? `${count(lists)} ${lists === 1 ? 'list' : 'lists'}` : 'no lists',
    `${count(policy.block_domains.length)} always blocked`,
    `${count(policy.allow_domains.length)} always allowed`,
  ];
  return `From ${parts[0]}, ${parts[1]} and ${parts[2]}.`;
}

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((v, i) => v === b[i]);

interface Draft {
  source_ids: string[];
  block: string;
  allow: string;
}

const draftOf = (policy: DomainPolicy): Draft => ({
  source_ids: [...policy.source_ids].sort(),
  block: policy.block_domains.join('\n'),
  allow: policy.allow_domains.join('\n'),
});

/** The server's refusal of one entry ("/block_domains/2") under its box, with the line it is on. */
function listProblems(err: ApiError | null, field: 'block_domains' | 'allow_domains'): string | null {
  if (!(err instanceof ApiError)) return null;
  const said = err.details
    .filter((d) => d.path.split('/')[1] === field)
    .map((d) => {
      const index = Number(d.path.split('/')[2]);
      return Number.isInteger(index) ? `Line ${index + 1}: ${d.message}.` : `${d.message}.`;
    });
  return said.length ? said.join(' ') : null;
}

function SourceChoices({
  sources,
  value,
  onChange,
}: {
  sources: BlocklistSource[] | undefined;
  value: string[];
  onChange: (ids: string[]) => void;
}) {
  if (!sources) return <Skeleton h={80} aria-busy="true" />;
  if (!sources.length) {
    return (
      <Text size="sm" c="dimmed">
        The household has no lists yet. Add one on the{' '}
        <Anchor component={Link} to="/blocklists">
          Blocklists page
        </Anchor>
        .
      </Text>
    );
  }
  // A list assigned before it was removed stays checked until saved without it.
  return (
    <Checkbox.Group label="Lists to block" value={value} onChange={onChange}>
      <Stack gap="sm" mt="xs">
        {sources.map((s) => (
          <Checkbox
            key={s.id}
            value={s.id}
            label={s.name}
            description={
              s.kind === 'url' && s.last_refreshed_at ? `${sizeText(s)} · downloaded daily` : sizeText(s)
            }
          />
        ))}
      </Stack>
    </Checkbox.Group>
  );
}

function WebsitesEditor({
  childId,
  childName,
  policy,
}: {
  childId: string;
  childName: string;
  policy: DomainPolicy;
}) {
  const sources = useBlocklistSources();
  const sync = useDomainSync(childId);
  const save = useSaveDomainPolicy(childId);
  const [saved, setSaved] = useState<Draft>(() => draftOf(policy));
  const [draft, setDraft] = useState<Draft>(saved);

  const block = useMemo(() => domainLines(draft.block), [draft.block]);
  const allow = useMemo(() => domainLines(draft.allow), [draft.allow]);
  const changed =
    !sameList([...draft.source_ids].sort(), saved.source_ids) ||
    !sameList(block, domainLines(saved.block)) ||
    !sameList(allow, domainLines(saved.allow));
  const blockProblem = listProblems(save.error, 'block_domains');
  const allowProblem = listProblems(save.error, 'allow_domains');
  const otherProblem = save.error && !blockProblem && !allowProblem ? messageOf(save.error) : null;

  const onSave = () => {
    save.mutate(
      { source_ids: draft.source_ids, block_domains: block, allow_domains: allow },
      {
        onSuccess: (answer) => {
          const next = draftOf(answer);
          setSaved(next);
          setDraft(next);
          notifySaved(
            `${childName}’s websites are saved and on their way to their devices.`,
            'Websites saved',
          );
        },
      },
    );
  };

  return (
    <Grid gap="lg">
      <Grid.Col span={{ base: 12, md: 7 }}>
        <Card
          withBorder
          radius="lg"
          padding="lg"
          component="section"
          aria-labelledby="rules-title"
          style={{ overflow: 'visible' }}
        >
          <Stack gap="lg">
            <Title order={2} fz="lg" id="rules-title">
              What {childName} may not visit
            </Title>
            <SourceChoices
              sources={sources.data?.items}
              value={draft.source_ids}
              onChange={(ids) => setDraft((d) => ({ ...d, source_ids: ids }))}
            />
            {sources.error && !sources.data ? (
              <ErrorAlert error={sources.error} onRetry={sources.reload} title="Could not load the lists" />
            ) : null}
            <Textarea
              label="Always block"
              description={`Websites blocked for ${childName} whatever the lists say; one a line. A site also covers its subdomains.`}
              placeholder="games.example.com"
              value={draft.block}
              onChange={(e) => {
                const block = e.currentTarget.value;
                setDraft((d) => ({ ...d, block }));
              }}
              error={blockProblem}
              autosize
              minRows={3}
              maxRows={12}
              styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
            />
            <Textarea
              label="Always allow"
              description={`Websites ${childName} may visit even when a list blocks them; one a line.`}
              placeholder="school.example.org"
              value={draft.allow}
              onChange={(e) => {
                const allow = e.currentTarget.value;
                setDraft((d) => ({ ...d, allow }));
              }}
              error={allowProblem}
              autosize
              minRows={3}
              maxRows={12}
              styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
            />
            <Stack gap="xs" className="hearth-savebar" data-testid="save-bar">
              {otherProblem ? <ErrorAlert error={otherProblem} title="Websites not saved" /> : null}
              {blockProblem || allowProblem ? (
                <Alert
                  color="red"
                  variant="light"
                  icon={<IconAlert />}
                  role="alert"
                  data-testid="save-refused"
                >
                  Not saved: a website above needs fixing first.
                </Alert>
              ) : null}
              <Group gap="xs">
                <Button onClick={onSave} loading={save.isPending} disabled={!changed}>
                  Save websites
                </Button>
                <Button
                  variant="default"
                  disabled={!changed || save.isPending}
                  onClick={() => {
                    setDraft(saved);
                    save.reset();
                  }}
                >
                  Undo changes
                </Button>
              </Group>
              <Text size="sm" c="dimmed" aria-live="polite" data-testid="save-state">
                {changed ? 'Changed, not saved yet.' : 'Everything is saved.'}
              </Text>
            </Stack>
          </Stack>
        </Card>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 5 }}>
        <Stack gap="lg">
          <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="effect-title">
            <Stack gap="sm">
              <Title order={2} fz="lg" id="effect-title">
                In effect
              </Title>
              <Text size="lg" fw={600} data-testid="effective-count">
                {domainCount(policy.domain_count)} blocked
              </Text>
              <Text size="sm" c="dimmed" data-testid="effective-version">
                {effectSentence(policy)} Version {count(policy.version)}.
              </Text>
              <Title order={3} fz="md" mt="xs">
                On {childName}’s devices
              </Title>
              <SyncItems
                sync={sync}
                empty={`The website rules reach a device once one of its accounts is linked to ${childName}.`}
                unsupported="This device cannot block websites."
              />
            </Stack>
          </Card>
          <DomainCheckCard childId={childId} childName={childName} />
        </Stack>
      </Grid.Col>
    </Grid>
  );
}

function WebsitesDetails({ id }: { id: string }) {
  // The editor starts from the policy once and keeps the parent's unsaved changes across refreshes.
  const resource = useDomainPolicy(id);
  return (
    <ChildEditorPage
      id={id}
      resource={resource}
      noun="websites"
      description="The websites a child’s devices block, from the household’s lists and your own additions."
      skeletonHeight={360}
    >
      {(child, policy) => (
        <WebsitesEditor key={child.id} childId={child.id} childName={child.name} policy={policy} />
      )}
    </ChildEditorPage>
  );
}

export function WebsitesPage() {
  const { id = '' } = useParams();
  return <WebsitesDetails key={id} id={id} />;
}
