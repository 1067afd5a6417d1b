import { QueryCache, QueryClient, QueryClientProvider, useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { ADMIN, can, fetchMe, FlowplaneApiError, isUnauthorized, type Me, NetworkError } from './api';
import { completeSignIn, CALLBACK_PATH, signInRedirect } from './auth/oidc';
import { currentToken, onTokenChange, setToken } from './auth/session';
import { decodeClaims, permissionsOf } from './lib/permissions';
import type { ConsoleConfig } from './config';
import { $t } from './i18n';
import { href, Link, RouterProvider, useRoute } from './router';
import { AreaBoundary, ErrorNotice, Loading, PageTitle } from './ui';
import { FlowsPage } from './pages/FlowsPage';
import { LanguagePicker } from './LanguagePicker';

// Areas past the landing page load on demand.
const FlowPage = lazy(() => import('./pages/FlowPage'));
const CanvasPage = lazy(() => import('./pages/CanvasPage'));
const RunsPage = lazy(() => import('./pages/RunsPage'));
const RunPage = lazy(() => import('./pages/RunsPage').then((m) => ({ default: m.RunPage })));
const DeploymentsArea = lazy(() => import('./pages/deployments/DeploymentsPage'));
const ProfilesArea = lazy(() => import('./pages/profiles/ProfilesPage'));
const CatalogArea = lazy(() => import('./pages/catalog/CatalogArea'));
const ContentArea = lazy(() => import('./pages/content/ContentArea'));
const AssistantArea = lazy(() => import('./pages/assistant/AssistantPage'));
const OperationsArea = lazy(() => import('./pages/operations/OperationsPage'));

/**
 * Whether the platform stopped answering: set when a request gets no answer at all (NetworkError),
 * cleared by the next answered one. While set, a banner shows and the page's queries are asked
 * again every few seconds.
 */
let unreachable = false;
const reachabilityListeners = new Set<() => void>();
function setUnreachable(v: boolean) {
  if (unreachable === v) return;
  unreachable = v;
  for (const l of reachabilityListeners) l();
}

const queryClient = new QueryClient({
  queryCache: new QueryCache({
    onError: (e) => {
      if (e instanceof NetworkError) setUnreachable(true);
    },
    onSuccess: () => setUnreachable(false),
  }),
  defaultOptions: {
    queries: {
      // A refused token or a missing permission does not get better by asking again.
      retry: (count, e) => !(e instanceof FlowplaneApiError && e.status < 500) && count < 3,
      refetchOnWindowFocus: false,
      staleTime: 10_000,
    },
  },
});

function useToken(): string | undefined {
  return useSyncExternalStore(onTokenChange, currentToken, () => undefined);
}

export function App({ config }: { config: ConsoleConfig }) {
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider>
        <Shell config={config} />
      </RouterProvider>
    </QueryClientProvider>
  );
}

function Shell({ config }: { config: ConsoleConfig }) {
  const token = useToken();
  const { route } = useRoute();
  const client = useQueryClient();
  const seen = useRef(token);
  useEffect(() => {
    // Another token means another caller: nothing cached for the last one may show.
    if (seen.current !== token) client.clear();
    seen.current = token;
  }, [token, client]);
  if (route.segments[0] === CALLBACK_PATH && config.oidc) return <OidcCallback config={config} />;
  if (!token) return <SignIn config={config} />;
  return <SignedIn config={config} />;
}

function OidcCallback({ config }: { config: ConsoleConfig }) {
  const { navigate } = useRoute();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    completeSignIn(config.oidc!).then((to) => navigate(to, true), setError);
  }, [config, navigate]);
  return <main id="main">{error ? <ErrorNotice error={error} /> : <Loading />}</main>;
}

function SignIn({ config }: { config: ConsoleConfig }) {
  const [value, setValue] = useState('');
  const [problem, setProblem] = useState<string>();
  return (
    <main id="main" className="sign-in">
      <PageTitle>{$t('signIn.title', 'Sign in to Flowplane')}</PageTitle>
      {config.oidc ? (
        <button type="button" className="primary" onClick={() => void signInRedirect(config.oidc!)}>
          {$t('signIn.oidc', 'Sign in with your identity provider')}
        </button>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const t = value.trim().replace(/^Bearer\s+/i, '');
            if (!/^[\w-]+\.[\w-]+\.[\w-]*$/.test(t)) {
              setProblem($t('signIn.notAToken', 'This is not a JSON Web Token (three dot-separated parts).'));
              return;
            }
            setToken(t);
          }}
        >
          <p>{$t('signIn.devHelp', 'Development sign-in: paste a bearer token, for example from npm run token -- --sub alice --perm admin:access.')}</p>
          <label htmlFor="token">{$t('signIn.token', 'Bearer token')}</label>
          <textarea id="token" rows={4} value={value} onChange={(e) => setValue(e.target.value)} aria-invalid={problem ? true : undefined} aria-describedby={problem ? 'token-error' : undefined} spellCheck={false} autoComplete="off" required />
          {problem ? (
            <p id="token-error" className="field-error">
              {problem}
            </p>
          ) : null}
          <button type="submit" className="primary">
            {$t('signIn.submit', 'Sign in')}
          </button>
        </form>
      )}
    </main>
  );
}

function SignedIn({ config }: { config: ConsoleConfig }) {
  const me = useQuery({ queryKey: ['me'], queryFn: fetchMe });
  const refused = isUnauthorized(me.error);
  useEffect(() => {
    // The token is no longer accepted: back to the sign-in.
    if (refused) setToken(undefined);
  }, [refused]);
  if (me.isPending || refused) return <Loading />;
  if (me.error) {
    return (
      <main id="main">
        <ErrorNotice error={me.error} onRetry={() => void me.refetch()} />
      </main>
    );
  }
  return <Layout me={me.data} config={config} />;
}

function Layout({ me, config }: { me: Me; config: ConsoleConfig }) {
  const { route } = useRoute();
  const area = route.segments[0] ?? 'flows';
  const admin = can(me, ADMIN);
  const offline = useOffline();
  return (
    <>
      <a className="skip" href="#main">
        {$t('skip', 'Skip to content')}
      </a>
      <header className="top">
        <span className="brand">Flowplane</span>
        {admin ? (
          <nav aria-label={$t('nav.label', 'Areas')}>
            <Link to={href(['flows'])} ariaCurrent={area === 'flows'}>
              {$t('nav.flows', 'Flows')}
            </Link>
            <Link to={href(['runs'])} ariaCurrent={area === 'runs' || area === 'run'}>
              {$t('nav.runs', 'Runs')}
            </Link>
            <Link to={href(['deployments'])} ariaCurrent={area === 'deployments'}>
              {$t('nav.deployments', 'Deployments')}
            </Link>
            {/* Settings need admin:access only; profiles also one of profiles:read|write|* (the page says which is missing). */}
            <Link to={href([me.superuser || me.perms.some((p) => p.startsWith('profiles:')) ? 'profiles' : 'settings'])} ariaCurrent={area === 'profiles' || area === 'settings'}>
              {$t('nav.profiles', 'Profiles & settings')}
            </Link>
            {/* The i18n admin routes (catalog, locales, content) need admin:access, as every area here. */}
            <Link to={href(['languages'])} ariaCurrent={area === 'languages'}>
              {$t('nav.languages', 'Languages')}
            </Link>
            <Link to={href(['content'])} ariaCurrent={area === 'content'}>
              {$t('nav.content', 'Content')}
            </Link>
            {/* The assistant's admin routes and the operators' views (health, scheduler, usage, outbox...) need admin:access. */}
            <Link to={href(['assistant'])} ariaCurrent={area === 'assistant'}>
              {$t('nav.assistant', 'Assistant')}
            </Link>
            <Link to={href(['operations'])} ariaCurrent={area === 'operations'}>
              {$t('nav.operations', 'Operations')}
            </Link>
          </nav>
        ) : null}
        <LanguagePicker />
        <span className="who">
          {me.sub}
          {me.superuser ? ` · ${$t('me.superuser', 'superuser')}` : ''}
        </span>
        <button type="button" onClick={() => setToken(undefined)}>
          {$t('signOut', 'Sign out')}
        </button>
      </header>
      {offline ? (
        <div className="notice warn" role="status">
          {$t('offline', 'Connection lost. Retrying when it is back…')}
        </div>
      ) : null}
      <main id="main">
        {!me.active || !admin ? <PageTitle>{$t('noAccess', 'No access')}</PageTitle> : null}
        {!me.active ? (
          <ErrorNotice error={new FlowplaneApiError({ status: 403, body: { statusCode: 403, error: 'Forbidden', code: 'FORBIDDEN', message: $t('me.inactive', 'your user is inactive'), requestId: '' } })} />
        ) : !admin ? (
          <>
            <ErrorNotice error={new FlowplaneApiError({ status: 403, body: { statusCode: 403, error: 'Forbidden', code: 'FORBIDDEN', message: $t('me.missing', 'missing permission: {perm}', { perm: ADMIN }), requestId: '' } })} />
            <ClaimHint config={config} />
          </>
        ) : (
          <AreaBoundary key={route.segments[0] || 'flows'}>
            <Suspense fallback={<Loading />}>
              <Area segments={route.segments} />
            </Suspense>
          </AreaBoundary>
        )}
      </main>
    </>
  );
}

function Area({ segments }: { segments: string[] }) {
  const [area, id, sub] = segments;
  if (area === 'runs') return <RunsPage flowId={id} />;
  if (area === 'run' && id) return <RunPage runId={id} />;
  if (area === 'deployments') return <DeploymentsArea id={id} />;
  if (area === 'profiles' || area === 'settings') return <ProfilesArea segments={segments} />;
  if (area === 'languages') return <CatalogArea section={id} />;
  if (area === 'content') return <ContentArea segments={segments} />;
  if (area === 'assistant') return <AssistantArea section={id} id={sub} />;
  if (area === 'operations') return <OperationsArea section={id} />;
  if (area === 'flows' && id && sub === 'canvas') return <CanvasPage flowId={id} />;
  if (area === 'flows' && id) return <FlowPage flowId={id} />;
  return <FlowsPage />;
}

/**
 * True while the browser says it is offline or the platform stopped answering. TanStack Query
 * refetches by itself when the browser is back online; an unreachable platform is asked again
 * every 5 s (the active queries only) until it answers.
 */
function useOffline(): boolean {
  const client = useQueryClient();
  const offline = useSyncExternalStore(
    (cb) => {
      addEventListener('online', cb);
      addEventListener('offline', cb);
      reachabilityListeners.add(cb);
      return () => {
        removeEventListener('online', cb);
        removeEventListener('offline', cb);
        reachabilityListeners.delete(cb);
      };
    },
    () => !navigator.onLine || unreachable,
  );
  useEffect(() => {
    if (!offline) return;
    const timer = setInterval(() => void client.refetchQueries({ type: 'active' }), 5000);
    return () => clearInterval(timer);
  }, [offline, client]);
  return offline;
}


/**
 * With OIDC, a token whose configured permissions claim grants admin:access while the gateway
 * (which reads `perms`) does not: says so, since the fix is in the identity provider's mapping.
 */
function ClaimHint({ config }: { config: ConsoleConfig }) {
  const claim = config.oidc?.permissionsClaim;
  const token = currentToken();
  if (!claim || claim === 'perms' || !token) return null;
  const granted = permissionsOf(decodeClaims(token) ?? {}, claim);
  if (!granted.includes(ADMIN)) return null;
  return <p className="notice warn">{$t('me.claimHint', 'Your identity provider grants {perm} in the claim {claim}, but the platform reads permissions from the claim perms: map them there.', { perm: ADMIN, claim })}</p>;
}
