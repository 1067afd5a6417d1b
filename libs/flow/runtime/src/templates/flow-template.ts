import type { FlowDocument } from '@flowplane/flow/ir';

/** A starter flow contributed by a module (spec: "Rules: templates"). Id convention `<module>/<slug>`. */
export interface FlowTemplate {
  id: string;
  name: string;
  description: string;
  /** Owning module. */
  source: string;
  tags: string[];
  document: FlowDocument;
}

/** A list of templates contributed by one module. */
export interface TemplateProvider {
  source: string;
  /**
   * Higher wins on duplicate ids (a project module overrides a framework template by reusing its id).
   * Bundled framework templates use -100; remote registrations default to 0.
   */
  priority: number;
  /** Must be cheap: called on every list request. */
  list(): readonly FlowTemplate[];
}

/** Nest token of the in-process template providers. */
export const TEMPLATE_PROVIDERS = Symbol('TEMPLATE_PROVIDERS');
