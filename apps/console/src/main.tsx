import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { takeTokenFromHash } from './auth/session';
import { loadConfig } from './config';
import { startI18n } from './i18n';
import './styles.css';

takeTokenFromHash();
const [config] = await Promise.all([loadConfig(), startI18n()]);
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App config={config} />
  </StrictMode>,
);
