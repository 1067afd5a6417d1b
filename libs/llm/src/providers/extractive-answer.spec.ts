import { formatExcerpts } from '../excerpts';
import { countPromptTokens } from '../tokenizer';
import { asksForUsersLanguage, detectLanguage, sentencesOf } from './extractive-answer';
import { LocalProvider } from './local.provider';

const settings = { providerID: 'local' };
const EXCERPTS = [
  { n: 1, title: 'Shipping', text: 'We ship from our warehouse in Łódź. Delivery to Germany takes 3 to 5 working days and costs €9.' },
  { n: 2, title: 'Returns', text: 'You can return any item within 30 days of delivery. Refunds reach your card in 5 days.' },
  { n: 3, title: 'Kettle care', text: 'Descale the kettle every month with citric acid. Never immerse the base in water.' },
];

async function ask(question: string, options: { citations?: boolean; instructions?: string[]; stream?: boolean } = {}) {
  const messages = [
    { role: 'system' as const, content: 'You are a helpful assistant. Answer in the language of the user.' },
    { role: 'system' as const, content: formatExcerpts(EXCERPTS, options) },
    { role: 'user' as const, content: question },
  ];
  const tokens: string[] = [];
  const result = await new LocalProvider().chat({ settings, messages, onToken: options.stream ? (t) => tokens.push(t) : undefined });
  return { ...result, tokens, messages };
}

describe('local provider: extractive answers over excerpts', () => {
  it('quotes the best-matching excerpt sentence as is and cites its [N]', async () => {
    expect((await ask('How long does delivery to Germany take?')).content).toBe('From the excerpts: "Delivery to Germany takes 3 to 5 working days and costs €9." [1]');
    expect((await ask('Can I return an item after two weeks?')).content).toBe('From the excerpts: "You can return any item within 30 days of delivery." [2]');
    // Case, punctuation and inflections do not matter.
    expect((await ask('DESCALING the KETTLE?!')).content).toBe('From the excerpts: "Descale the kettle every month with citric acid." [3]');
  });

  it('writes no [N] marker when the prompt forbids markers', async () => {
    expect((await ask('How long does delivery to Germany take?', { citations: false })).content).toBe('From the excerpts: "Delivery to Germany takes 3 to 5 working days and costs €9."');
  });

  it('frames the answer in the language of the question when the prompt asks for it, the quote unchanged', async () => {
    expect((await ask('Jak długo trwa dostawa do Niemiec (Germany)?')).content).toBe('Z fragmentów: "Delivery to Germany takes 3 to 5 working days and costs €9." [1]');
    expect((await ask('Wie lange dauert die Lieferung nach Germany?')).content).toMatch(/^Aus den Auszügen: "Delivery to Germany/);
    expect((await ask('Comment faire le descale du kettle ?')).content).toMatch(/^D’après les extraits : "Descale the kettle/);
    expect((await ask('¿Cuánto cuesta el delivery a Germany?')).content).toMatch(/^Según los fragmentos: "Delivery to Germany/);
    // Without the instruction the framing stays English.
    const plain = await new LocalProvider().chat({ settings, messages: [{ role: 'system', content: formatExcerpts(EXCERPTS) }, { role: 'user', content: 'Jak długo trwa dostawa do Germany?' }] });
    expect(plain.content).toMatch(/^From the excerpts: /);
  });

  it('says so when no sentence shares a word with the question', async () => {
    expect((await ask('Do you sell umbrellas?')).content).toBe('The excerpts do not answer this question.');
    expect((await ask('Czy sprzedajecie parasole?')).content).toBe('Fragmenty nie odpowiadają na to pytanie.');
  });

  it('stays deterministic, streams the reply token by token and counts tokens', async () => {
    const a = await ask('How long does delivery to Germany take?', { stream: true });
    const b = await ask('How long does delivery to Germany take?');
    expect(a.content).toBe(b.content);
    expect(a.tokens.join('')).toBe(a.content);
    expect(a.usage).toEqual({ promptTokens: countPromptTokens(a.messages), completionTokens: a.tokens.length, totalTokens: countPromptTokens(a.messages) + a.tokens.length, source: 'provider' });
    expect(a.model).toBe('local-echo');
  });

  it('keeps the echo reply without an Excerpts block', async () => {
    const r = await new LocalProvider().chat({ settings, messages: [{ role: 'system', content: 'Answer in the language of the user.' }, { role: 'user', content: 'hello' }] });
    expect(r.content).toBe('You said: "hello".');
  });

  it('detects en, pl, de, fr and es and splits sentences at capitals only', () => {
    expect(['Where is my order?', 'Gdzie jest moje zamówienie?', 'Wo ist meine Bestellung?', 'Où est ma commande ?', '¿Dónde está mi pedido?'].map(detectLanguage)).toEqual(['en', 'pl', 'de', 'fr', 'es']);
    expect(['Answer in the language of the user.', 'Reply in the user’s language.', 'Use the language the customer writes in.', 'Answer in the same language as the question.'].map(asksForUsersLanguage)).toEqual([true, true, true, true]);
    expect(asksForUsersLanguage('Answer in English.')).toBe(false);
    expect(sentencesOf('It costs 2.5 euros, e.g. for tea. Then pay.')).toEqual(['It costs 2.5 euros, e.g. for tea.', 'Then pay.']);
  });
});
