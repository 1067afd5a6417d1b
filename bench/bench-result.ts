/** One benchmark figure next to its baseline from the same run, as every bench/ file reports it. */
export interface BenchResult {
  name: string;
  ours: number;
  baseline: number;
  unit: string;
  /** ours / baseline (higher is better for rates). */
  ratio: number;
  notes?: string;
}

/** Runs `run` when its file is started directly (`node dist/bench/<name>.bench.js`): the table, then the JSON. */
export function runWhenMain(mod: NodeJS.Module, run: () => Promise<BenchResult[]>): void {
  if (require.main !== mod) return;
  run()
    .then((rows) => {
      console.table(rows.map(({ notes: _notes, ...r }) => r));
      console.log(JSON.stringify(rows, null, 2));
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
