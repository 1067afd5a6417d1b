import { compile, type Template } from '@ctrl/golang-template';
import { templateCheck, type TemplateCheck } from './template-check';

/** Most compiled templates kept; the oldest compiled one goes first when full. */
const MAX_COMPILED = 10_000;

/** A compiled template with its execution check (absent when no action of it can fail); null when it does not parse. */
type Compiled = { template: Template; check?: TemplateCheck } | null;

/**
 * Catalog rule 5 on `@ctrl/golang-template` (Go `text/template` syntax: `{{.Name}}`, nested
 * `{{.User.Name}}`, `if`/`with`/`range`): a missing key renders as the zero value (empty text), a
 * string without `{{` never reaches the engine, and any parse or execution error gives the raw string
 * back. The engine renders execution errors as empty text, so each template carries a check of its
 * actions against the data (template-check.ts), built when it is compiled. Compiled templates are
 * cached by their text, so a hot message is parsed once.
 */
export class MessageInterpolator {
  private readonly compiled = new Map<string, Compiled>();

  /** `text` with its placeholders filled from `args`; `text` itself when it has none or is broken. */
  render(text: string, args?: Readonly<Record<string, unknown>>): string {
    if (!text.includes('{{')) return text;
    let template = this.compiled.get(text);
    if (template === undefined) {
      template = this.compile(text);
      if (this.compiled.size >= MAX_COMPILED) this.compiled.delete(this.compiled.keys().next().value as string);
      this.compiled.set(text, template);
    }
    if (template === null) return text;
    const data = (args ?? {}) as Record<string, unknown>;
    try {
      if (template.check?.(data) !== undefined) return text;
      return template.template.render(data);
    } catch {
      return text;
    }
  }

  /** Forgets every compiled template. */
  clear(): void {
    this.compiled.clear();
  }

  private compile(text: string): Compiled {
    try {
      return { template: compile(text), check: templateCheck(text) };
    } catch {
      return null;
    }
  }
}

/** One shared interpolator for code that has no service at hand (nodes, tokens). */
export const interpolator = new MessageInterpolator();

/** Fills `text`'s placeholders from `args` (catalog rule 5). */
export function interpolate(text: string, args?: Readonly<Record<string, unknown>>): string {
  return interpolator.render(text, args);
}
