import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DIAGNOSTIC_CODES } from './codes';

const START = '<!-- diagnostic codes: generated from DIAGNOSTIC_CODES in libs/flow/compile/src/codes.ts -->';
const END = '<!-- end of diagnostic codes -->';

/** The README table of every code the compile library emits, in the order of DIAGNOSTIC_CODES. */
export function diagnosticCodesTable(): string {
  const rows = Object.entries(DIAGNOSTIC_CODES).map(([code, info]) => `| \`${code}\` | ${info.severity} | ${info.rule.replace(/\|/g, '\\|')} |`);
  return [START, '| Code | Severity | Rule |', '|---|---|---|', ...rows, END].join('\n');
}

describe('README list of diagnostic codes', () => {
  it('lists every code the compile library emits, with its severity and rule', () => {
    const readme = readFileSync(path.resolve(__dirname, '../../../../README.md'), 'utf8');
    const start = readme.indexOf(START);
    const end = readme.indexOf(END);
    const listed = start >= 0 && end > start ? readme.slice(start, end + END.length) : '(no generated table in README.md)';
    // On a mismatch, paste the expected block into README.md in place of the old one.
    expect(listed).toBe(diagnosticCodesTable());
  });
});
