/**
 * The id of a duplicate when the caller names none (rule 21): `<src>-copy` while that is free, else
 * `<src>-copy-<N>` with N one more than the highest number in use (starting at 2), so copies keep
 * counting up even after earlier ones were deleted.
 */
export function nextCopyId(sourceId: string, taken: Iterable<string>): string {
  const base = `${sourceId}-copy`;
  const ids = new Set(taken);
  if (!ids.has(base)) return base;
  let highest = 1;
  for (const id of ids) {
    if (!id.startsWith(`${base}-`)) continue;
    const suffix = id.slice(base.length + 1);
    if (/^[1-9]\d*$/.test(suffix)) highest = Math.max(highest, Number(suffix));
  }
  return `${base}-${highest + 1}`;
}
