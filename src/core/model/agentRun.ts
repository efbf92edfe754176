import { z } from 'zod';

/** One agent attempt at one commit (an item folder of ISO-Bench/state/runs). */
export const AgentRunSchema = z.object({
  /** Item folder, relative to the scanned folder. */
  dir: z.string(),
  repo: z.string().nullable(),
  /** Agent and model come from the folder path: the files inside misreport them (research §3, §7.14). */
  agent: z.string().nullable(),
  model: z.string().nullable(),
  runTimestamp: z.string().nullable(),
  itemId: z.string(),
  commit: z.string().nullable(),
  /** Which file named the commit: journal.json, run_summary.json, prompt.json or the item id. */
  linkedVia: z.string(),
  parent: z.string().nullable(),
  status: z.string().nullable(),
  patch: z.object({ path: z.string(), bytes: z.number().int(), empty: z.boolean() }).nullable(),
});
export type AgentRun = z.infer<typeof AgentRunSchema>;

export interface UnlinkedAgentRun {
  path: string;
  reason: string;
}
