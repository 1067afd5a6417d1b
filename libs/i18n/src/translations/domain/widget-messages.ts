/**
 * The chat widget's strings (namespace `widget`): English as in the widget's inline defaults
 * (libs/client/widget/src, a spec keeps both in step) and Polish. Seeded write-once at start-up, so
 * a curated or translated text is never overwritten; other languages come from translators.
 */
export const WIDGET_NAMESPACE = 'widget';

export const WIDGET_MESSAGES: Readonly<Record<string, { en: string; pl: string }>> = {
  open: { en: 'Chat with us', pl: 'Czat z nami' },
  title: { en: 'Support chat', pl: 'Czat pomocy' },
  clear: { en: 'Clear chat', pl: 'Wyczyść czat' },
  close: { en: 'Close chat', pl: 'Zamknij czat' },
  offline: { en: 'The assistant is offline right now. Please try again later.', pl: 'Asystent jest teraz niedostępny. Spróbuj ponownie później.' },
  retry: { en: 'Try again', pl: 'Spróbuj ponownie' },
  conversation: { en: 'Conversation', pl: 'Rozmowa' },
  welcome: { en: 'Hello! How can I help you today?', pl: 'Dzień dobry! W czym mogę pomóc?' },
  label: { en: 'Your message', pl: 'Twoja wiadomość' },
  placeholder: { en: 'Type your message…', pl: 'Napisz wiadomość…' },
  send: { en: 'Send', pl: 'Wyślij' },
  you: { en: 'You:', pl: 'Ty:' },
  assistant: { en: 'Assistant:', pl: 'Asystent:' },
  refused: { en: 'Refused', pl: 'Odmowa' },
  typing: { en: 'Typing…', pl: 'Pisze…' },
  sources: { en: 'Sources', pl: 'Źródła' },
  helpful: { en: 'Helpful', pl: 'Pomocne' },
  unhelpful: { en: 'Not helpful', pl: 'Niepomocne' },
  thanks: { en: 'Thanks for your feedback.', pl: 'Dziękujemy za opinię.' },
  tooLong: {
    en: 'Your message has {count, plural, one {# character} other {# characters}}; the limit is {max}. Please shorten it.',
    pl: 'Twoja wiadomość ma {count, plural, one {# znak} few {# znaki} many {# znaków} other {# znaku}}; limit to {max}. Skróć ją, proszę.',
  },
  rateLimited: {
    en: 'Too many messages. Try again in {seconds, plural, one {# second} other {# seconds}}.',
    pl: 'Zbyt wiele wiadomości. Spróbuj ponownie za {seconds, plural, one {# sekundę} few {# sekundy} many {# sekund} other {# sekundy}}.',
  },
  dropped: { en: 'The connection was lost before the answer was complete.', pl: 'Połączenie zostało przerwane, zanim odpowiedź była kompletna.' },
  network: { en: 'The assistant could not be reached. Check your connection.', pl: 'Nie można połączyć się z asystentem. Sprawdź połączenie.' },
  failed: { en: 'Something went wrong.', pl: 'Coś poszło nie tak.' },
  'handoff.open': { en: 'Talk to a human', pl: 'Porozmawiaj z człowiekiem' },
  'handoff.title': { en: 'Talk to a human', pl: 'Porozmawiaj z człowiekiem' },
  'handoff.emailLabel': { en: 'E-mail', pl: 'E-mail' },
  'handoff.reason': { en: 'How can we help?', pl: 'W czym możemy pomóc?' },
  'handoff.priority': { en: 'Priority', pl: 'Priorytet' },
  'priority.low': { en: 'Low', pl: 'Niski' },
  'priority.normal': { en: 'Normal', pl: 'Normalny' },
  'priority.high': { en: 'High', pl: 'Wysoki' },
  'handoff.send': { en: 'Send request', pl: 'Wyślij prośbę' },
  'handoff.back': { en: 'Back to chat', pl: 'Wróć do czatu' },
  'handoff.email': { en: 'Please enter a valid e-mail address.', pl: 'Podaj poprawny adres e-mail.' },
  'handoff.sent': { en: 'Thank you. Someone from our team will contact you soon.', pl: 'Dziękujemy. Ktoś z naszego zespołu wkrótce się z Tobą skontaktuje.' },
  'handoff.duplicate': { en: 'We already have your request. Someone will contact you soon.', pl: 'Mamy już Twoją prośbę. Wkrótce się z Tobą skontaktujemy.' },
};
