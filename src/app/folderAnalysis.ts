import type { FileSource, ScanResult } from '../core/ingest';
import type { Classification, Label, Rule } from '../core/classify';
import type { CommitTriage } from '../core/compare';
import type { PrimaryOverride } from '../core/metrics';
import { Workspace, type LoadOptions } from './workspace';
import type { IndexStore } from './indexStore';

export interface AnalyzeOptions extends LoadOptions {
  tieBand?: number;
  rules?: Rule[];
  primaryMetric?: PrimaryOverride;
  allowFailedRequests?: boolean;
  labels?: Label[];
  /** A persistent index (the CLI's `--cache DIR`): a second run reads only what changed. */
  index?: IndexStore | null;
  /** The folder's name in keys and messages (default: the source's root as given). */
  folder?: string;
}

export interface Analysis {
  workspace: Workspace;
  scan: ScanResult;
  classifications: Map<string, Classification>;
  entries: CommitTriage[];
}

/** One folder loaded once through the shared Workspace (the CLI's commands, tests). */
export async function analyze(source: FileSource, opts: AnalyzeOptions = {}): Promise<Analysis> {
  const settings = {
    tieBand: opts.tieBand ?? 2,
    rules: opts.rules ?? [],
    primaryMetric: opts.primaryMetric ?? {},
    allowFailedRequests: !!opts.allowFailedRequests,
    labels: opts.labels ?? [],
  };
  const workspace = new Workspace(opts.folder ?? '.', source, () => settings, opts.index ?? null);
  if (opts.index) {
    // With an index: the last answer at once, then only what changed since is read; the index is
    // written again only when something did.
    const { warm, revalidated } = await workspace.open(opts);
    const change = await revalidated;
    if (!warm || change.kind !== 'none') await workspace.saveIndex();
  } else await workspace.load(opts);
  return { workspace, scan: workspace.result, classifications: workspace.classifications, entries: workspace.entries };
}
