import { LlmConfigError } from '../errors';
import { actionOf, type Guard, type GuardCheck, type GuardResult, stringList } from './guard';

/** Kinds of personal data the `pii` guard detects. */
export type PiiKind = 'email' | 'phone' | 'card';
export const PII_KINDS: readonly PiiKind[] = ['email', 'phone', 'card'];

const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu;
// Digit runs with the usual separators; what they are is decided by counting digits and Luhn.
const DIGIT_RUN = /\+?\d(?:[\s().-]{0,2}\d){6,22}/g;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The Luhn checksum (ISO/IEC 7812): true for a plausible payment card number. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** Personal data found in a text, by kind (values masked but for their last characters). */
export function findPii(text: string, kinds: readonly PiiKind[] = PII_KINDS): Array<{ kind: PiiKind; masked: string }> {
  const found: Array<{ kind: PiiKind; masked: string }> = [];
  if (kinds.includes('email')) for (const m of text.matchAll(EMAIL)) found.push({ kind: 'email', masked: maskEmail(m[0]) });
  for (const m of text.matchAll(DIGIT_RUN)) {
    const raw = m[0];
    const digits = raw.replace(/\D/g, '');
    if (digits.length >= 13 && digits.length <= 19 && luhnValid(digits)) {
      if (kinds.includes('card')) found.push({ kind: 'card', masked: `card ending ${digits.slice(-4)}` });
      continue;
    }
    if (!kinds.includes('phone') || ISO_DATE.test(raw.trim())) continue;
    const international = raw.startsWith('+');
    if ((international && digits.length >= 8 && digits.length <= 15) || (!international && digits.length >= 9 && digits.length <= 15)) {
      found.push({ kind: 'phone', masked: `phone ending ${digits.slice(-2)}` });
    }
  }
  return found;
}

function maskEmail(email: string): string {
  const at = email.indexOf('@');
  return `${email[0]}***${email.slice(at)}`;
}

/**
 * `pii`: email addresses, phone numbers (8 to 15 digits with +, 9 to 15 without; dates excluded)
 * and payment card numbers (13 to 19 digits passing Luhn). Configure `detect` (subset of email,
 * phone, card) and `action` (default `flag`: a user giving their own email for a handoff should
 * not be refused; set `block` for output guards that must never leak data).
 */
export class PiiGuard implements Guard {
  readonly id = 'pii';
  readonly description = 'Flags (or blocks) text containing email addresses, phone numbers or payment card numbers (Luhn-checked).';

  async check({ text, config }: GuardCheck): Promise<GuardResult> {
    const requested = stringList(config.detect).map((k) => k.toLowerCase());
    const unknown = requested.filter((k) => !(PII_KINDS as readonly string[]).includes(k));
    if (unknown.length) throw new LlmConfigError(`pii detect has unknown kinds ${unknown.join(', ')}; known: ${PII_KINDS.join(', ')}`);
    const kinds = requested.length ? (requested as PiiKind[]) : PII_KINDS;
    const found = findPii(text, kinds);
    if (found.length === 0) return { verdict: 'allow', reasons: [] };
    return { verdict: actionOf(config, 'flag'), reasons: found.map((f) => `contains ${f.kind === 'email' ? 'an email address' : f.kind === 'phone' ? 'a phone number' : 'a payment card number'} (${f.masked})`) };
  }
}
