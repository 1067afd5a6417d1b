import { Component, type ReactNode, useEffect, useRef } from 'react';
import { FlowplaneApiError, NetworkError } from './api';
import { setToken } from './auth/session';
import { $t } from './i18n';

/** One refusal or failure, said plainly: 401 asks to sign in again, 403 names what is missing. */
export function ErrorNotice({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  if (!error) return null;
  let text: string;
  let action: ReactNode = null;
  if (error instanceof FlowplaneApiError && error.status === 401) {
    text = $t('error.unauthorized', 'Your sign-in is no longer valid. Sign in again.');
    action = (
      <button type="button" onClick={() => setToken(undefined)}>
        {$t('signIn.again', 'Sign in again')}
      </button>
    );
  } else if (error instanceof FlowplaneApiError && error.status === 403) {
    text = $t('error.forbidden', 'You may not do this: {reason}', { reason: error.message });
  } else if (error instanceof FlowplaneApiError) {
    text = error.requestId ? $t('error.api', '{message} (request {requestId})', { message: error.message, requestId: error.requestId }) : error.message;
  } else if (error instanceof NetworkError) {
    text = $t('error.network', 'The platform cannot be reached. Check the connection and retry.');
  } else {
    text = error instanceof Error ? error.message : String(error);
  }
  return (
    <div className="notice error" role="alert">
      <span>{text}</span> {action}
      {onRetry && !action ? (
        <button type="button" onClick={onRetry}>
          {$t('retry', 'Retry')}
        </button>
      ) : null}
    </div>
  );
}

/** The server's message for one named field of a 400 (`details[].field`), shown beside that field. */
export function fieldError(error: unknown, field: string): string | undefined {
  if (!(error instanceof FlowplaneApiError) || error.status !== 400) return undefined;
  const hit = error.details?.find((d) => d.field === field || d.field.endsWith(`.${field}`) || d.field.endsWith(`/${field}`));
  return hit ? hit.problems.join('; ') : undefined;
}

/** A page's main heading, focused when the page opens so screen readers announce it. */
export function PageTitle({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

/**
 * Keeps a page that fails to render or to load its code (an area's chunk gone after the console was
 * rebuilt or upgraded under an open tab) from leaving the screen on "Loading…": it says what
 * happened and offers a reload. Keyed by the area, so moving to another area starts afresh while
 * moving within one (the flows list and its search) keeps its state.
 */
export class AreaBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override render(): ReactNode {
    if (!this.state.failed) return this.props.children;
    return (
      <div role="alert" className="notice error">
        <p>{$t('page.failed', 'This page could not be loaded. The console may have been updated since you opened it.')}</p>
        <button type="button" onClick={() => location.reload()}>
          {$t('page.reload', 'Reload')}
        </button>
      </div>
    );
  }
}

export function Loading() {
  return (
    <p role="status" className="muted">
      {$t('loading', 'Loading…')}
    </p>
  );
}

/** A timestamp in the page's language (`<html lang>`, which follows the loaded catalog); a dash when there is none (`new Date(null)` would read as 1970). */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  try {
    return d.toLocaleString(document.documentElement.lang || undefined);
  } catch {
    return d.toLocaleString();
  }
}
