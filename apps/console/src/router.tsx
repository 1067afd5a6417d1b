import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';

/**
 * History routing under the console's base (`/console/flows/hello`): addresses are plain paths the
 * user can bookmark and share, and the gateway answers every unknown path under /console/ with
 * index.html (SPA fallback), as Vite's dev server does.
 */
const BASE = import.meta.env.BASE_URL.replace(/\/$/, '');

export interface Route {
  /** Path segments after the base, decoded (`/console/flows/a%2Fb` → ['flows', 'a/b']). */
  segments: string[];
  query: URLSearchParams;
}

function current(): Route {
  const rest = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  const segments = rest
    .split('/')
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
  return { segments, query: new URLSearchParams(location.search) };
}

/** The address of a console path given as segments (each encoded) and a query. */
export function href(segments: string[], query?: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') q.set(k, v);
  const qs = q.toString();
  return `${BASE}/${segments.map(encodeURIComponent).join('/')}${qs ? `?${qs}` : ''}`;
}

const RouterContext = createContext<{ route: Route; navigate: (to: string, replace?: boolean) => void }>({ route: current(), navigate: () => undefined });

export function RouterProvider({ children }: { children: ReactNode }) {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const onPop = () => setRoute(current());
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);
  const navigate = useCallback((to: string, replace = false) => {
    if (replace) history.replaceState(null, '', to);
    else history.pushState(null, '', to);
    setRoute(current());
    scrollTo(0, 0);
  }, []);
  const value = useMemo(() => ({ route, navigate }), [route, navigate]);
  return <RouterContext.Provider value={value}>{children}</RouterContext.Provider>;
}

export function useRoute() {
  return useContext(RouterContext);
}

/** An in-app link: a real <a href> (middle-click and copy work) that navigates without a reload. */
export function Link({ to, children, className, ariaCurrent }: { to: string; children: ReactNode; className?: string; ariaCurrent?: boolean }) {
  const { navigate } = useRoute();
  return (
    <a
      href={to}
      className={className}
      aria-current={ariaCurrent ? 'page' : undefined}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
