import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { takeTokenFromHash } from './auth/session';
import { loadConfig } from './config';
import { startI18n } from './i18n';
import './styles.css';

// No top-level await: the entry chunk is imported back by the chunks of lazy pages, and a pending
// top-level await in it would hold them (and so the first render) forever.
async function boot(): Promise<void> {
  takeTokenFromHash();
  const [config] = await Promise.all([loadConfig(), startI18n()]);
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App config={config} />
    </StrictMode>,
  );
}

void boot();
