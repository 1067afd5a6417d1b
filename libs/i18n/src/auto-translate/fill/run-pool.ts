/**
 * Runs `task` over `items` with at most `concurrency` in flight; resolves the results in input order.
 * A task that throws rejects the whole pool after the tasks in flight settle.
 */
export async function runPool<T, R>(items: readonly T[], concurrency: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (!failure && next < items.length) {
      const i = next++;
      try {
        results[i] = await task(items[i], i);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, concurrency), items.length) }, worker));
  if (failure) throw failure.error;
  return results;
}
