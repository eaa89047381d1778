/**
 * The session: the current user (`/api/me`) and the public settings. Renders the login page
 * while there is no valid token (see App.tsx); a 401 anywhere drops back to it.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, getToken, setToken, UNAUTHORIZED_EVENT } from './api.js';
import type { User } from './types.js';

export type { PublicSettings } from './types.js';
import type { PublicSettings } from './types.js';

export interface Session {
  status: 'loading' | 'anonymous' | 'ready';
  me: User | null;
  settings: PublicSettings;
  isAdmin: boolean;
  /** Stores a fresh token and loads the user. */
  signIn(token: string): Promise<void>;
  /** Revokes the token (best effort) and returns to the login page. */
  signOut(): Promise<void>;
  refreshMe(): Promise<void>;
  refreshSettings(): Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside <SessionProvider>');
  return s;
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const [status, setStatus] = useState<Session['status']>(getToken() ? 'loading' : 'anonymous');
  const [me, setMe] = useState<User | null>(null);
  const [settings, setSettings] = useState<PublicSettings>({});

  const refreshSettings = useCallback(async () => {
    try {
      setSettings(await api.get<PublicSettings>('/api/public/settings', undefined, { auth: false }));
    } catch {
      // The login page still works without them.
    }
  }, []);

  const refreshMe = useCallback(async () => {
    if (!getToken()) {
      setMe(null);
      setStatus('anonymous');
      return;
    }
    try {
      const user = await api.get<User>('/api/me');
      setMe(user);
      setStatus('ready');
    } catch {
      setToken(null);
      setMe(null);
      setStatus('anonymous');
    }
  }, []);

  useEffect(() => {
    void refreshSettings();
    void refreshMe();
    const onLost = () => {
      setMe(null);
      setStatus('anonymous');
    };
    window.addEventListener(UNAUTHORIZED_EVENT, onLost);
    return () => window.removeEventListener(UNAUTHORIZED_EVENT, onLost);
  }, [refreshMe, refreshSettings]);

  useEffect(() => {
    const title = settings.site_title || 'Ferry';
    document.title = title;
  }, [settings.site_title]);

  const signIn = useCallback(
    async (token: string) => {
      setToken(token);
      setStatus('loading');
      await refreshMe();
    },
    [refreshMe],
  );

  const signOut = useCallback(async () => {
    try {
      if (getToken()) await api.get('/api/auth/logout');
    } catch {
      // The token is dropped locally either way.
    }
    setToken(null);
    setMe(null);
    setStatus('anonymous');
  }, []);

  const value = useMemo<Session>(
    () => ({ status, me, settings, isAdmin: me?.role === 2, signIn, signOut, refreshMe, refreshSettings }),
    [status, me, settings, signIn, signOut, refreshMe, refreshSettings],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}
