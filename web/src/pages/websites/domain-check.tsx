// "Why is this blocked?": whether a website is blocked for the child and which lists, rules or
// approved requests decide it, the way Pi-hole's list search answers it for a whole network.
import { Badge, Button, Card, Group, List, Stack, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { useDomainCheck } from '../../api/blocklists';
import { IconSearch } from '../../components/icons';
import { ErrorAlert } from '../../components/page';
import { matchText } from '../blocklists/blocklist-words';

/** A typed site or a pasted link, as the domain the check asks about ("https://www.x.org/a" → "www.x.org"). */
export function domainOfInput(text: string): string {
  const typed = text.trim().toLowerCase();
  if (!typed) return '';
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//.test(typed) ? typed : `http://${typed}`);
    return url.hostname.replace(/\.$/, '');
  } catch {
    return typed;
  }
}

export function DomainCheckCard({ childId, childName }: { childId: string; childName: string }) {
  const [typed, setTyped] = useState('');
  const [asked, setAsked] = useState('');
  const [empty, setEmpty] = useState(false);
  const check = useDomainCheck(childId, asked);
  const answer = asked ? check.data : undefined;
  const refused = check.error?.code === 'invalid_request';

  function submit(event: FormEvent) {
    event.preventDefault();
    const domain = domainOfInput(typed);
    setEmpty(!domain);
    if (!domain) return;
    if (domain === asked) check.reload();
    setAsked(domain);
  }

  const matches =
    answer?.matches.map((m) => ({
      ...matchText(m, childName),
      key: `${m.kind}:${m.source_id ?? m.grant_id ?? ''}:${m.rule}`,
    })) ?? [];

  return (
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="check-title">
      <Stack gap="sm">
        <Title order={2} fz="lg" id="check-title">
          Why is this blocked?
        </Title>
        <form onSubmit={submit} noValidate aria-label="Check a website">
          <Stack gap="xs" align="flex-start">
            <TextInput
              label="Website"
              description={`Whether ${childName}’s devices block it, and why.`}
              placeholder="games.example.com"
              value={typed}
              onChange={(e) => setTyped(e.currentTarget.value)}
              error={
                empty
                  ? 'Type a website, such as games.example.com.'
                  : refused
                    ? `“${asked}” is not a website address Hearth can check. Type one such as games.example.com.`
                    : undefined
              }
              w="100%"
              autoCapitalize="none"
              autoCorrect="off"
              spellCheck={false}
            />
            <Button
              type="submit"
              variant="light"
              loading={asked !== '' && !answer && !check.error}
              leftSection={<IconSearch size={16} />}
            >
              Check
            </Button>
          </Stack>
        </form>
        {check.error && !refused ? (
          <ErrorAlert error={check.error} onRetry={check.reload} title="Could not check that website" />
        ) : null}
        <div aria-live="polite">
          {answer ? (
            <Stack gap="xs" data-testid="check-result">
              <Group gap="xs">
                <Badge
                  color={answer.blocked ? 'red' : 'teal'}
                  variant="light"
                  radius="sm"
                  size="lg"
                  data-testid="check-verdict"
                >
                  {answer.blocked ? 'Blocked' : 'Not blocked'}
                </Badge>
                <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
                  {answer.domain}
                </Text>
              </Group>
              {matches.length ? (
                <List size="sm" spacing={4} data-testid="check-matches">
                  {matches.map((m) => (
                    <List.Item key={m.key}>
                      <Text span size="sm" fw={600} c={m.effect === 'blocks' ? 'red' : 'teal'}>
                        {m.effect === 'blocks' ? 'Blocks: ' : 'Allows: '}
                      </Text>
                      {m.text}
                    </List.Item>
                  ))}
                </List>
              ) : (
                <Text size="sm" c="dimmed">
                  Nothing in {childName}’s lists or rules mentions it.
                </Text>
              )}
              {answer.blocked === false && matches.some((m) => m.effect === 'blocks') ? (
                <Text size="sm" c="dimmed">
                  An allow rule wins over the lists, so {childName} can visit it.
                </Text>
              ) : null}
            </Stack>
          ) : null}
        </div>
      </Stack>
    </Card>
  );
}
