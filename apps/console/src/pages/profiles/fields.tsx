import { useId } from 'react';
import { $t } from '../../i18n';
import { type FieldDef, type FieldValue, isSecret, MASK } from '../../lib/profiles-form';

/**
 * One field of a form generated from a field definition (profile kind field or module setting).
 * A secret that is set shows the mask and stays untouched until the user chooses to replace or
 * clear it; `reenter` asks for it again (an endpoint field changed).
 */
export function FieldControl({
  field,
  value,
  onChange,
  error,
  isSet,
  reenter,
  readOnly,
  note,
}: {
  field: FieldDef;
  value: FieldValue;
  onChange: (v: FieldValue) => void;
  error?: string;
  /** A secret with a stored value (`secretsSet`). */
  isSet?: boolean;
  reenter?: boolean;
  readOnly?: boolean;
  note?: string;
}) {
  const uid = useId();
  const id = `${uid}-${field.key}`;
  const helpId = `${id}-help`;
  const errId = `${id}-error`;
  const describedBy = [field.description || note || field.env_var ? helpId : '', error || reenter ? errId : ''].filter(Boolean).join(' ') || undefined;
  const common = { id, 'aria-describedby': describedBy, 'aria-invalid': error || reenter ? true : undefined, disabled: readOnly } as const;
  const label = (
    <label htmlFor={id}>
      {field.label}
      {field.required ? <span aria-hidden="true"> *</span> : null}
    </label>
  );
  let control;
  if (field.type === 'boolean') {
    return (
      <div className="field">
        <label htmlFor={id} className="check">
          <input type="checkbox" {...common} checked={value === true} onChange={(e) => onChange(e.target.checked)} /> {field.label}
        </label>
        <Help id={helpId} field={field} note={note} />
      </div>
    );
  }
  if (isSecret(field)) {
    const masked = value === MASK;
    control = masked ? (
      <div className="row">
        <input {...common} type="text" readOnly value={MASK} className="masked" />
        {!readOnly ? (
          <>
            <button type="button" onClick={() => onChange('')}>
              {$t('profiles.secret.replace', 'Replace')}
            </button>
            <button type="button" onClick={() => onChange('')} aria-label={$t('profiles.secret.clearLabel', 'Clear {label}', { label: field.label })} data-clear="1">
              {$t('profiles.secret.clear', 'Clear')}
            </button>
          </>
        ) : null}
      </div>
    ) : (
      <div className="row">
        <input {...common} type="password" autoComplete="off" value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value)} required={reenter || field.required} />
        {isSet && !readOnly ? (
          <>
            <button type="button" onClick={() => onChange(MASK)}>
              {$t('profiles.secret.keep', 'Keep the stored secret')}
            </button>
            <span className="muted small">{$t('profiles.secret.blankClears', 'Left blank, the stored secret is removed when you save.')}</span>
          </>
        ) : null}
      </div>
    );
  } else if (field.options?.length && !field.optionsUnavailable) {
    control = (
      <select {...common} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value)}>
        <option value="">{$t('profiles.field.none', '(not set)')}</option>
        {field.options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    );
  } else if (field.type === 'textarea' || field.type === 'json') {
    control = <textarea {...common} rows={field.type === 'json' ? 5 : 3} spellCheck={field.type !== 'json'} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value)} />;
  } else {
    control = <input {...common} type={field.type === 'number' ? 'text' : field.type === 'url' ? 'url' : 'text'} inputMode={field.type === 'number' ? 'decimal' : undefined} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value)} />;
  }
  return (
    <div className="field">
      {label}
      {control}
      <Help id={helpId} field={field} note={note} />
      {reenter ? (
        <p id={errId} className="field-error">
          {$t('profiles.secret.reenter', 'Type this secret again: the provider or base URL changed, and a stored secret is only sent to the endpoint it was stored with.')}
        </p>
      ) : error ? (
        <p id={errId} className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

function Help({ id, field, note }: { id: string; field: FieldDef; note?: string }) {
  if (!field.description && !note && !field.env_var) return null;
  return (
    <p id={id} className="muted small">
      {[field.description, note, field.env_var ? $t('profiles.field.env', 'Environment variable: {name}', { name: field.env_var }) : ''].filter(Boolean).join(' ')}
    </p>
  );
}
