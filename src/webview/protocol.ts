/** The one message protocol between the extension and its webviews (no vscode import: both sides use it). */
import type { AblationData, ComparisonData, DashboardData } from '../core/report/viewTypes';
export type * from '../core/report/viewTypes';

export type HostToWebview = { type: 'show'; data: ComparisonData | DashboardData | AblationData };
export type WebviewToHost =
  | { type: 'ready' }
  | { type: 'openEvidence'; file: string; field: string | null; line: number }
  | { type: 'openCommit'; commit: string; agent: string | null }
  | { type: 'exportReport' }
  /** Plan (and, confirmed, run) N more interleaved attempts of every role of the shown commit. */
  | { type: 'runMore'; commit: string; agent: string | null; n: number }
  | { type: 'setIncludeIncomparable'; include: boolean }
  /** Show in the Commits view what a Dashboard row counts (a selector: `outcome=…`, `blocked=…`, `agent=…`). */
  | { type: 'filterTree'; filter: string }
  /** Ablation view: show a unit's first hunk in the patch. */
  | { type: 'openHunk'; unit: string }
  /** Ablation view: save the minimal subset's patch as a `.diff` (asks where). */
  | { type: 'exportMinimal' }
  /** Ablation view: the same figures as a Markdown document. */
  | { type: 'openMarkdown' };
