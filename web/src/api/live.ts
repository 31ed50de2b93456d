import { useEffect, useRef } from 'react';

/** Kinds of change a page can follow; they are the event names of GET /api/dashboard/events. */
export type LiveKind = 'device_pending' | 'device_status';

export const LIVE_REFRESH_MS = 5000;

/**
 * Calls `refresh` whenever something of the given kinds may have changed, so the page stays current
 * without a reload. Until the server's event stream is there this asks every 5 seconds while the tab
 * is visible, and at once when it becomes visible again; moving to the stream changes only this hook.
 */
export function useLiveRefresh(kinds: readonly LiveKind[], refresh: () => void): void {
  const latest = useRef(refresh);
  useEffect(() => {
    latest.current = refresh;
  }, [refresh]);

  // The kinds decide what to listen to once events arrive; today every kind is polled alike.
  const topic = kinds.join(' ');
  useEffect(() => {
    if (!topic) return;
    const tick = () => {
      if (document.visibilityState === 'visible') latest.current();
    };
    const timer = window.setInterval(tick, LIVE_REFRESH_MS);
    document.addEventListener('visibilitychange', tick);
    return () => {
      window.clearInterval(timer);
      document.removeEventListener('visibilitychange', tick);
    };
  }, [topic]);
}
