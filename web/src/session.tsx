import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import {
  ApiError,
  api,
  messageOf,
  setCsrfToken,
  setUnauthenticatedHandler,
  UNREACHABLE_MESSAGE,
} from './api/client';
import type { SessionView, SetupState } from './api/types';

export type LoadState = { status: 'loading' } | { status: 'failed'; message: string } | { status: 'ready' };

interface SessionContextValue {
  load: LoadState;
  setup: SetupState | null;
  session: SessionView | null;
  isAdmin: boolean;
  /** Stores a session answered by setup, sign-up or sign-in. */
  signedIn(session: SessionView): void;
  signOut(): Promise<void>;
  /** Reads the session again, after the parent changed their own role. */
  refresh(): Promise<void>;
  retry(): void;
}

const SessionContext = createContext<SessionContextValue | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [load, setLoad] = useState<LoadState>({ status: 'loading' });
  const [setup, setSetup] = useState<SetupState | null>(null);
  const [session, setSession] = useState<SessionView | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    // `attempt` only re-runs the start-up probe when the parent presses "Try again".
    void attempt;
    let cancelled = false;
    (async () => {
      try {
        const state = await api.get<SetupState>('/api/setup');
        let current: SessionView | null = null;
        if (!state.setup_required) {
          try {
            current = await api.get<SessionView>('/api/session', { quiet401: true });
          } catch (err) {
            if (!(err instanceof ApiError && err.status === 401)) throw err;
          }
        }
        if (cancelled) return;
        setCsrfToken(current?.csrf_token ?? null);
        setSetup(state);
        setSession(current);
        setLoad({ status: 'ready' });
      } catch (err) {
        if (cancelled) return;
        setLoad({ status: 'failed', message: err instanceof ApiError ? err.message : UNREACHABLE_MESSAGE });
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [attempt]);

  useEffect(() => {
    setUnauthenticatedHandler(() => {
      setCsrfToken(null);
      setSession(null);
    });
    return () => setUnauthenticatedHandler(null);
  }, []);

  const signedIn = useCallback((next: SessionView) => {
    setCsrfToken(next.csrf_token);
    setSession(next);
    setSetup((state) => (state ? { ...state, setup_required: false } : state));
  }, []);

  const signOut = useCallback(async () => {
    try {
      await api.delete('/api/session', { quiet401: true });
    } catch (err) {
      // Already signed out elsewhere is still signed out; anything else is worth saying.
      if (!(err instanceof ApiError && err.status === 401)) throw new Error(messageOf(err));
    }
    setCsrfToken(null);
    setSession(null);
  }, []);

  const refresh = useCallback(async () => {
    const next = await api.get<SessionView>('/api/session');
    setCsrfToken(next.csrf_token);
    setSession(next);
  }, []);

  const retry = useCallback(() => {
    setLoad({ status: 'loading' });
    setAttempt((n) => n + 1);
  }, []);

  const value = useMemo<SessionContextValue>(
    () => ({
      load,
      setup,
      session,
      isAdmin: session?.role === 'owner' || session?.role === 'admin',
      signedIn,
      signOut,
      refresh,
      retry,
    }),
    [load, setup, session, signedIn, signOut, refresh, retry],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionContextValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession must be used inside <SessionProvider>');
  return value;
}

/** The signed-in session; only for pages behind the sign-in guard. */
export function useSignedIn(): SessionView {
  const { session } = useSession();
  if (!session) throw new Error('useSignedIn must be used behind the sign-in guard');
  return session;
}
