import { useCallback, useEffect, useMemo, useState } from 'react';
import { ApiError, messageOf } from '../../api/client';
import { type AppPolicy, type AppRule, appKey, inventoryPaths, savePolicy } from '../../api/inventory';
import { useLiveEvent, useLiveRefresh } from '../../api/live';
import { useApi } from '../../api/use-api';

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

/**
 * A child's app rules: reading them, changing one app's rule at a time (a PUT of the whole list with
 * the version read), and following each device's sync state until the devices have them.
 */
export function useAppPolicy(childId: string): AppPolicyState {
  const fetched = useApi<AppPolicy>(inventoryPaths.policy(childId));
  const { reload: refetch } = fetched;
  const [saved, setSaved] = useState<AppPolicy | null>(null);
  const [saving, setSaving] = useState<string | null>(null);
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

  useLiveEvent(['device_status'], (data) => {
    if (typeof data.system_id === 'string' && devices.has(data.system_id)) {
      setWatching(Date.now());
      refetch();
    }
  });
  useLiveRefresh([], refetch);

  useEffect(() => {
    if (!watching || !waiting) return;
    const poll = window.setInterval(refetch, POLL_MS);
    const stop = window.setTimeout(() => setWatching(0), Math.max(0, watching + WATCH_MS - Date.now()));
    return () => {
      window.clearInterval(poll);
      window.clearTimeout(stop);
    };
  }, [watching, waiting, refetch]);

  const choose = useCallback(
    async (app: RuleTarget, choice: RuleChoice): Promise<boolean> => {
      if (!policy || saving || conflict) return false;
      const key = appKey(app);
      const next: AppRule[] = policy.rules.filter((r) => appKey(r) !== key);
      if (choice) {
        next.push({
          identifier: app.identifier,
          match_type: app.match_type,
          action: choice.action,
          ...(choice.action === 'limit' ? { daily_minutes: choice.daily_minutes } : {}),
          application_name: app.application_name.slice(0, 256),
        });
      }
      setSaving(key);
      setFailure(null);
      try {
        const view = await savePolicy(childId, next, policy.version);
        setSaved(view);
        setLastSaved({ key, policy: view });
        setWatching(Date.now());
        return true;
      } catch (err) {
        if (err instanceof ApiError && err.status === 409) {
          setConflict(true);
        } else {
          setFailure({ key, message: messageOf(err) });
        }
        return false;
      } finally {
        setSaving(null);
      }
    },
    [childId, policy, saving, conflict],
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
