import { LlmBadResponseError, LlmConfigError } from '../errors';
import { GUARD_VERDICTS, type Guard, type GuardCheck, type GuardResult, type GuardVerdict } from './guard';
import { classifierRubric } from './rubric';

/** The classifier answered something other than the verdict format. */
export class GuardVerdictError extends LlmBadResponseError {
  constructor(message: string) {
    super(message);
  }
}

const FENCED = /^```(?:json)?\s*\n?([\s\S]*?)\n?\s*```$/i;
const MAX_REASONS = 10;

/**
 * Parses a classifier verdict strictly: exactly one JSON object (optionally inside one Markdown
 * code fence) with `verdict` ∈ allow|flag|block (lower case) and optional `reasons` (list of
 * strings), and no other keys. Prose, two objects, an unknown verdict or a stray key all throw
 * `GuardVerdictError`: a model that cannot follow the format is not trusted to judge.
 */
export function parseVerdict(reply: string): GuardResult {
  let text = reply.trim();
  const fenced = FENCED.exec(text);
  if (fenced) text = fenced[1].trim();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new GuardVerdictError('classifier reply is not a JSON verdict');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new GuardVerdictError('classifier reply is not a JSON object');
  const obj = parsed as Record<string, unknown>;
  const extra = Object.keys(obj).filter((k) => k !== 'verdict' && k !== 'reasons');
  if (extra.length) throw new GuardVerdictError(`classifier reply has unexpected keys: ${extra.join(', ')}`);
  if (typeof obj.verdict !== 'string' || !(GUARD_VERDICTS as readonly string[]).includes(obj.verdict)) {
    throw new GuardVerdictError('classifier verdict must be "allow", "flag" or "block"');
  }
  let reasons: string[] = [];
  if (obj.reasons !== undefined) {
    if (!Array.isArray(obj.reasons) || obj.reasons.some((r) => typeof r !== 'string')) throw new GuardVerdictError('classifier reasons must be a list of strings');
    reasons = (obj.reasons as string[]).slice(0, MAX_REASONS).map((r) => r.slice(0, 200));
  }
  const verdict = obj.verdict as GuardVerdict;
  return { verdict, reasons: verdict === 'allow' ? [] : reasons.length ? reasons : [`classifier verdict ${verdict}`] };
}

/**
 * `llm-classifier`: asks a model (the profile or settings of the guard node) for a verdict with a
 * fixed rubric, at temperature 0, and parses the answer strictly.
 */
export class LlmClassifierGuard implements Guard {
  readonly id = 'llm-classifier';
  readonly description = 'Asks a model for an allow, flag or block verdict with a fixed safety rubric; the reply is parsed strictly.';
  readonly usesModel = true;

  async check({ text, role, chat, signal }: GuardCheck): Promise<GuardResult> {
    if (!chat) throw new LlmConfigError('llm-classifier needs a model: set a profile or providerID on the guard');
    const result = await chat(
      [
        { role: 'system', content: classifierRubric(role) },
        { role: 'user', content: `Text to review:\n<<<\n${text}\n>>>` },
      ],
      signal,
    );
    return parseVerdict(result.content);
  }
}
