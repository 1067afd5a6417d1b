import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api';
import { $t } from '../../i18n';
import { ErrorNotice, fieldError, Loading, PageTitle } from '../../ui';
import { CatalogTabs, type LocaleView, useLocales } from './shared';

/** The locale registry: URL code, BCP 47 language tag, name, active flag. */
export default function LocalesPage() {
  const locales = useLocales();
  return (
    <>
      <PageTitle>{$t('catalog.locales.title', 'Locales')}</PageTitle>
      <CatalogTabs current="locales" />
      <AddLocale />
      {locales.isPending ? <Loading /> : null}
      <ErrorNotice error={locales.error} onRetry={() => void locales.refetch()} />
      {locales.data ? (
        <table>
          <thead>
            <tr>
              <th scope="col">{$t('catalog.locales.code', 'Code (in URLs)')}</th>
              <th scope="col">{$t('catalog.locales.tag', 'Language tag')}</th>
              <th scope="col">{$t('catalog.locales.name', 'Name')}</th>
              <th scope="col">{$t('catalog.locales.status', 'Status')}</th>
              <th scope="col">{$t('catalog.actions', 'Actions')}</th>
            </tr>
          </thead>
          <tbody>
            {locales.data.map((l) => (
              <LocaleRow key={l.code} locale={l} />
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

function roles(l: LocaleView): string {
  const r: string[] = [l.active ? $t('catalog.locales.active', 'active') : $t('catalog.locales.inactive', 'inactive')];
  if (l.isDefault) r.push($t('catalog.locales.default', 'default'));
  if (l.isFallback) r.push($t('catalog.locales.fallback', 'fallback'));
  if (l.isSource) r.push($t('catalog.locales.source', 'source'));
  return r.join(' · ');
}

function LocaleRow({ locale }: { locale: LocaleView }) {
  const client = useQueryClient();
  const [editing, setEditing] = useState(false);
  const update = useMutation({
    mutationFn: async (body: { language?: string | null; name?: string; active?: boolean }) => unwrap(await api.i18n.PUT('/api/v1/admin/i18n/locales/{code}', { params: { path: { code: locale.code } }, body: body as never })),
    onSuccess: () => {
      setEditing(false);
      void client.invalidateQueries({ queryKey: ['i18n'] });
    },
  });
  const id = `loc-${locale.code}`;
  if (editing) {
    const langError = fieldError(update.error, 'language');
    return (
      <tr>
        <th scope="row" id={id}>
          <code>{locale.code}</code>
        </th>
        <td colSpan={4}>
          <form
            className="row"
            aria-labelledby={id}
            onSubmit={(e) => {
              e.preventDefault();
              const f = new FormData(e.currentTarget);
              const language = String(f.get('language') ?? '').trim();
              update.mutate({ language: language || null, name: String(f.get('name') ?? '').trim(), active: f.get('active') === 'on' });
            }}
          >
            <label htmlFor={`${id}-lang`}>{$t('catalog.locales.tag', 'Language tag')}</label>
            <input id={`${id}-lang`} name="language" defaultValue={locale.language ?? ''} placeholder={locale.languageTag} size={10} aria-invalid={langError ? true : undefined} aria-describedby={langError ? `${id}-lang-error` : undefined} />
            {langError ? (
              <span id={`${id}-lang-error`} className="field-error">
                {langError}
              </span>
            ) : null}
            <label htmlFor={`${id}-name`}>{$t('catalog.locales.name', 'Name')}</label>
            <input id={`${id}-name`} name="name" defaultValue={locale.name ?? ''} />
            <input id={`${id}-active`} name="active" type="checkbox" defaultChecked={locale.active} />
            <label htmlFor={`${id}-active`}>{$t('catalog.locales.active', 'active')}</label>
            <button type="submit" className="primary" disabled={update.isPending}>
              {$t('catalog.save', 'Save')}
            </button>
            <button type="button" onClick={() => setEditing(false)}>
              {$t('catalog.cancel', 'Cancel')}
            </button>
            {!langError ? <ErrorNotice error={update.error} /> : null}
          </form>
        </td>
      </tr>
    );
  }
  return (
    <tr>
      <th scope="row" id={id}>
        <code>{locale.code}</code>
      </th>
      <td>
        <code>{locale.languageTag}</code>
      </td>
      <td lang={locale.languageTag}>{locale.name}</td>
      <td>{roles(locale)}</td>
      <td>
        <div className="row">
          <button type="button" onClick={() => setEditing(true)} aria-describedby={id}>
            {$t('catalog.edit', 'Edit')}
          </button>
          <button type="button" aria-describedby={id} disabled={update.isPending} onClick={() => update.mutate({ active: !locale.active })}>
            {locale.active ? $t('catalog.locales.deactivate', 'Deactivate') : $t('catalog.locales.activate', 'Activate')}
          </button>
        </div>
        <ErrorNotice error={update.error} />
      </td>
    </tr>
  );
}

function AddLocale() {
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const create = useMutation({
    mutationFn: async (body: { code: string; language?: string; name?: string; active: boolean }) => unwrap(await api.i18n.POST('/api/v1/admin/i18n/locales', { body })),
    onSuccess: () => {
      setOpen(false);
      void client.invalidateQueries({ queryKey: ['i18n'] });
    },
  });
  if (!open)
    return (
      <button type="button" className="primary" onClick={() => setOpen(true)}>
        {$t('catalog.locales.add', 'Add a locale')}
      </button>
    );
  const codeError = fieldError(create.error, 'code');
  const langError = fieldError(create.error, 'language');
  return (
    <form
      className="card"
      aria-labelledby="add-locale-title"
      onSubmit={(e) => {
        e.preventDefault();
        const f = new FormData(e.currentTarget);
        const language = String(f.get('language') ?? '').trim();
        const name = String(f.get('name') ?? '').trim();
        create.mutate({ code: String(f.get('code') ?? '').trim(), active: f.get('active') === 'on', ...(language ? { language } : {}), ...(name ? { name } : {}) });
      }}
    >
      <h2 id="add-locale-title">{$t('catalog.locales.add', 'Add a locale')}</h2>
      <label htmlFor="nl-code">{$t('catalog.locales.code', 'Code (in URLs)')}</label>
      <input id="nl-code" name="code" required pattern="[A-Za-z0-9_\-]{2,35}" aria-invalid={codeError ? true : undefined} aria-describedby={codeError ? 'nl-code-error' : undefined} />
      {codeError ? <p id="nl-code-error" className="field-error">{codeError}</p> : null}
      <label htmlFor="nl-lang">{$t('catalog.locales.tagOptional', 'Language tag (BCP 47, optional)')}</label>
      <input id="nl-lang" name="language" aria-invalid={langError ? true : undefined} aria-describedby={langError ? 'nl-lang-error' : undefined} />
      {langError ? <p id="nl-lang-error" className="field-error">{langError}</p> : null}
      <label htmlFor="nl-name">{$t('catalog.locales.name', 'Name')}</label>
      <input id="nl-name" name="name" />
      <div className="row">
        <input id="nl-active" name="active" type="checkbox" defaultChecked />
        <label htmlFor="nl-active">{$t('catalog.locales.active', 'active')}</label>
      </div>
      {create.error && !codeError && !langError ? <ErrorNotice error={create.error} /> : null}
      <div className="row">
        <button type="submit" className="primary" disabled={create.isPending}>
          {$t('catalog.create', 'Create')}
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          {$t('catalog.cancel', 'Cancel')}
        </button>
      </div>
    </form>
  );
}
