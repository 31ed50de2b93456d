import {
  Alert,
  Box,
  Button,
  Card,
  EmptyState,
  Group,
  SegmentedControl,
  Skeleton,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useMemo, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { type AppRule, appKey, type ChildApp, useChildInventory } from '../../api/inventory';
import { useUser } from '../../api/resources';
import type { ManagedUserView } from '../../api/types';
import {
  AppIcon,
  AppSearch,
  byAppName,
  IconApps,
  ListCount,
  matchesQuery,
  NoMatches,
  RuleBadge,
  ruleText,
  useShownRows,
} from '../../components/app-bits';
import { BackToChild, ChildAvatar, ChildNotFound } from '../../components/child-bits';
import { IconAlert, IconCheck, IconDevices, IconRefresh } from '../../components/icons';
import { ErrorAlert, PageHeader, StaleNotice } from '../../components/page';
import { deliveryText, PolicySyncCard } from './policy-sync';
import { RuleButtons, RuleLimitForm, useRuleEditing } from './rule-controls';
import { type AppPolicyState, useAppPolicy } from './use-app-policy';

type Filter = 'all' | 'ruled';

/** A rule for an app no device reports any more still shows, so it can be changed or removed. */
function withRuledApps(items: ChildApp[], rules: AppRule[]): ChildApp[] {
  const known = new Set(items.map(appKey));
  const gone: ChildApp[] = rules
    .filter((r) => !known.has(appKey(r)))
    .map((r) => ({
      identifier: r.identifier,
      match_type: r.match_type,
      application_name: r.application_name || r.identifier,
      icon_hash: null,
      icon_url: null,
      first_seen_at: '',
      last_seen_at: '',
      devices: [],
    }));
  return [...items, ...gone].sort(byAppName);
}

function SavedLine({ app, state }: { app: ChildApp; state: AppPolicyState }) {
  const key = appKey(app);
  const failure = state.failure?.key === key ? state.failure.message : null;
  const saved = state.lastSaved?.key === key ? state.lastSaved : null;
  const rule = saved?.policy.rules.find((r) => appKey(r) === key);
  return (
    <>
      <div aria-live="polite">
        {saved && !failure && state.saving !== key ? (
          <Group gap={6} wrap="nowrap" mt={6} c="teal" data-testid="rule-saved" align="flex-start">
            <Box style={{ display: 'flex', flex: 'none', paddingTop: 2 }}>
              <IconCheck size={16} />
            </Box>
            <Text size="sm" fw={500}>
              Saved: {rule ? ruleText(rule).toLowerCase() : 'no rule'}. {deliveryText(saved.policy.sync)}
            </Text>
          </Group>
        ) : null}
      </div>
      {failure ? (
        <Box mt="xs">
          <ErrorAlert error={failure} title={`The rule for ${app.application_name} was not saved`} />
        </Box>
      ) : null}
    </>
  );
}

function ChildAppRow({ app, state, first }: { app: ChildApp; state: AppPolicyState; first: boolean }) {
  const rule = state.rules.get(appKey(app));
  const edit = useRuleEditing(app, state);
  return (
    <Box
      component="li"
      py="md"
      data-testid="child-app"
      style={{ borderTop: first ? undefined : '1px solid var(--mantine-color-default-border)' }}
    >
      <Group justify="space-between" align="flex-start" gap="sm" wrap="wrap">
        <Group wrap="nowrap" gap="md" align="flex-start" style={{ flex: '1 1 18rem', minWidth: 0 }}>
          <AppIcon url={app.icon_url} />
          <Stack gap={2} style={{ minWidth: 0 }}>
            <Group gap="xs" align="center" wrap="wrap">
              <Text fw={600} style={{ overflowWrap: 'anywhere' }} data-testid="app-name">
                {app.application_name}
              </Text>
              <RuleBadge rule={rule} />
            </Group>
            <Text size="xs" c="dimmed" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
              {app.identifier}
            </Text>
            {app.devices.length ? (
              <Stack
                gap={0}
                component="ul"
                aria-label={`Devices with ${app.application_name}`}
                style={{ listStyle: 'none', margin: 0, padding: 0 }}
              >
                {app.devices.map((d) => (
                  <Text
                    component="li"
                    key={`${d.system_id}/${d.linux_username}`}
                    size="xs"
                    c="dimmed"
                    data-testid="app-device"
                  >
                    <Text span size="xs" fw={600} c="var(--mantine-color-text)">
                      {d.hostname}
                    </Text>{' '}
                    · Account {d.linux_username}
                    {d.version_name ? ` · Version ${d.version_name}` : ''}
                  </Text>
                ))}
              </Stack>
            ) : (
              <Text size="xs" c="dimmed">
                Not on any device now
              </Text>
            )}
          </Stack>
        </Group>
        <RuleButtons app={app} rule={rule} state={state} edit={edit} />
      </Group>
      <RuleLimitForm app={app} rule={rule} state={state} edit={edit} />
      <SavedLine app={app} state={state} />
    </Box>
  );
}

function AppsList({
  child,
  items,
  state,
}: {
  child: ManagedUserView;
  items: ChildApp[];
  state: AppPolicyState;
}) {
  const [query, setQuery] = useState('');
  const [filter, setFilter] = useState<Filter>('all');
  const ruled = items.filter((a) => state.rules.has(appKey(a))).length;
  const matching = items.filter(
    (app) =>
      (filter === 'all' || state.rules.has(appKey(app))) &&
      matchesQuery(query, [
        app.application_name,
        app.identifier,
        ...app.devices.flatMap((d) => [d.hostname, d.linux_username, d.version_name]),
      ]),
  );
  const { shown, more } = useShownRows(matching, `${query}|${filter}`);
  const filtered = filter !== 'all' || query.trim() !== '';

  return (
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby="child-apps-title">
      <Stack gap="md">
        <Stack gap={4}>
          <Title order={2} fz="lg" id="child-apps-title">
            Apps
          </Title>
          <Text size="sm" c="dimmed">
            Allow keeps an app open to {child.name}, Block stops it, Limit allows it for some minutes a day.
            With no rule, Hearth leaves the app alone.
          </Text>
        </Stack>
        <Group gap="sm" align="center" wrap="wrap">
          <AppSearch
            value={query}
            onChange={setQuery}
            label="Search apps"
            placeholder="Search by app or device"
          />
          <SegmentedControl
            aria-label="Show"
            value={filter}
            onChange={(v) => setFilter(v as Filter)}
            data={[
              { value: 'all', label: `All (${items.length})` },
              { value: 'ruled', label: `With a rule (${ruled})` },
            ]}
          />
          <ListCount shown={matching.length} total={items.length} filtered={filtered} testId="apps-count" />
        </Group>
        {matching.length ? (
          <Box>
            <Stack
              gap={0}
              component="ul"
              aria-label={`Apps on ${child.name}’s devices`}
              style={{ listStyle: 'none', margin: 0, padding: 0 }}
            >
              {shown.map((app, i) => (
                <ChildAppRow key={appKey(app)} app={app} state={state} first={i === 0} />
              ))}
            </Stack>
            {more}
          </Box>
        ) : filter === 'ruled' && !query.trim() ? (
          <Text size="sm" c="dimmed" ta="center" py="lg">
            No app has a rule yet.
          </Text>
        ) : (
          <NoMatches query={query} />
        )}
      </Stack>
    </Card>
  );
}

function NoApps({ child }: { child: ManagedUserView }) {
  const linked = child.mappings.length > 0;
  return (
    <Card withBorder radius="lg" py="xl">
      <EmptyState
        icon={linked ? <IconApps size={28} /> : <IconDevices size={28} />}
        variant="light"
        title={linked ? 'No apps reported yet' : 'No devices linked yet'}
        description={
          linked
            ? 'Apps appear when the Hearth agent on a device reports them. You can then allow, block or limit each one here.'
            : `Link an account on a device to ${child.name}; the apps on it then show here.`
        }
      >
        {linked ? null : (
          <EmptyState.Actions>
            <Button component={Link} to={`/children/${encodeURIComponent(child.id)}`}>
              Go to {child.name}’s page
            </Button>
          </EmptyState.Actions>
        )}
      </EmptyState>
    </Card>
  );
}

function ChildApps({ id }: { id: string }) {
  const user = useUser(id);
  const inventory = useChildInventory(id);
  const state = useAppPolicy(id);
  const child = user.data;
  const { reload: reloadInventory } = inventory;
  const { reload: reloadUser } = user;

  const items = useMemo(
    () => withRuledApps(inventory.data?.items ?? [], state.policy?.rules ?? []),
    [inventory.data, state.policy],
  );

  if (user.error?.code === 'not_found' || inventory.error?.code === 'not_found') {
    return <ChildNotFound />;
  }
  const loadError = user.error ?? inventory.error ?? state.loadError;
  const policy = state.policy;
  if (!child || !inventory.data || !policy) {
    return (
      <>
        <BackToChild id={id} name={child?.name} />
        {loadError ? (
          <ErrorAlert
            error={loadError}
            title="Could not load the apps"
            onRetry={() => {
              reloadUser();
              reloadInventory();
              state.reload();
            }}
          />
        ) : (
          <Stack gap="lg" aria-busy="true">
            <Skeleton h={48} w="40%" />
            <Skeleton h={140} radius="lg" />
            <Skeleton h={320} radius="lg" />
          </Stack>
        )}
      </>
    );
  }

  const empty = items.length === 0;
  return (
    <>
      <BackToChild id={id} name={child?.name} />
      <PageHeader
        title={`${child.name}’s apps`}
        leading={<ChildAvatar name={child.name} size="lg" />}
        description={`What is installed on ${child.name}’s devices, and which apps ${child.name} may use.`}
      />
      <Stack gap="lg">
        <StaleNotice error={loadError} />
        {state.conflict ? (
          <Alert
            variant="light"
            color="yellow"
            icon={<IconAlert />}
            title="These rules were changed somewhere else"
            role="alert"
          >
            <Stack gap="xs" align="flex-start">
              <Text size="sm">
                Another parent or another tab saved {child.name}’s app rules after this page loaded them, so
                your last choice was not saved. Reload the rules to see theirs, then choose again.
              </Text>
              <Button
                size="xs"
                variant="white"
                color="yellow.9"
                onClick={state.reload}
                leftSection={<IconRefresh size={14} />}
              >
                Reload rules
              </Button>
            </Stack>
          </Alert>
        ) : null}
        {empty ? (
          <NoApps child={child} />
        ) : (
          <>
            <PolicySyncCard policy={policy} childName={child.name} />
            <AppsList child={child} items={items} state={state} />
          </>
        )}
      </Stack>
    </>
  );
}

export function ChildAppsPage() {
  const { id = '' } = useParams();
  // A fresh component per child, so nothing from the previous child lingers while loading.
  return <ChildApps key={id} id={id} />;
}
