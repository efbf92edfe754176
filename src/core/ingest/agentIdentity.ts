import type { AgentRun, Run } from '../model';
import { agentFromFolder } from './extract';

/** `claude_code_dataset.json`, `trae_gpt5_dataset.jsonl`: a dataset file made for one agent. */
const AGENT_DATASET = /(?:^|\/)([a-z0-9][a-z0-9_-]*?)_dataset\.jsonl?$/i;
export const agentOfDatasetFile = (path: string): string | null => AGENT_DATASET.exec(path)?.[1] ?? null;

/**
 * Agent names an agent-role run does not state itself, so that one agent is one entry whatever
 * wrote its files (ISO-Bench's flat result files name no agent; the runner's rerun does). In
 * order: the campaign folder of the file (`omniperf_results_3way_<agent>`), the agent runs of the
 * commit (`state/runs/<repo>/<agent>/…`) when they name exactly one agent, the agent dataset
 * naming the commit when there is exactly one. The run says where its name came from (a
 * `problems` entry on field `agent`); with no single answer it stays unnamed.
 */
export function attributeAgents(runs: Run[], agentRuns: readonly AgentRun[], datasetAgents: ReadonlyMap<string, ReadonlySet<string>> = new Map()): void {
  let byCommit: Map<string, Set<string>> | null = null;
  for (const r of runs) {
    if (r.role !== 'agent' || r.agent) continue;
    const fromPath = agentFromFolder(r.provenance.file);
    if (fromPath) {
      name(r, fromPath, `from the folder of ${r.provenance.file}`);
      continue;
    }
    if (!byCommit) {
      byCommit = new Map();
      for (const a of agentRuns) if (a.commit && a.agent) (byCommit.get(a.commit) ?? byCommit.set(a.commit, new Set()).get(a.commit)!).add(a.agent);
    }
    const campaign = byCommit.get(r.commit);
    if (campaign?.size === 1) {
      name(r, [...campaign][0], 'from the agent runs of this commit (state/runs)');
      continue;
    }
    const dataset = datasetAgents.get(r.commit);
    if (dataset?.size === 1) name(r, [...dataset][0], 'from the agent dataset that lists this commit');
  }
}

function name(r: Run, agent: string, how: string): void {
  r.agent = agent;
  r.problems = [...r.problems, { field: 'agent', message: `not named in the file; ${agent} ${how}` }];
}
