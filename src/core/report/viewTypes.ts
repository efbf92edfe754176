/** What the Comparison and Dashboard webviews display (pure data, built in core/report/viewModels). */
export interface MetricRow { key: string; label: string; unit: string; direction: 'lower' | 'higher' | 'none'; baseline: number | null; human: number | null; agent: number | null; humanDelta: number | null; agentDelta: number | null }
export interface RoleFailure { role: string; status: string; title: string; cause: string | null; description: string; fixability: string | null; evidence: { file: string; field: string | null; line: number; text: string } | null }
export interface Attempt { role: string; status: string; value: number | null; timestamp: string | null; source: string }
export interface ComparisonData {
  view: 'comparison';
  commit: string; subject: string | null; model: string | null; agent: string | null; outcome: string; verdict: string;
  comparability: { ok: boolean; reasons: string[] };
  primary: { key: string; label: string; unit: string } | null;
  metrics: MetricRow[];
  failures: RoleFailure[];
  attempts: Attempt[];
  spread: Array<{ role: string; n: number; min: number; max: number; mean: number }>;
}
export interface DashboardData {
  view: 'dashboard';
  folder: string;
  totals: { entries: number; commits: number; complete: number; incomparable: number; partial: number; failed: number };
  byCategory: Array<{ outcome: string; title: string; count: number; fixability: string | null }>;
  byFixability: Array<{ fixability: string; count: number }>;
  agents: Array<{ agent: string; win: number; tie: number; loss: number; agentFailed: number }>;
  scatter: Array<{ commit: string; agent: string | null; human: number; agent_: number }>;
}
