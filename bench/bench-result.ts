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
