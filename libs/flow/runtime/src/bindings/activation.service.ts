import { Injectable } from '@nestjs/common';
import { normalizeRoute, routeDeploymentId, type RouteSpec, slugify } from '@flowplane/contracts';
import { DomainException } from '@flowplane/platform/http';
import { type Flow, stableVersionOf } from '../flows/flow.entities';
import { type Actor, FlowsService } from '../flows/flows.service';
import type { FlowTemplate } from '../templates/flow-template';
import { TemplateRegistry } from '../templates/template.registry';
import { DeploymentsClient } from './deployments.client';
import { FlowDeployments } from './flow-deployments.service';

/** Answer of POST /flows/templates/activate (spec: "Flow routes used to switch flows"). */
export interface ActivationResult {
  flow_id: string;
  template_id: string;
  method?: string;
  path?: string;
  /** Templates of `meta.publish_with` published by this call; empty when all were running. */
  published_with: string[];
}

/** The flow id a template is activated into: `tpl-` plus the template id slugged (`assistant/handoff` gives `tpl-assistant-handoff`). */
export function templateFlowId(templateId: string): string {
  return `tpl-${slugify(templateId)}`.slice(0, 120);
}

/**
 * Template activation (rules 11 and 12, issue 6 items 10 and 11): a route pre-flight (409 with the
 * spec body when another deployment owns the template's `meta.route`), the flow created or reused
 * (`tpl-<slug>`), its template document saved (same document, same version) and published, its
 * auto-managed deployment ensured (`route-<method>-<path-slug>` or `subscriber-<template-slug>`;
 * an existing one keeps operators' variants, its stable variant is patched in place), then every
 * template of `meta.publish_with` published through the idempotent ensure-published path.
 */
@Injectable()
export class ActivationService {
  constructor(
    private readonly templates: TemplateRegistry,
    private readonly flows: FlowsService,
    private readonly deployments: DeploymentsClient,
    private readonly flowDeployments: FlowDeployments,
  ) {}

  async activate(templateId: string, actor: Actor): Promise<ActivationResult> {
    const template = this.template(templateId);
    const route = routeOf(template);
    // Everything that can refuse the activation is checked before anything is created or published:
    // every template of publish_with exists (404), and no route of the template or of publish_with
    // is claimed by another deployment (409, the spec body).
    const seen = new Set([template.id]);
    const dependencies: FlowTemplate[] = [];
    for (const id of template.document.meta?.publish_with ?? []) {
      if (seen.has(id)) continue;
      seen.add(id);
      dependencies.push(this.template(id));
    }
    for (const t of [template, ...dependencies]) {
      const r = routeOf(t);
      if (r) await this.flowDeployments.call(() => this.deployments.checkRoute(r, routeDeploymentId(r)));
    }
    const flow = await this.flowOf(template, actor);
    await this.publishTemplate(flow, template, actor, true);
    await this.ensureDeployment(flow);
    const publishedWith: string[] = [];
    for (const dependency of dependencies) if (await this.ensurePublished(dependency, actor)) publishedWith.push(dependency.id);
    return { flow_id: flow.id, template_id: template.id, ...(route ? { method: route.method, path: route.path } : {}), published_with: publishedWith };
  }

  /** Publishes a dependency unless a flow of it already runs; true when it was published now. */
  private async ensurePublished(template: FlowTemplate, actor: Actor): Promise<boolean> {
    const flow = await this.flowOf(template, actor);
    if (flow.published) {
      await this.ensureDeployment(flow);
      return false;
    }
    await this.publishTemplate(flow, template, actor, false);
    await this.ensureDeployment(flow);
    return true;
  }

  private template(id: string): FlowTemplate {
    const t = this.templates.get(id);
    if (!t) throw new DomainException('TEMPLATE_NOT_FOUND', 404, `no template ${id}`);
    return t;
  }

  private async flowOf(template: FlowTemplate, actor: Actor): Promise<Flow> {
    const id = templateFlowId(template.id);
    try {
      return await this.flows.get(id);
    } catch {
      try {
        return await this.flows.create({ id, name: template.name, description: template.description, templateId: template.id }, actor);
      } catch (e) {
        if (e instanceof DomainException && e.status === 409) return this.flows.get(id); // a concurrent activation
        throw e;
      }
    }
  }

  /** Saves the template document (identical documents give the same version) and publishes it unless it already is. */
  private async publishTemplate(flow: Flow, template: FlowTemplate, actor: Actor, force: boolean): Promise<void> {
    const { version } = await this.flows.saveVersion(flow.id, template.document, 'ir', actor);
    const current = flow.published ? stableVersionOf(flow.published) : undefined;
    if (current === version.versionId && (!force || 'versionId' in flow.published!)) return;
    await this.flows.publish(flow.id, { versionId: version.versionId }, actor);
  }

  /**
   * The flow's deployment as its template asks (the publish made it already unless the flow was
   * published before): the route deployment takes the route over from another flow's auto-managed
   * one (rule 15 exempts the auto-managed id); errors reach the caller.
   */
  private async ensureDeployment(flow: Flow): Promise<void> {
    await this.flowDeployments.ensure(flow.id, { activation: true });
  }
}

function routeOf(template: FlowTemplate): RouteSpec | undefined {
  const r = template.document.meta?.route as { method?: unknown; path?: unknown } | undefined;
  return r && typeof r.method === 'string' && typeof r.path === 'string' ? normalizeRoute({ method: r.method, path: r.path }) : undefined;
}
