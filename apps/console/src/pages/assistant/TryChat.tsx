import { useEffect, useState } from 'react';
import { $t } from '../../i18n';
import { ErrorNotice, Loading, PageTitle } from '../../ui';

declare module 'react' {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace JSX {
    interface IntrinsicElements {
      'flowplane-chat': { title?: string; lang?: string; open?: boolean; placeholder?: string; 'api-base'?: string; class?: string };
    }
  }
}

/** Where the gateway serves the chat widget (README "Embedding the chat"): same origin, so the console CSP ('self') allows it. */
const WIDGET = '/widget/flowplane-chat.js';

/** The live assistant, through the same <flowplane-chat> web component sites embed. */
export function TryChatPage() {
  const [state, setState] = useState<'loading' | 'ready' | Error>('loading');
  useEffect(() => {
    let live = true;
    if (customElements.get('flowplane-chat')) setState('ready');
    else
      import(/* @vite-ignore */ WIDGET).then(
        () => live && setState('ready'),
        (e: unknown) => live && setState(e instanceof Error ? e : new Error(String(e))),
      );
    return () => {
      live = false;
    };
  }, []);
  return (
    <>
      <PageTitle>{$t('assistant.try.title', 'Try the assistant')}</PageTitle>
      <p className="muted">{$t('assistant.try.help', 'The published assistant as visitors see it: messages here are real chats and appear in the list of chats.')}</p>
      {state === 'loading' ? <Loading /> : null}
      {state instanceof Error ? <ErrorNotice error={new Error($t('assistant.try.failed', 'The chat widget could not be loaded: {reason}', { reason: state.message }))} /> : null}
      {state === 'ready' ? (
        <div className="try-chat">
          <flowplane-chat open title={$t('assistant.try.chatTitle', 'Assistant preview')} lang={document.documentElement.lang || 'en'} />
        </div>
      ) : null}
    </>
  );
}
