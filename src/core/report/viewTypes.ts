/** What the Comparison and Dashboard webviews display (pure data, built in core/report/viewModels). */
export type Evidence = { file: string; field: string | null; line: number; text: string };
export interface MetricRow {
  key: string;
  label: string;
  unit: string;
  direction: 'lower' | 'higher' | 'none';
  baseline: number | null;
  human: number | null;
  agent: number | null;
  humanDelta: number | null;
  agentDelta: number | null;
  /** Agent vs human in % (positive = better), its interval and p-value where repeats or samples allow. */
  agentVsHuman: number | null;
  ci: [number, number] | null;
  p: number | null;
  basis: string | null;
  verdict: string | null;
  n: { baseline: number; human: number; agent: number } | null;
  headline: boolean;
  primary: boolean;
  /** Where the unit came from (printed output, counts, field name) per role. */
  unitEvidence: string;
}
export interface FindingView {
  category: string;
  title: string;
  cause: string | null;
  description: string;
  strength: string;
  evidence: Evidence | null;
}
export interface RoleFailure {
  role: string;
  status: string;
  title: string;
  cause: string | null;
  description: string;
  fixability: string | null;
  evidence: Evidence | null;
  findings: FindingView[];
}
/** `when`: the timestamp in the one display format (core/report/when); `timestamp`: as the data wrote it. */
export interface Attempt {
  role: string;
  status: string;
  value: number | null;
  timestamp: string | null;
  when: string;
  source: string;
  counted: boolean;
}
export interface ComparisonData {
  view: 'comparison';
  commit: string;
  subject: string | null;
  model: string | null;
  agent: string | null;
  project: string;
  outcome: string;
  /** The entry's verdict (n/a when not comparable) and the headline comparison behind it. */
  verdict: string;
  headline: {
    key: string;
    label: string;
    unit: string;
    verdict: string;
    basis: string;
    agentVsHuman: number;
    ci: [number, number] | null;
    p: number | null;
    mixed: boolean;
    note: string | null;
  } | null;
  comparability: { ok: boolean; reasons: string[]; notes?: string[] };
  /** Agent vs human alone (the verdict's own comparability), why the baseline is left out, and which attempts were compared. */
  pair: { ok: boolean; reasons: string[] };
  baselineNote: string | null;
  chosen: { why: string; rejected: string[] } | null;
  tieBand: number;
  metrics: MetricRow[];
  failures: RoleFailure[];
  /** Every attempt of every role on the headline metric (a point each in the chart). */
  attempts: Attempt[];
  /** Suggested number of further attempts per role when the verdict is unknown, else null. */
  runMore: number | null;
  conflicts: string[];
  dataProblems: Array<{ role: string; file: string; field: string; message: string }>;
}
export interface VerdictRow {
  key: string;
  label: string;
  win: number;
  tie: number;
  loss: number;
  unknown: number;
  agentFailed: number;
  mixed: number;
  /** Wins, ties and losses resting on a single run each (hints). */
  single: number;
}
export interface DashboardProject {
  project: string;
  totals: { entries: number; commits: number; complete: number; agentVsHuman: number; incomparable: number; partial: number; failed: number };
  byCategory: Array<{ outcome: string; title: string; count: number; fixability: string | null }>;
  /** `fixability` the id (what the tree filter takes), `title` its words. */
  byFixability: Array<{ fixability: string; title: string; count: number }>;
  agents: VerdictRow[];
  metrics: VerdictRow[];
  leftOut: number;
  incomparable: Array<{ commit: string; agent: string | null; reasons: string[] }>;
  scatter: Array<{ commit: string; agent: string | null; human: number; agent_: number; comparable: boolean }>;
}
export interface DashboardData {
  view: 'dashboard';
  folder: string;
  includeIncomparable: boolean;
  projects: DashboardProject[];
}

/** One effect as the Ablation view shows it: the figures, and the same words as the Markdown report. */
export interface AblationEffectView {
  change: number;
  ci: [number, number] | null;
  /** win / tie / loss / unknown (the verdict words of the compare module). */
  verdict: string;
  /** One run each: a hint, not a verdict. */
  single: boolean;
  text: string;
}

/** A unit of the patch: a row that opens its hunk in the patch. */
export interface AblationUnitRow {
  id: string;
  label: string;
  added: number;
  removed: number;
  alone: AblationEffectView | null;
  removal: AblationEffectView | null;
  inMinimal: boolean;
}

export interface AblationData {
  view: 'ablation';
  /** The campaign's id (its folder under `.bench-triage/campaigns/`). */
  id: string;
  commit: string;
  agent: string | null;
  patch: 'agent' | 'human';
  design: string;
  metric: string | null;
  direction: 'lower' | 'higher' | null;
  full: AblationEffectView | null;
  /** The patch's files in patch order, each with its units. */
  files: Array<{ path: string; units: AblationUnitRow[] }>;
  findings: string[];
  merges: string[];
  pending: number;
  why: string | null;
  minimal: { units: string[]; text: string; whole: boolean } | null;
  variants: Array<{ id: string; measured: number; broken: string | null }>;
}
