import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { api, fetchMe, type Me, unwrap } from '../../api';
import { $t, activeLocales } from '../../i18n';
import { copyId, type FieldDef, type FieldValue, fromFormState, holdsAny, isSecret, type LocaleRow, localePatch, localeRows, PROFILES_READ, PROFILES_WRITE, secretsToReenter, toFormState } from '../../lib/profiles-form';
import { href, Link, useRoute } from '../../router';
import { ErrorNotice, fieldError, formatTime, Loading, PageTitle } from '../../ui';
import { FieldControl } from './fields';

type Kind = { id: string; module: string; name: string; description?: string; fields: Array<FieldDef & { overridable?: boolean; setting_ref?: string; optionsUnavailableReason?: string }> };
type Profile = { module: string; kind: string; profileId: string; name: string; description?: string; config: Record<string, unknown>; secretsSet: string[]; createdAt: string; updatedAt: string };
type SettingField = FieldDef & { public: boolean; sensitive: boolean; localized: boolean; value: unknown; source: 'stored' | 'env' | 'default' | 'unset'; localeSources?: Record<string, 'stored' | 'env' | 'default'> };
type ModuleSettings = { module: string; label?: string; sourceLocale: string; fields: SettingField[]; secretsSet: string[] };

const listKinds = async () => unwrap(await api.profiles.GET('/api/v1/admin/profiles/kinds')) as unknown as Kind[];

/**
 * Profiles and module settings: `profiles` (kinds with their profiles), `profiles/<module>/<kind>`
 * (a new profile), `profiles/<module>/<kind>/<id>` (one profile), `settings` and `settings/<module>`.
 */
export default function ProfilesArea({ segments }: { segments: string[] }) {
  const me = useQuery({ queryKey: ['me'], queryFn: fetchMe });
  const [area, module, kind, id] = segments;
  return (
    <>
      <nav className="row tabs" aria-label={$t('profiles.sections', 'Profiles and settings')}>
        <Link to={href(['profiles'])} ariaCurrent={area === 'profiles'}>
          {$t('profiles.title', 'Profiles')}
        </Link>
        <Link to={href(['settings'])} ariaCurrent={area === 'settings'}>
          {$t('settings.title', 'Module settings')}
        </Link>
      </nav>
      {area === 'settings' ? module ? <ModuleSettingsPage module={module} /> : <SettingsModules /> : <ProfilesPart me={me.data} module={module} kind={kind} id={id} />}
    </>
  );
}

function ProfilesPart({ me, module, kind, id }: { me: Me | undefined; module?: string; kind?: string; id?: string }) {
  if (me && !holdsAny(me, PROFILES_READ)) {
    return (
      <>
        <PageTitle>{$t('profiles.title', 'Profiles')}</PageTitle>
        <p className="notice error" role="alert">
          {$t('profiles.missingPerm', 'You may not see profiles: missing one of the permissions {perms}.', { perms: PROFILES_READ.join(', ') })}
        </p>
      </>
    );
  }
  const writable = holdsAny(me, PROFILES_WRITE);
  if (module && kind) return <ProfilePage module={module} kind={kind} id={id} writable={writable} />;
  return <ProfilesList writable={writable} />;
}

function ProfilesList({ writable }: { writable: boolean }) {
  const kinds = useQuery({ queryKey: ['profile-kinds'], queryFn: listKinds });
  const profiles = useQuery({ queryKey: ['profiles'], queryFn: async () => unwrap(await api.profiles.GET('/api/v1/admin/profiles')) as unknown as Profile[] });
  return (
    <>
      <PageTitle>{$t('profiles.title', 'Profiles')}</PageTitle>
      <p className="muted">{$t('profiles.help', 'A profile is a named bundle of node settings of one kind (for example a provider, its key and model), merged under a node’s own settings at run time.')}</p>
      {kinds.isPending || profiles.isPending ? <Loading /> : null}
      <ErrorNotice error={kinds.error ?? profiles.error} onRetry={() => void Promise.all([kinds.refetch(), profiles.refetch()])} />
      {(kinds.data ?? []).map((k) => {
        const mine = (profiles.data ?? []).filter((p) => p.module === k.module && p.kind === k.id);
        return (
          <section key={`${k.module}/${k.id}`} className="card" aria-labelledby={`kind-${k.module}-${k.id}`}>
            <h2 id={`kind-${k.module}-${k.id}`}>
              {k.name} <span className="muted small">{`${k.module}/${k.id}`}</span>
            </h2>
            {k.description ? <p className="muted small">{k.description}</p> : null}
            {mine.length ? (
              <ul>
                {mine.map((p) => (
                  <li key={p.profileId}>
                    <Link to={href(['profiles', p.module, p.kind, p.profileId])}>{p.name}</Link> <code className="small">{p.profileId}</code>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted">{$t('profiles.none', 'No profile of this kind yet.')}</p>
            )}
            {writable ? (
              <Link to={href(['profiles', k.module, k.id])}>{$t('profiles.newOfKind', 'New {kind} profile', { kind: k.name })}</Link>
            ) : null}
          </section>
        );
      })}
    </>
  );
}

/** One profile (or a new one when `id` is absent): a form generated from the kind's fields. */
function ProfilePage({ module, kind, id, writable }: { module: string; kind: string; id?: string; writable: boolean }) {
  const kinds = useQuery({ queryKey: ['profile-kinds'], queryFn: listKinds });
  const profile = useQuery({
    queryKey: ['profile', module, kind, id],
    queryFn: async () => unwrap(await api.profiles.GET('/api/v1/admin/profiles/{module}/{kind}/{id}', { params: { path: { module, kind, id: id! } } })) as unknown as Profile,
    enabled: !!id,
  });
  const k = kinds.data?.find((x) => x.module === module && x.id === kind);
  return (
    <>
      <p className="crumbs">
        <Link to={href(['profiles'])}>{$t('profiles.title', 'Profiles')}</Link> / {module}/{kind}
      </p>
      <PageTitle>{id ? (profile.data?.name ?? id) : $t('profiles.newOfKind', 'New {kind} profile', { kind: k?.name ?? kind })}</PageTitle>
      {kinds.isPending || (id && profile.isPending) ? <Loading /> : null}
      <ErrorNotice error={kinds.error ?? profile.error} onRetry={() => void Promise.all([kinds.refetch(), profile.refetch()])} />
      {kinds.data && !k ? <p className="notice error">{$t('profiles.noKind', 'There is no profile kind {kind} in module {module}.', { kind, module })}</p> : null}
      {k && (!id || profile.data) ? <ProfileForm key={id ?? 'new'} kind={k} profile={profile.data} writable={writable} /> : null}
      {k && profile.data && writable ? <Duplicate profile={profile.data} /> : null}
    </>
  );
}

function ProfileForm({ kind, profile, writable }: { kind: Kind; profile?: Profile; writable: boolean }) {
  const client = useQueryClient();
  const { navigate } = useRoute();
  const uid = useId();
  const stored = useMemo(() => toFormState(kind.fields, profile?.config), [kind, profile]);
  const [state, setState] = useState(stored);
  const [profileId, setProfileId] = useState(profile?.profileId ?? '');
  const [name, setName] = useState(profile?.name ?? '');
  const [description, setDescription] = useState(profile?.description ?? '');
  const [problems, setProblems] = useState<Record<string, string>>({});
  const reenter = secretsToReenter(kind.fields, stored, state);
  const save = useMutation({
    mutationFn: async (config: Record<string, unknown>) => {
      const body = { module: kind.module, kind: kind.id, profileId: profile?.profileId ?? profileId.trim(), name: name.trim(), ...(description.trim() || profile ? { description: description.trim() } : {}), config };
      if (profile) return unwrap(await api.profiles.PUT('/api/v1/admin/profiles/{module}/{kind}/{id}', { params: { path: { module: kind.module, kind: kind.id, id: profile.profileId } }, body })) as unknown as Profile;
      return unwrap(await api.profiles.POST('/api/v1/admin/profiles', { body })) as unknown as Profile;
    },
    onSuccess: (p) => {
      // The form now shows what was stored (a new secret reads as the mask).
      setState(toFormState(kind.fields, p.config));
      client.setQueryData(['profile', p.module, p.kind, p.profileId], p);
      void client.invalidateQueries({ queryKey: ['profiles'] });
      if (!profile) navigate(href(['profiles', p.module, p.kind, p.profileId]), true);
    },
  });
  const remove = useMutation({
    mutationFn: async () => unwrap(await api.profiles.DELETE('/api/v1/admin/profiles/{module}/{kind}/{id}', { params: { path: { module: kind.module, kind: kind.id, id: profile!.profileId } } })),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['profiles'] });
      navigate(href(['profiles']));
    },
  });
  const server = (f: string) => fieldError(save.error, f);
  const named = ['profileId', 'name', 'description', ...kind.fields.map((f) => f.key)];
  return (
    <form
      className="card"
      aria-labelledby={`${uid}-title`}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const found: Record<string, string> = {};
        if (!profile && !/^[a-z0-9][a-z0-9._-]{0,127}$/.test(profileId.trim())) found['profileId'] = $t('profiles.check.id', 'An id uses lowercase letters, digits and . _ - (starting with a letter or digit).');
        if (!name.trim()) found['name'] = $t('profiles.check.name', 'Give the profile a name.');
        const { values, problems: fieldProblems } = fromFormState(kind.fields, state, { creating: !profile }, $t);
        Object.assign(found, fieldProblems);
        for (const key of reenter) found[key] ??= $t('profiles.check.reenter', 'Type the secret again, or clear it.');
        setProblems(found);
        if (!Object.keys(found).length) save.mutate(values);
      }}
    >
      <h2 id={`${uid}-title`}>{$t('profiles.settings', 'Settings of kind {kind}', { kind: kind.name })}</h2>
      {profile ? (
        <p className="muted small">
          <code>{`${profile.module}/${profile.kind}/${profile.profileId}`}</code> · {$t('profiles.updated', 'updated {at}', { at: formatTime(profile.updatedAt) })}
        </p>
      ) : (
        <Plain id={`${uid}-id`} label={$t('profiles.id', 'Profile id')} value={profileId} onChange={setProfileId} error={problems['profileId'] ?? server('profileId')} />
      )}
      <Plain id={`${uid}-name`} label={$t('profiles.name', 'Name')} value={name} onChange={setName} error={problems['name'] ?? server('name')} readOnly={!writable} />
      <Plain id={`${uid}-description`} label={$t('profiles.description', 'Description')} value={description} onChange={setDescription} error={server('description')} readOnly={!writable} />
      {kind.fields.map((f) => (
        <FieldControl
          key={f.key}
          field={f}
          value={state[f.key] ?? ''}
          onChange={(v: FieldValue) => setState({ ...state, [f.key]: v })}
          error={problems[f.key] ?? server(`config.${f.key}`) ?? server(f.key)}
          isSet={profile?.secretsSet.includes(f.key) ?? false}
          reenter={reenter.includes(f.key)}
          readOnly={!writable}
          note={[f.optionsUnavailable ? (f.optionsUnavailableReason ?? $t('profiles.field.optionsUnavailable', 'The list of choices could not be loaded: type a value.')) : '', f.overridable ? $t('profiles.field.overridable', 'A node may set its own value.') : '', f.endpoint ? $t('profiles.field.endpoint', 'Secrets of this profile are only sent here: changing it needs the secret typed again.') : ''].filter(Boolean).join(' ')}
        />
      ))}
      {save.error && !named.some((f) => server(f) || server(`config.${f}`)) ? <ErrorNotice error={save.error} /> : null}
      {save.isSuccess ? <p role="status">{$t('profiles.saved', 'Saved.')}</p> : null}
      {writable ? (
        <div className="row">
          <button type="submit" className="primary" disabled={save.isPending}>
            {profile ? $t('profiles.save', 'Save') : $t('create', 'Create')}
          </button>
          {profile ? (
            <button
              type="button"
              className="danger"
              disabled={remove.isPending}
              onClick={() => {
                if (confirm($t('profiles.deleteConfirm', 'Delete the profile {id}? Flows that name it will fail until another is chosen.', { id: profile.profileId }))) remove.mutate();
              }}
            >
              {$t('profiles.delete', 'Delete')}
            </button>
          ) : null}
        </div>
      ) : null}
      <ErrorNotice error={remove.error} />
    </form>
  );
}

function Plain({ id, label, value, onChange, error, readOnly }: { id: string; label: string; value: string; onChange: (v: string) => void; error?: string; readOnly?: boolean }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} value={value} onChange={(e) => onChange(e.target.value)} disabled={readOnly} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined} />
      {error ? (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A copy of the profile under a new id (secrets copied as stored, never shown). */
function Duplicate({ profile }: { profile: Profile }) {
  const client = useQueryClient();
  const { navigate } = useRoute();
  const uid = useId();
  const siblings = useQuery({ queryKey: ['profiles'], queryFn: async () => unwrap(await api.profiles.GET('/api/v1/admin/profiles')) as unknown as Profile[] });
  const taken = (siblings.data ?? []).filter((p) => p.module === profile.module && p.kind === profile.kind).map((p) => p.profileId);
  const [newId, setNewId] = useState('');
  const [newName, setNewName] = useState('');
  const dup = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.profiles.POST('/api/v1/admin/profiles/{module}/{kind}/{id}/duplicate', {
          params: { path: { module: profile.module, kind: profile.kind, id: profile.profileId } },
          body: { ...(newId.trim() ? { newProfileId: newId.trim() } : {}), ...(newName.trim() ? { newName: newName.trim() } : {}) },
        }),
      ) as unknown as Profile,
    onSuccess: (p) => {
      void client.invalidateQueries({ queryKey: ['profiles'] });
      navigate(href(['profiles', p.module, p.kind, p.profileId]));
    },
  });
  const idError = fieldError(dup.error, 'newProfileId');
  return (
    <form
      className="card"
      aria-labelledby={`${uid}-title`}
      onSubmit={(e) => {
        e.preventDefault();
        dup.mutate();
      }}
    >
      <h2 id={`${uid}-title`}>{$t('profiles.duplicate', 'Duplicate')}</h2>
      <p className="muted small">{$t('profiles.duplicateHelp', 'The copy gets the same settings and secrets; blank fields take the suggested id and “(copy)” name.')}</p>
      <div className="row">
        <label htmlFor={`${uid}-id`}>{$t('profiles.newId', 'New id')}</label>
        <input id={`${uid}-id`} value={newId} placeholder={copyId(profile.profileId, taken)} onChange={(e) => setNewId(e.target.value)} aria-invalid={idError ? true : undefined} />
        <label htmlFor={`${uid}-name`}>{$t('profiles.newName', 'New name')}</label>
        <input id={`${uid}-name`} value={newName} placeholder={`${profile.name} (copy)`} onChange={(e) => setNewName(e.target.value)} />
        <button type="submit" disabled={dup.isPending}>
          {$t('profiles.duplicate', 'Duplicate')}
        </button>
      </div>
      {idError ? <p className="field-error">{idError}</p> : <ErrorNotice error={dup.error} />}
    </form>
  );
}

function SettingsModules() {
  const list = useQuery({ queryKey: ['settings-modules'], queryFn: async () => unwrap(await api.profiles.GET('/api/v1/admin/settings')) as unknown as { modules: Array<{ module: string; label?: string; keys: string[] }> } });
  return (
    <>
      <PageTitle>{$t('settings.title', 'Module settings')}</PageTitle>
      {list.isPending ? <Loading /> : null}
      <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      {list.data ? (
        <table>
          <thead>
            <tr>
              <th scope="col">{$t('settings.module', 'Module')}</th>
              <th scope="col">{$t('settings.keys', 'Settings')}</th>
            </tr>
          </thead>
          <tbody>
            {list.data.modules.map((m) => (
              <tr key={m.module}>
                <td>
                  <Link to={href(['settings', m.module])}>{m.label ?? m.module}</Link> <code className="small">{m.module}</code>
                </td>
                <td className="small">{m.keys.join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

function ModuleSettingsPage({ module }: { module: string }) {
  const settings = useQuery({ queryKey: ['settings', module], queryFn: async () => unwrap(await api.profiles.GET('/api/v1/admin/settings/{module}', { params: { path: { module } } })) as unknown as ModuleSettings });
  const locales = useQuery({ queryKey: ['active-locales'], queryFn: async () => (await activeLocales()).map((l) => l.code), staleTime: 300_000 });
  return (
    <>
      <p className="crumbs">
        <Link to={href(['settings'])}>{$t('settings.title', 'Module settings')}</Link> / {module}
      </p>
      <PageTitle>{settings.data?.label ?? module}</PageTitle>
      {settings.isPending ? <Loading /> : null}
      <ErrorNotice error={settings.error} onRetry={() => void settings.refetch()} />
      {settings.data && !locales.isPending ? <SettingsForm key={module} data={settings.data} locales={locales.data ?? []} /> : null}
    </>
  );
}

function sourceText(source: string): string {
  if (source === 'stored') return $t('settings.source.stored', 'set here');
  if (source === 'env') return $t('settings.source.env', 'from the environment');
  if (source === 'default') return $t('settings.source.default', 'default');
  if (source === 'missing') return $t('settings.source.missing', 'no text');
  return $t('settings.source.unset', 'not set');
}

/** A module's plain fields as form state: a value not stored here shows blank (the value in effect is said beside it), so saving does not pin a default. */
function plainState(d: ModuleSettings): Record<string, FieldValue> {
  const plain = d.fields.filter((f) => !f.localized);
  return toFormState(plain, Object.fromEntries(plain.map((f) => [f.key, f.source === 'stored' || isSecret(f) ? f.value : undefined])));
}

function rowsOf(d: ModuleSettings, locales: string[]): Record<string, LocaleRow[]> {
  return Object.fromEntries(d.fields.filter((f) => f.localized).map((f) => [f.key, localeRows(f.value, f.localeSources, locales, d.sourceLocale)]));
}

function SettingsForm({ data, locales }: { data: ModuleSettings; locales: string[] }) {
  const client = useQueryClient();
  const uid = useId();
  const plain = useMemo(() => data.fields.filter((f) => !f.localized), [data]);
  const initial = useMemo(() => plainState(data), [data]);
  const [state, setState] = useState(initial);
  const initialRows = useMemo(() => rowsOf(data, locales), [data, locales]);
  const [rows, setRows] = useState<Record<string, LocaleRow[]>>(initialRows);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const save = useMutation({
    mutationFn: async (values: Record<string, unknown>) => unwrap(await api.profiles.PUT('/api/v1/admin/settings/{module}', { params: { path: { module: data.module } }, body: { values } })) as unknown as ModuleSettings,
    onSuccess: (d) => {
      // The form now shows what is stored (sources included), so the next save compares with it.
      setState(plainState(d));
      setRows(rowsOf(d, locales));
      client.setQueryData(['settings', data.module], d);
    },
  });
  const server = (key: string) => fieldError(save.error, `values.${key}`);
  return (
    <form
      className="card"
      aria-labelledby={`${uid}-title`}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const changed = plain.filter((f) => state[f.key] !== initial[f.key]);
        const { values, problems: found } = fromFormState(changed, state, { creating: false }, $t);
        for (const f of data.fields.filter((x) => x.localized)) {
          const patch = localePatch(initialRows[f.key] ?? [], rows[f.key] ?? []);
          if (patch) values[f.key] = patch;
        }
        setProblems(found);
        if (!Object.keys(found).length && Object.keys(values).length) save.mutate(values);
      }}
    >
      <h2 id={`${uid}-title`}>{$t('settings.fields', 'Settings')}</h2>
      {plain.map((f) => (
        <FieldControl
          key={f.key}
          field={{ ...f, required: false }}
          value={state[f.key] ?? ''}
          onChange={(v) => setState({ ...state, [f.key]: v })}
          error={problems[f.key] ?? server(f.key)}
          isSet={data.secretsSet.includes(f.key)}
          note={[
            $t('settings.source', 'Value: {source}.', { source: sourceText(f.source) }),
            f.source !== 'stored' && !isSecret(f) && f.value !== null && f.value !== undefined ? $t('settings.effective', 'In effect: {value}.', { value: typeof f.value === 'string' ? f.value : JSON.stringify(f.value) }) : '',
            f.public ? $t('settings.public', 'Public: readable without a token.') : '',
          ]
            .filter(Boolean)
            .join(' ')}
        />
      ))}
      {data.fields
        .filter((f) => f.localized)
        .map((f) => (
          <LocaleEditor key={f.key} field={f} rows={rows[f.key] ?? []} onChange={(r) => setRows({ ...rows, [f.key]: r })} sourceLocale={data.sourceLocale} error={server(f.key)} serverError={(loc) => server(`${f.key}.${loc}`)} />
        ))}
      {save.error && !data.fields.some((f) => server(f.key)) ? <ErrorNotice error={save.error} /> : null}
      {save.isSuccess ? <p role="status">{$t('settings.saved', 'Saved.')}</p> : null}
      <div className="row">
        <button type="submit" className="primary" disabled={save.isPending}>
          {$t('settings.save', 'Save settings')}
        </button>
      </div>
    </form>
  );
}

/** A localized setting: one text per locale; an override can be cleared so the default text applies again. */
function LocaleEditor({ field, rows, onChange, sourceLocale, error, serverError }: { field: SettingField; rows: LocaleRow[]; onChange: (rows: LocaleRow[]) => void; sourceLocale: string; error?: string; serverError: (locale: string) => string | undefined }) {
  const uid = useId();
  const set = (locale: string, patch: Partial<LocaleRow>) => onChange(rows.map((r) => (r.locale === locale ? { ...r, ...patch } : r)));
  return (
    <fieldset className="locales">
      <legend>
        {field.label} <span className="muted small">{$t('settings.localized', '(one text per language; {source} is the source)', { source: sourceLocale })}</span>
      </legend>
      {field.description ? <p className="muted small">{field.description}</p> : null}
      {error ? <p className="field-error">{error}</p> : null}
      {rows.map((r) => {
        const id = `${uid}-${r.locale}`;
        const problem = serverError(r.locale);
        return (
          <div key={r.locale} className="row locale-row">
            <label htmlFor={id} lang={r.locale}>
              <code>{r.locale}</code>
            </label>
            <input id={id} lang={r.locale} value={r.text} onChange={(e) => set(r.locale, { text: e.target.value, source: 'stored' })} aria-describedby={`${id}-src`} aria-invalid={problem ? true : undefined} />
            <span id={`${id}-src`} className="muted small">
              {sourceText(r.source)}
            </span>
            {r.source === 'stored' ? (
              <button type="button" onClick={() => set(r.locale, { text: '', source: 'default' })} aria-label={$t('settings.clearLocaleLabel', 'Use the default for {locale} of {label}', { locale: r.locale, label: field.label })}>
                {$t('settings.clearLocale', 'Use the default')}
              </button>
            ) : null}
            {problem ? <p className="field-error">{problem}</p> : null}
          </div>
        );
      })}
    </fieldset>
  );
}

