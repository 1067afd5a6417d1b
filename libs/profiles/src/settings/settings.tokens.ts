/** Injection token of the module settings declarations (defaults to `DECLARED_MODULE_SETTINGS`). */
export const SETTINGS_DECLARATIONS = Symbol('SETTINGS_DECLARATIONS');
/** Injection token of the outbox that carries `settings.updated`. */
export const SETTINGS_OUTBOX = Symbol('SETTINGS_OUTBOX');
