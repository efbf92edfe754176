import { z } from 'zod';
import { BenchmarkModeSchema } from './enums';

export const PerfCommandSchema = z.object({
  command: z.string(),
  /** Relative path of the file that states it (dataset, mapping or result file). */
  source: z.string(),
});
export type PerfCommand = z.infer<typeof PerfCommandSchema>;

export const CommitSchema = z.object({
  /** 40-hex where known, else the longest prefix seen. */
  hash: z.string(),
  parent: z.string().nullable(),
  subject: z.string().nullable(),
  prUrl: z.string().nullable(),
  perfCommands: z.array(PerfCommandSchema),
  models: z.array(z.string()),
  gpuConfig: z.string().nullable(),
  benchmarkMode: BenchmarkModeSchema.nullable(),
  /** vllm, sglang … from the data (dataset `repo`, folder names, commands); null when nothing says. */
  project: z.string().nullable(),
  /** Where the human patch text can be read (dataset `diff_text`); the text itself stays in the file. */
  humanPatch: z.object({ source: z.string(), line: z.number().int().positive(), length: z.number().int() }).nullable(),
});
export type Commit = z.infer<typeof CommitSchema>;

export function emptyCommit(hash: string): Commit {
  return {
    hash,
    parent: null,
    subject: null,
    prUrl: null,
    perfCommands: [],
    models: [],
    gpuConfig: null,
    benchmarkMode: null,
    project: null,
    humanPatch: null,
  };
}
