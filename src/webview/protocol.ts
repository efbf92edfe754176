/** The one message protocol between the extension and its webviews (no vscode import: both sides use it). */
import type { ComparisonData, DashboardData } from '../core/report/viewTypes';
export type * from '../core/report/viewTypes';

export type HostToWebview = { type: 'show'; data: ComparisonData | DashboardData };
export type WebviewToHost =
  | { type: 'ready' }
  | { type: 'openEvidence'; file: string; field: string | null; line: number }
  | { type: 'openCommit'; commit: string }
  | { type: 'exportReport' };
