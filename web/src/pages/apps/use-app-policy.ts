import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { ApiError, messageOf } from '../../api/client';
import { type AppPolicy, type AppRule, appKey, savePolicy, useAppPolicyQuery } from '../../api/inventory';
import { keys } from '../../api/keys';
import { useLiveEvent } from '../../api/live';

/** An app a rule can be about. */
export interface RuleTarget {
  identifier: string;
  match_type: AppRule['match_type'];
  application_name: string;
}

/** The rule to keep for an app, or null for none. */
export type RuleChoice = Pick<AppRule, 'action' | 'daily_minutes'> | null;

export interface SaveResult {
  key: string;
  policy: AppPolicy;
}

export interface AppPolicyState {
  policy: AppPolicy | undefined;
  rules: Map<string, AppRule>;
  loadError: ApiError | null;
  /** The key of the app whose rule is being saved. */
  saving: string | null;
  /** Someone saved other rules meanwhile; nothing more is saved until the parent reloads them. */
  conflict: boolean;
  failure: { key: string; message: string } | null;
  lastSaved: SaveResult | null;
  choose(app: RuleTarget, choice: RuleChoice): Promise<boolean>;
  reload(): void;
}

/** While a device still waits for the rules, they are asked for again this often… */
const POLL_MS = 3_000;
/** …for this long after a save or a device coming online; the live stream covers the rest. */
const WATCH_MS = 60_000;

/** The rules with `app`'s replaced by `choice` (or removed for none). */
function nextRules(policy: AppPolicy, app: RuleTarget, choice: RuleChoice): AppRule[] {
  const others = policy.rules.filter((r) => appKey(r) !== appKey(app));
  if (!choice) return others;
  return [
    ...others,
    {
      identifier: app.identifier,
      match_type: app.match_type,
      action: choice.action,
      ...(choice.action === 'limit' ? { daily_minutes: choice.daily_minutes } : {}),
      application_name: app.application_name.slice(0, 256),
    },
  ];
}

interface Change {
  app: RuleTarget;
  choice: RuleChoice;
  policy: AppPolicy;
}

/**
 * A child's app rules: reading them, changing one app's rule at a time (a PUT of the whole list with
 * the version read, shown at once and put back if refused), and following each device's sync state
 * until the devices have them.
 */
export function useAppPolicy(childId: string): AppPolicyState {
  const cache = useQueryClient();
  const fetched = useAppPolicyQuery(childId);
  const { reload: refetch } = fetched;
  const [saved, setSaved] = useState<AppPolicy | null>(null);
  const [conflict, setConflict] = useState(false);
  const [failure, setFailure] = useState<AppPolicyState['failure']>(null);
  const [lastSaved, setLastSaved] = useState<SaveResult | null>(null);
  const [watching, setWatching] = useState(0);

  // A read that left before a save came back would show the old rules; the newer version wins, and at
  // the same version the later read (newer sync states) does.
  const fetchedData = fetched.data;
  const policy = !saved
    ? fetchedData
    : !fetchedData || saved.version > fetchedData.version
      ? saved
      : fetchedData;
  const rules = useMemo(() => new Map((policy?.rules ?? []).map((r) => [appKey(r), r])), [policy]);

  const devices = useMemo(() => new Set(policy?.sync.map((s) => s.system_id)), [policy]);
  const waiting = policy?.sync.some((s) => s.status === 'pending') ?? false;

  // The live table refreshes the rules on a device's news; a device coming online starts watching.
  useLiveEvent(['device_status'], ({ system_id }) => {
    if (devices.has(system_id)) setWatching(Date.now());
  });

  useEffect(() => {
    if (!watching || !waiting) return;
    const poll = window.setInterval(refetch, POLL_MS);
    const stop = window.setTimeout(() => setWatching(0), Math.max(0, watching + WATCH_MS - Date.now()));
    return () => {
      window.clearInterval(poll);
      window.clearTimeout(stop);
    };
  }, [watching, waiting, refetch]);

  const key = keys.appPolicy(childId);
  const save = useMutation<AppPolicy, ApiError, Change, AppPolicy | undefined>({
    mutationFn: ({ app, choice, policy: read }) =>
      savePolicy(childId, nextRules(read, app, choice), read.version),
    onMutate: async ({ app, choice, policy: read }) => {
      await cache.cancelQueries({ queryKey: key });
      const before = cache.getQueryData<AppPolicy>(key);
      const rulesShown = nextRules(read, app, choice);
      // Same version as the rules read, so it wins over an older save until the answer lands.
      cache.setQueryData<AppPolicy>(key, { ...read, rules: rulesShown });
      return before;
    },
    onError: (_err, _change, before) => {
      cache.setQueryData(key, before);
    },
    onSuccess: (view) => {
      cache.setQueryData(key, view);
      setSaved(view);
      setWatching(Date.now());
    },
  });
  const saving = save.isPending ? appKey(save.variables.app) : null;

  const { mutateAsync } = save;
  const choose = useCallback(
    async (app: RuleTarget, choice: RuleChoice): Promise<boolean> => {
      if (!policy || saving || conflict) return false;
      const ruleKey = appKey(app);
      setFailure(null);
      try {
        const view = await mutateAsync({ app, choice, policy });
        setLastSaved({ key: ruleKey, policy: view });
        return true;
      } catch (err) {
        if (err instanceof ApiError && err.status === 409) {
          setConflict(true);
        } else {
          setFailure({ key: ruleKey, message: messageOf(err) });
        }
        return false;
      }
    },
    [policy, saving, conflict, mutateAsync],
  );

  const reload = useCallback(() => {
    setConflict(false);
    setFailure(null);
    refetch();
  }, [refetch]);

  return {
    policy,
    rules,
    loadError: fetched.error,
    saving,
    conflict,
    failure,
    lastSaved,
    choose,
    reload,
  };
}
