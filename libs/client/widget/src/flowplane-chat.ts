import { css, html, LitElement, nothing, svg, type TemplateResult } from 'lit';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { type Block, type Inline, parseMarkdown, safeHref } from './markdown';
import { type Params, translator } from './translate';

interface Config {
  maxMessageChars?: number;
  handoffEnabled?: boolean;
  activeVariant?: string;
  capabilities?: { handoff?: boolean; streaming?: boolean };
}
interface Source {
  n?: number;
  title?: string;
  url?: string;
}
interface Action {
  label?: string;
  url?: string;
  message?: string;
}
interface Msg {
  role: 'user' | 'assistant';
  text: string;
  status?: 'streaming' | 'completed' | 'rejected' | 'error';
  sources?: Source[];
  actions?: Action[];
  runId?: string;
  lastId?: string;
  rating?: 'up' | 'down';
  error?: string;
  /** The user's message an assistant turn answers (sent again by Retry). */
  ask?: string;
}
export interface HandoffInput {
  email: string;
  reason?: string;
  priority?: 'low' | 'normal' | 'high';
}
export interface HandoffResult {
  ok: boolean;
  message: string;
}

// One outline thumb (drawn, not an emoji: pages without an emoji font would show boxes); turned over for "not helpful".
const THUMB = svg`<svg viewBox="0 0 24 24" width="16" height="16" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true"><path d="M7 10v12M15 5.9 14 10h5.8a2 2 0 0 1 2 2.3l-1.4 8a2 2 0 0 1-2 1.7H7V10l4.3-7.5a2.5 2.5 0 0 1 3.7 3.4ZM7 22H4a2 2 0 0 1-2-2v-8a2 2 0 0 1 2-2h3"/></svg>`;

/** Where the module was loaded from: the default API origin, so one script tag works anywhere. */
const SCRIPT_ORIGIN = new URL(import.meta.url).origin;
const RESUME_ATTEMPTS = 5;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `<flowplane-chat>`: the assistant as a chat panel. Reads the assistant's config on open, streams
 * answers over Server-Sent Events (resuming with Last-Event-ID after a drop), keeps the session id in
 * localStorage, offers feedback and a handoff form, and is localized through the catalog
 * namespace `widget`.
 */
export class FlowplaneChat extends LitElement {
  static override properties = {
    open: { type: Boolean, reflect: true },
    apiBase: { attribute: 'api-base' },
    locale: { attribute: 'lang' },
    heading: { attribute: 'title' },
    placeholder: {},
    messages: { state: true },
    config: { state: true },
    offline: { state: true },
    busy: { state: true },
    notice: { state: true },
    view: { state: true },
    handoffResult: { state: true },
    live: { state: true },
    catalog: { state: true },
  };

  // `declare`: Lit's accessors must not be shadowed by class fields, whatever the compiler's
  // useDefineForClassFields; the values are set in the constructor.
  declare open: boolean;
  declare apiBase?: string;
  declare locale?: string;
  declare heading?: string;
  declare placeholder?: string;
  declare messages: Msg[];
  declare config?: Config;
  declare offline: boolean;
  declare busy: boolean;
  declare notice: string;
  declare view: 'chat' | 'handoff';
  declare handoffResult?: HandoffResult;
  declare live: string;
  declare catalog: { lang: string; messages: Record<string, string> };

  private memorySession?: string;
  /** What the message box held when the panel closed. */
  private draft = '';
  private historyLoaded = false;
  /** The language whose catalog was last asked for. */
  private catalogFor?: string;

  constructor() {
    super();
    this.open = false;
    this.messages = [];
    this.offline = false;
    this.busy = false;
    this.notice = '';
    this.view = 'chat';
    this.live = '';
    this.catalog = { lang: 'en', messages: {} };
  }

  /** The language: the `lang` attribute, else the page's `<html lang>`, else English. */
  get language(): string {
    return this.locale || document.documentElement.lang || 'en';
  }

  private get t() {
    const t = translator(this.catalog.messages, this.language);
    return (key: string, fallback: string, params?: Params) => t(key, fallback, params);
  }

  private url(path: string): string {
    return `${(this.apiBase || SCRIPT_ORIGIN).replace(/\/+$/, '')}/api/v1${path}`;
  }

  private get storageKey(): string {
    return `flowplane-chat:session:${this.apiBase || SCRIPT_ORIGIN}`;
  }

  /** The session id (rule 1: kept across visits, absent until the server names one). */
  get sessionId(): string | undefined {
    try {
      return localStorage.getItem(this.storageKey) ?? this.memorySession;
    } catch {
      return this.memorySession;
    }
  }

  private set session(id: string) {
    this.memorySession = id;
    try {
      localStorage.setItem(this.storageKey, id);
    } catch {
      // Storage blocked (private mode, sandboxed frame): the id lives as long as the page.
    }
  }

  override connectedCallback(): void {
    super.connectedCallback();
    if (this.open) void this.loadConfig();
  }

  protected override updated(): void {
    if (this.catalogFor !== this.language) void this.loadCatalog();
    const log = this.renderRoot.querySelector('.log');
    if (log) log.scrollTop = log.scrollHeight;
  }

  private async loadCatalog(): Promise<void> {
    const lang = (this.catalogFor = this.language);
    try {
      const res = await fetch(this.url(`/i18n/messages?ns=widget&locale=${encodeURIComponent(lang.split('-')[0].toLowerCase())}`));
      const body = (await res.json()) as { messages?: Record<string, string> };
      if (res.ok && this.language === lang) this.catalog = { lang, messages: body.messages ?? {} };
    } catch {
      // The inline English defaults stand in for an unreachable catalog.
    }
  }

  /** Capabilities, the session's variant and the message limit; a failure shows the offline state. */
  async loadConfig(): Promise<void> {
    this.offline = false;
    const sid = this.sessionId;
    try {
      const res = await fetch(this.url(`/assistant/config${sid ? `?sessionId=${encodeURIComponent(sid)}` : ''}`));
      if (!res.ok) throw new Error(String(res.status));
      this.config = (await res.json()) as Config;
    } catch {
      this.config = undefined;
      this.offline = true;
      return;
    }
    if (sid && !this.historyLoaded) await this.loadHistory(sid);
  }

  private async loadHistory(sid: string): Promise<void> {
    this.historyLoaded = true;
    try {
      const res = await fetch(this.url(`/assistant/chats/me/${encodeURIComponent(sid)}`));
      if (!res.ok || this.messages.length) return;
      const chat = (await res.json()) as { messages?: Array<{ role: string; content: string; runId?: string; status?: string }> };
      this.messages = (chat.messages ?? []).map((m) => ({
        role: m.role === 'user' ? 'user' : 'assistant',
        text: m.content,
        runId: m.runId,
        status: m.role === 'user' ? undefined : m.status === 'rejected' ? 'rejected' : 'completed',
      }));
    } catch {
      // A transcript that cannot be read leaves an empty chat.
    }
  }

  /** Opens the panel, reads the config again (a changed split shows at once) and focuses the message box. */
  async show(): Promise<void> {
    this.open = true;
    void this.loadConfig();
    await this.updateComplete;
    this.focusIn('textarea');
  }

  /** Closes the panel (keeping an unsent draft) and gives the focus back to the launcher. */
  async hide(): Promise<void> {
    this.draft = (this.renderRoot.querySelector('textarea#fc-input') as HTMLTextAreaElement | null)?.value ?? this.draft;
    this.open = false;
    await this.updateComplete;
    this.focusIn('.launcher');
  }

  private focusIn(selector: string): void {
    (this.renderRoot.querySelector(selector) as HTMLElement | null)?.focus();
  }

  /** Starts a new chat: a new session id, so the server opens a new document (rule 1). */
  clear(): void {
    this.session = crypto.randomUUID();
    this.messages = [];
    this.notice = '';
    this.live = '';
    this.handoffResult = undefined;
    this.view = 'chat';
    this.focusIn('textarea');
  }

  /** Sends a message and streams the answer into the chat. */
  async send(text: string, retry?: Msg): Promise<void> {
    const t = this.t;
    const max = this.config?.maxMessageChars ?? 4000;
    if (!text.trim() || this.busy) return;
    if (text.length > max) {
      this.notice = t('tooLong', 'Your message has {count, plural, one {# character} other {# characters}}; the limit is {max}. Please shorten it.', { count: text.length, max });
      return;
    }
    this.notice = '';
    const reply: Msg = retry ?? { role: 'assistant', text: '', ask: text };
    Object.assign(reply, { text: '', status: 'streaming', error: undefined, runId: undefined, lastId: undefined, sources: undefined, actions: undefined });
    this.messages = retry ? [...this.messages] : [...this.messages, { role: 'user', text }, reply];
    this.busy = true;
    try {
      const sid = this.sessionId;
      const res = await fetch(this.url('/assistant/messages'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ ...(sid ? { sessionId: sid } : {}), message: text, meta: { lang: this.language } }),
      });
      const named = res.headers.get('x-assistant-session-id');
      if (named) this.session = named;
      if (!res.ok) return await this.refused(reply, res);
      let finished = await this.consume(res, reply);
      for (let attempt = 0; !finished && reply.runId && attempt < RESUME_ATTEMPTS; attempt++) {
        await sleep(250 * 2 ** attempt);
        finished = await this.resume(reply);
      }
      if (!finished) this.fail(reply, t('dropped', 'The connection was lost before the answer was complete.'));
    } catch {
      this.fail(reply, t('network', 'The assistant could not be reached. Check your connection.'));
    } finally {
      this.busy = false;
    }
  }

  /** Reads the frames after the last one seen (the resume route with Last-Event-ID). */
  private async resume(reply: Msg): Promise<boolean> {
    try {
      const res = await fetch(this.url(`/assistant/messages/${encodeURIComponent(reply.runId!)}/events`), {
        headers: { accept: 'text/event-stream', 'x-assistant-session-id': this.sessionId ?? '', ...(reply.lastId ? { 'last-event-id': reply.lastId } : {}) },
      });
      return res.ok && (await this.consume(res, reply));
    } catch {
      return false;
    }
  }

  /** Feeds an event stream into the reply; true once its last frame (`message` or `error`) arrived. */
  private async consume(res: Response, reply: Msg): Promise<boolean> {
    let finished = false;
    const parser = createParser({
      onEvent: (e: EventSourceMessage) => {
        if (e.id) reply.lastId = e.id;
        let data: Record<string, unknown> = {};
        try {
          data = JSON.parse(e.data) as Record<string, unknown>;
        } catch {
          // Not a frame of the assistant's table: read as an empty one.
        }
        finished = this.frame(e.event, data, reply) || finished;
        this.requestUpdate();
      },
    });
    try {
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) parser.feed(r.value);
    } catch {
      // A dropped connection: the caller resumes from the last frame.
    }
    return finished;
  }

  private frame(event: string | undefined, data: Record<string, unknown>, reply: Msg): boolean {
    if (event === 'session') {
      if (typeof data.sessionId === 'string') this.session = data.sessionId;
      reply.runId = data.runId as string;
    } else if (event === 'token') {
      reply.text += String(data.chunk ?? '');
    } else if (event === 'message') {
      reply.text = String(data.content ?? reply.text);
      reply.sources = Array.isArray(data.sources) ? (data.sources as Source[]) : [];
      reply.actions = Array.isArray(data.actions) ? (data.actions as Action[]) : [];
      reply.status = data.status === 'rejected' ? 'rejected' : 'completed';
      this.live = reply.text;
      return true;
    } else if (event === 'error') {
      this.fail(reply, String(data.message ?? ''));
      return true;
    }
    return false;
  }

  private async refused(reply: Msg, res: Response): Promise<void> {
    const t = this.t;
    const body = (await res.json().catch(() => ({}))) as { message?: string };
    if (res.status === 429) {
      const seconds = Number(res.headers.get('retry-after')) || 60;
      this.fail(reply, t('rateLimited', 'Too many messages. Try again in {seconds, plural, one {# second} other {# seconds}}.', { seconds }));
    } else if (res.status === 503) {
      this.fail(reply, t('offline', 'The assistant is offline right now. Please try again later.'));
    } else this.fail(reply, body.message || t('failed', 'Something went wrong.'));
  }

  private fail(reply: Msg, message: string): void {
    reply.status = 'error';
    reply.error = message;
    this.live = message;
    this.messages = [...this.messages];
  }

  /** Rates an answer (the feedback route). */
  async rate(msg: Msg, rating: 'up' | 'down'): Promise<void> {
    const res = await fetch(this.url('/assistant/feedback'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sessionId: this.sessionId, runId: msg.runId, rating }),
    }).catch(() => undefined);
    if (res?.ok) {
      msg.rating = rating;
      this.live = this.t('thanks', 'Thanks for your feedback.');
      this.requestUpdate();
    }
  }

  /** Asks for a human (email, reason, priority); reports `{ok, message}`, 409 as "we already have it". */
  async requestHandoff(input: HandoffInput): Promise<HandoffResult> {
    const t = this.t;
    let sessionId = this.sessionId;
    if (!sessionId) this.session = sessionId = crypto.randomUUID();
    try {
      const res = await fetch(this.url('/assistant/handoff'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sessionId, email: input.email, ...(input.reason ? { reason: input.reason } : {}), priority: input.priority ?? 'normal' }),
      });
      if (res.ok) return { ok: true, message: t('handoff.sent', 'Thank you. Someone from our team will contact you soon.') };
      if (res.status === 409) return { ok: false, message: t('handoff.duplicate', 'We already have your request. Someone will contact you soon.') };
      const body = (await res.json().catch(() => ({}))) as { message?: string };
      return { ok: false, message: res.status === 503 ? t('offline', 'The assistant is offline right now. Please try again later.') : body.message || t('failed', 'Something went wrong.') };
    } catch {
      return { ok: false, message: t('network', 'The assistant could not be reached. Check your connection.') };
    }
  }

  private onKey(e: KeyboardEvent): void {
    if (e.key === 'Escape') {
      e.stopPropagation();
      if (this.view === 'handoff') this.backToChat();
      else void this.hide();
    }
  }

  private onInputKey(e: KeyboardEvent): void {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      this.submit();
    }
  }

  private submit(e?: Event): void {
    e?.preventDefault();
    const box = this.renderRoot.querySelector('textarea') as HTMLTextAreaElement;
    const text = box.value;
    if (text.length > (this.config?.maxMessageChars ?? 4000) || this.busy) return void this.send(text);
    if (!text.trim()) return;
    box.value = '';
    void this.send(text);
  }

  private async openHandoff(): Promise<void> {
    this.view = 'handoff';
    this.handoffResult = undefined;
    await this.updateComplete;
    this.focusIn('#hf-email');
  }

  private async backToChat(): Promise<void> {
    this.view = 'chat';
    await this.updateComplete;
    this.focusIn('textarea');
  }

  private async submitHandoff(e: Event): Promise<void> {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const email = form.querySelector('#hf-email') as HTMLInputElement;
    if (!email.value || !email.validity.valid) {
      this.handoffResult = { ok: false, message: this.t('handoff.email', 'Please enter a valid e-mail address.') };
      return email.focus();
    }
    const value = (id: string) => (form.querySelector(id) as HTMLInputElement).value;
    this.handoffResult = await this.requestHandoff({ email: email.value, reason: value('#hf-reason'), priority: value('#hf-priority') as HandoffInput['priority'] });
  }

  private act(a: Action): void {
    const go = this.dispatchEvent(new CustomEvent('flowplane-chat-action', { detail: a, bubbles: true, composed: true, cancelable: true }));
    if (!go) return;
    const href = a.url && safeHref(a.url);
    if (href) window.open(href, '_blank', 'noopener');
    else if (a.message || a.label) void this.send(a.message || a.label!);
  }

  override render(): TemplateResult {
    const t = this.t;
    if (!this.open)
      return html`<button class="launcher" part="launcher" title="" aria-expanded="false" @click=${this.show}>${t('open', 'Chat with us')}</button>`;
    // title="": the host's `title` attribute names the chat; without this every point of the panel
    // would show it as a tooltip.
    return html`<section class="panel" part="panel" title="" aria-labelledby="fc-title" @keydown=${this.onKey}>
      <header>
        <h2 id="fc-title">${this.heading || t('title', 'Support chat')}</h2>
        <button type="button" class="ghost" @click=${this.clear}>${t('clear', 'Clear chat')}</button>
        <button type="button" class="ghost close" aria-label=${t('close', 'Close chat')} aria-expanded="true" @click=${this.hide}>×</button>
      </header>
      ${this.offline ? this.renderOffline() : this.view === 'handoff' ? this.renderHandoff() : this.renderChat()}
      <div class="sr" aria-live="polite" aria-atomic="true">${this.live}</div>
    </section>`;
  }

  private renderOffline(): TemplateResult {
    const t = this.t;
    return html`<div class="offline" role="alert">
      <p>${t('offline', 'The assistant is offline right now. Please try again later.')}</p>
      <button type="button" @click=${this.loadConfig}>${t('retry', 'Try again')}</button>
    </div>`;
  }

  private renderChat(): TemplateResult {
    const t = this.t;
    const handoff = this.config?.capabilities?.handoff ?? this.config?.handoffEnabled;
    return html`<ol class="log" aria-label=${t('conversation', 'Conversation')}>
        ${this.messages.length ? nothing : html`<li class="msg assistant">${t('welcome', 'Hello! How can I help you today?')}</li>`}
        ${this.messages.map((m) => this.renderMessage(m))}
      </ol>
      <form class="compose" @submit=${this.submit}>
        <label for="fc-input" class="sr">${t('label', 'Your message')}</label>
        <textarea id="fc-input" rows="2" .value=${this.draft} placeholder=${this.placeholder || t('placeholder', 'Type your message…')} aria-describedby="fc-notice" @keydown=${this.onInputKey}></textarea>
        <button type="submit" ?disabled=${this.busy}>${t('send', 'Send')}</button>
      </form>
      <p id="fc-notice" class="notice" aria-live="polite">${this.notice}</p>
      ${handoff ? html`<button type="button" class="ghost human" @click=${this.openHandoff}>${t('handoff.open', 'Talk to a human')}</button>` : nothing}`;
  }

  private renderMessage(m: Msg): TemplateResult {
    const t = this.t;
    if (m.role === 'user') return html`<li class="msg user"><span class="sr">${t('you', 'You:')}</span> ${m.text}</li>`;
    const done = m.status === 'completed' || m.status === 'rejected';
    return html`<li class="msg assistant ${m.status ?? ''}" aria-busy=${m.status === 'streaming' ? 'true' : 'false'}>
      <span class="sr">${t('assistant', 'Assistant:')}</span>
      ${m.status === 'rejected' ? html`<strong class="tag">${t('refused', 'Refused')}</strong>` : nothing}
      ${m.text ? renderBlocks(parseMarkdown(m.text)) : m.status === 'streaming' ? html`<span class="typing">${t('typing', 'Typing…')}</span>` : nothing}
      ${m.status === 'error'
        ? html`<p class="err">${m.error}</p>
            ${m.ask ? html`<button type="button" @click=${() => this.send(m.ask!, m)}>${t('retry', 'Try again')}</button>` : nothing}`
        : nothing}
      ${m.sources?.length
        ? html`<footer class="sources"><span>${t('sources', 'Sources')}</span>
            <ul>${m.sources.map((s) => html`<li>${s.url && safeHref(s.url) ? html`<a href=${s.url} target="_blank" rel="noopener noreferrer">${s.title || s.url}</a>` : s.title}</li>`)}</ul></footer>`
        : nothing}
      ${m.actions?.length ? html`<div class="actions">${m.actions.map((a) => html`<button type="button" @click=${() => this.act(a)}>${a.label}</button>`)}</div>` : nothing}
      ${done && m.runId
        ? html`<div class="rate">
            <button type="button" class="ghost" aria-pressed=${m.rating === 'up' ? 'true' : 'false'} aria-label=${t('helpful', 'Helpful')} @click=${() => this.rate(m, 'up')}>${THUMB}</button>
            <button type="button" class="ghost down" aria-pressed=${m.rating === 'down' ? 'true' : 'false'} aria-label=${t('unhelpful', 'Not helpful')} @click=${() => this.rate(m, 'down')}>${THUMB}</button>
          </div>`
        : nothing}
    </li>`;
  }

  private renderHandoff(): TemplateResult {
    const t = this.t;
    const r = this.handoffResult;
    return html`<form class="handoff" novalidate @submit=${this.submitHandoff}>
      <h3>${t('handoff.title', 'Talk to a human')}</h3>
      <label for="hf-email">${t('handoff.emailLabel', 'E-mail')}</label>
      <input id="hf-email" type="email" required autocomplete="email" />
      <label for="hf-reason">${t('handoff.reason', 'How can we help?')}</label>
      <textarea id="hf-reason" rows="3"></textarea>
      <label for="hf-priority">${t('handoff.priority', 'Priority')}</label>
      <select id="hf-priority">
        <option value="low">${t('priority.low', 'Low')}</option>
        <option value="normal" selected>${t('priority.normal', 'Normal')}</option>
        <option value="high">${t('priority.high', 'High')}</option>
      </select>
      <div class="row">
        <button type="submit">${t('handoff.send', 'Send request')}</button>
        <button type="button" class="ghost" @click=${this.backToChat}>${t('handoff.back', 'Back to chat')}</button>
      </div>
      <p class="notice ${r ? (r.ok ? 'ok' : 'no') : ''}" role="status">${r?.message ?? ''}</p>
    </form>`;
  }

  static override styles = css`
    :host {
      --_accent: var(--flowplane-chat-accent, #1d4ed8);
      --_on-accent: var(--flowplane-chat-accent-text, #fff);
      --_bg: var(--flowplane-chat-bg, #fff);
      --_text: var(--flowplane-chat-text, #111827);
      --_muted: var(--flowplane-chat-muted, #4b5563);
      --_bubble: var(--flowplane-chat-bubble, #f3f4f6);
      --_border: var(--flowplane-chat-border, #d1d5db);
      --_radius: var(--flowplane-chat-radius, 12px);
      position: fixed;
      right: var(--flowplane-chat-offset, 16px);
      bottom: var(--flowplane-chat-offset, 16px);
      z-index: var(--flowplane-chat-z-index, 1000);
      font: 15px/1.45 var(--flowplane-chat-font, system-ui, sans-serif);
      color: var(--_text);
    }
    * { box-sizing: border-box; font: inherit; }
    button { cursor: pointer; border: 0; border-radius: 8px; padding: 6px 12px; background: var(--_accent); color: var(--_on-accent); }
    button:disabled { opacity: 0.6; cursor: default; }
    button.ghost { background: transparent; color: var(--_accent); }
    :focus-visible { outline: 2px solid var(--_accent); outline-offset: 2px; }
    .launcher { border-radius: 999px; padding: 12px 18px; box-shadow: 0 4px 14px #0003; }
    .panel { display: flex; flex-direction: column; width: var(--flowplane-chat-width, 380px); max-width: calc(100vw - 32px); height: var(--flowplane-chat-height, 560px); max-height: calc(100vh - 32px); background: var(--_bg); border: 1px solid var(--_border); border-radius: var(--_radius); box-shadow: 0 8px 30px #0003; overflow: hidden; }
    header { display: flex; align-items: center; gap: 4px; padding: 8px 8px 8px 16px; border-bottom: 1px solid var(--_border); }
    h2 { flex: 1; margin: 0; font-size: 1.05em; font-weight: 600; }
    h3 { margin: 0 0 8px; font-size: 1em; font-weight: 600; }
    .close { font-size: 1.4em; line-height: 1; }
    .log { flex: 1; overflow-y: auto; list-style: none; margin: 0; padding: 12px; display: flex; flex-direction: column; gap: 8px; }
    .msg { max-width: 88%; padding: 8px 12px; border-radius: var(--_radius); background: var(--_bubble); overflow-wrap: anywhere; }
    .msg p, .msg ul, .msg ol, .msg pre { margin: 0 0 6px; }
    .msg :last-child { margin-bottom: 0; }
    .user { align-self: flex-end; background: var(--_accent); color: var(--_on-accent); white-space: pre-wrap; }
    .rejected { background: #fef3c7; color: #713f12; }
    .error { background: #fee2e2; color: #7f1d1d; }
    .tag { display: block; font-size: 0.85em; }
    pre { padding: 8px; background: #1f2937; color: #f9fafb; border-radius: 6px; overflow-x: auto; white-space: pre; }
    code { font-family: ui-monospace, monospace; font-size: 0.9em; }
    a { color: inherit; }
    .sources { margin-top: 6px; font-size: 0.9em; color: var(--_muted); }
    .sources a { color: var(--_accent); }
    .sources ul { margin: 2px 0 0; padding-left: 18px; }
    .actions, .rate, .row { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 6px; }
    .rate button { display: inline-flex; padding: 4px 6px; }
    .rate .down svg { transform: rotate(180deg); }
    .rate [aria-pressed='true'] { background: var(--_border); }
    .typing { color: var(--_muted); }
    .compose { display: flex; gap: 8px; padding: 8px 12px; border-top: 1px solid var(--_border); }
    textarea, input, select { width: 100%; padding: 6px 8px; border: 1px solid var(--_muted); border-radius: 8px; background: var(--_bg); color: var(--_text); resize: vertical; }
    .compose textarea { flex: 1; }
    .notice { margin: 0; padding: 0 12px; font-size: 0.9em; color: var(--_muted); }
    .notice:empty { display: none; }
    .human { align-self: flex-start; margin: 0 8px 8px; }
    .handoff, .offline { flex: 1; display: flex; flex-direction: column; gap: 4px; padding: 16px; overflow-y: auto; }
    .handoff .notice { padding: 8px 0; color: var(--_text); }
    .offline { justify-content: center; align-items: flex-start; }
    .sr { position: absolute; width: 1px; height: 1px; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  `;
}

function renderInline(parts: Inline[]): unknown[] {
  return parts.map((p) => {
    if (typeof p === 'string') return p;
    if (p.t === 'code') return html`<code>${p.s}</code>`;
    if (p.t === 'a') return html`<a href=${p.href} target="_blank" rel="noopener noreferrer">${renderInline(p.c)}</a>`;
    return p.t === 'b' ? html`<strong>${renderInline(p.c)}</strong>` : html`<em>${renderInline(p.c)}</em>`;
  });
}

const lines = (rows: Inline[][]) => rows.map((r, i) => html`${i ? html`<br />` : nothing}${renderInline(r)}`);

/** Markdown blocks as templates: every piece of model text is bound as text, never parsed as HTML. */
export function renderBlocks(blocks: Block[]): TemplateResult[] {
  return blocks.map((b) => {
    if (b.t === 'pre') return html`<pre><code>${b.s}</code></pre>`;
    if ('items' in b) {
      const items = b.items.map((i) => html`<li>${renderInline(i)}</li>`);
      return b.t === 'ul' ? html`<ul>${items}</ul>` : html`<ol>${items}</ol>`;
    }
    if (b.t === 'h') return html`<p><strong>${lines(b.c)}</strong></p>`;
    return html`<p>${lines(b.c)}</p>`;
  });
}

if (!customElements.get('flowplane-chat')) customElements.define('flowplane-chat', FlowplaneChat);

declare global {
  interface HTMLElementTagNameMap {
    'flowplane-chat': FlowplaneChat;
  }
}
