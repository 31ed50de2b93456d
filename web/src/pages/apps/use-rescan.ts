import { useCallback, useEffect, useState } from 'react';
import { messageOf } from '../../api/client';
import { type DeviceInventory, requestRescan } from '../../api/inventory';

/**
 * Where a "Rescan now" stands: `asking` while Hearth asks the agent; `waiting` once the agent has
 * the request; `offline` when the request waits for the device to reconnect; `quiet` when the device
 * took the request but sent no different list for a while (an unchanged list is not reported
 * again); `done` once a newer report has landed.
 */
export type RescanPhase = 'idle' | 'asking' | 'waiting' | 'offline' | 'quiet' | 'done';

export interface Rescan {
  phase: RescanPhase;
  failure: string | null;
  start(): void;
}

/** While the agent is at work, the list is asked for again this often, besides the live event. */
const POLL_MS = 5_000;
/** After this long without a newer report, the page stops saying it is waiting. */
const QUIET_AFTER_MS = 60_000;

const stampOf = (data: DeviceInventory | undefined) =>
  data ? `${data.reported_at ?? ''}|${data.report_hash ?? ''}` : null;

/**
 * Asks the device to list its apps again and follows it until a newer report arrives (the
 * inventory's time or hash changes), whichever way that news comes: the live event, the poll here,
 * or any other reload.
 */
export function useRescan(systemId: string, data: DeviceInventory | undefined, reload: () => void): Rescan {
  const [phase, setPhase] = useState<RescanPhase>('idle');
  const [baseline, setBaseline] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const stamp = stampOf(data);

  const following = phase === 'asking' || phase === 'waiting' || phase === 'offline' || phase === 'quiet';
  useEffect(() => {
    if (following && stamp !== null && stamp !== baseline) setPhase('done');
  }, [following, stamp, baseline]);

  useEffect(() => {
    if (phase !== 'waiting') return;
    const poll = window.setInterval(reload, POLL_MS);
    const quiet = window.setTimeout(() => setPhase((p) => (p === 'waiting' ? 'quiet' : p)), QUIET_AFTER_MS);
    return () => {
      window.clearInterval(poll);
      window.clearTimeout(quiet);
    };
  }, [phase, reload]);

  const start = useCallback(() => {
    setBaseline(stamp);
    setFailure(null);
    setPhase('asking');
    requestRescan(systemId)
      .then((outcome) => setPhase((p) => (p === 'asking' ? (outcome.delivered ? 'waiting' : 'offline') : p)))
      .catch((err: unknown) => {
        setFailure(messageOf(err));
        setPhase('idle');
      });
  }, [systemId, stamp]);

  return { phase, failure, start };
}
