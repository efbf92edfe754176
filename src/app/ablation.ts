// Ablation plans of a folder's patches, as both front ends make them (issue 27).
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { applyFilePatch, MAX_PATCH_BYTES, patchProblem, splitPatch, type FilePatch } from '../core/patch';
import type { AgentRun, Commit } from '../core/model';
import type { CommitTriage } from '../core/compare';
import { durationEstimates } from '../core/campaign/plan';
import { planRun, type HostConfig } from '../core/run/plan';
import { mergeDependent, splitUnits, unitMode, type HunkRef, type PatchUnit, type UnitMerge, type UnitMode } from '../core/ablate/units';
import { planAblation, type AblationPlan, type Design } from '../core/ablate/designs';
import { parseJson } from '../core/ingest/json';
import { checkoutHas, commitDiff, fileAt } from './checkout';

export interface AblateOptions {
  folder: string;
  commits: readonly Commit[];
  entries: readonly CommitTriage[];
  agentRuns: ReadonlyArray<Pick<AgentRun, 'commit' | 'agent' | 'patch'>>;
  /** Only this commit (a prefix); else every commit of the folder. */
  commit?: string;
  agent?: string;
  patch: 'agent' | 'human';
  units?: UnitMode;
  design: Design;
  repeats: number;
  host: HostConfig;
  /** A vLLM checkout: each unit is checked to apply alone on the parent, and the human patch can come from it. */
  checkout?: string | null;
  maxTests?: number;
}

export interface CommitAblation {
  commit: string;
  agent: string | null;
  patch: 'agent' | 'human';
  /** Where the patch text was read. */
  source: string;
  mode: UnitMode;
  /** The commit's benchmark mode: it decides the headline metric the report attributes. */
  benchmarkMode: Commit['benchmarkMode'];
  units: PatchUnit[];
  merges: UnitMerge[];
  /** Checked on the parent (`checkout`), or why not (no checkout, the parent not in it). */
  checked: 'parent' | 'unchecked';
  uncheckedWhy: string | null;
  plan: AblationPlan;
  /** The patch's files (not in JSON output: the units say what each holds). */
  files: FilePatch[];
}

export interface AblationRefusal {
  commit: string;
  agent: string | null;
  reason: string;
}

/** Why a patch cannot be ablated, or its files. */
function filesOf(text: string): { files: FilePatch[] } | { refused: string } {
  const problem = patchProblem(text);
  if (problem) return { refused: `the patch ${problem}` };
  return { files: splitPatch(text) };
}

/** The human patch: the dataset's `diff_text`, else `git diff parent commit` in the checkout. */
async function humanPatchText(folder: string, c: Commit, checkout: string | null): Promise<{ text: string; source: string } | { refused: string }> {
  if (c.humanPatch) {
    const text = await readFile(path.join(folder, c.humanPatch.source), 'utf8').catch(() => null);
    const row = text ? parseJson(text.split('\n')[c.humanPatch.line - 1] ?? '') : null;
    const diff = row?.ok ? (row.value as { diff_text?: unknown } | null)?.diff_text : undefined;
    if (typeof diff === 'string') return { text: diff, source: `${c.humanPatch.source}:${c.humanPatch.line} (diff_text)` };
  }
  if (checkout && c.parent && (await checkoutHas(checkout, c.hash)))
    return { text: await commitDiff(checkout, c.parent, c.hash), source: `${checkout} (git diff)` };
  return { refused: 'no human patch: the dataset has no diff_text for it and no checkout holds the commit' };
}

/**
 * Whether a subset of hunks applies on the parent, file by file, with the parent's files read once
 * from the checkout. Null when there is nothing to check against.
 */
async function parentCheck(checkout: string | null, c: Commit, files: readonly FilePatch[]): Promise<((parts: HunkRef[]) => string | null) | null> {
  if (!checkout || !c.parent || !(await checkoutHas(checkout, c.parent))) return null;
  const bases = new Map<string, string>();
  for (const f of files) if (!bases.has(f.path)) bases.set(f.path, f.isNew ? '' : await fileAt(checkout, c.parent, f.path).catch(() => ''));
  return parts => {
    const byFile = new Map<number, number[]>();
    for (const p of parts) byFile.set(p.file, [...(byFile.get(p.file) ?? []), p.hunk]);
    // A path the patch names twice (two sections) is patched in order, each on the text so far, as git applies it.
    const text = new Map(bases);
    for (const file of [...byFile.keys()].sort((a, b) => a - b)) {
      const f = files[file];
      const sub: FilePatch = {
        ...f,
        patch: {
          ...f.patch,
          hunks: byFile
            .get(file)!
            .sort((a, b) => a - b)
            .map(h => f.patch.hunks[h]),
        },
      };
      const r = applyFilePatch(text.get(f.path) ?? '', sub);
      if (!r.ok) return r.error;
      text.set(f.path, r.text);
    }
    return null;
  };
}

/** The ablation plan of each commit the options pick, and the commits refused with their reason. */
export async function planAblations(o: AblateOptions): Promise<{ plans: CommitAblation[]; refusals: AblationRefusal[] }> {
  const plans: CommitAblation[] = [];
  const refusals: AblationRefusal[] = [];
  const estimate = durationEstimates(o.entries);
  const entryOf = new Map(o.entries.map(e => [e.commit, e]));
  const picked = o.commit ? o.commits.filter(c => c.hash.startsWith(o.commit!.toLowerCase())) : o.commits;
  if (o.commit && picked.length !== 1)
    throw new Error(picked.length ? `${o.commit} is ambiguous (${picked.map(c => c.hash.slice(0, 12)).join(', ')})` : `no commit ${o.commit} in ${o.folder}`);
  for (const c of picked) {
    const refuse = (agent: string | null, reason: string) => refusals.push({ commit: c.hash, agent, reason });
    let text: string, source: string;
    let agent: string | null = null;
    if (o.patch === 'agent') {
      const runs = o.agentRuns.filter(r => r.commit === c.hash && (!o.agent || r.agent === o.agent));
      const run = runs.find(r => r.patch && !r.patch.empty) ?? runs[0];
      if (!run) {
        refuse(o.agent ?? null, o.agent ? `no run of agent ${o.agent}` : 'no agent run');
        continue;
      }
      agent = run.agent ?? null;
      if (!run.patch || run.patch.empty) {
        refuse(agent, 'the agent made no patch (model_patch.diff empty or missing)');
        continue;
      }
      if (run.patch.bytes > MAX_PATCH_BYTES) {
        refuse(agent, `the patch is ${(run.patch.bytes / 1048576).toFixed(0)} MB, above the ${MAX_PATCH_BYTES / 1048576} MB limit`);
        continue;
      }
      source = run.patch.path;
      const read = await readFile(path.join(o.folder, source), 'utf8').catch((e: NodeJS.ErrnoException) => ({ error: e.code ?? e.message }));
      if (typeof read !== 'string') {
        refuse(agent, `${source}: ${read.error}`);
        continue;
      }
      text = read;
    } else {
      const h = await humanPatchText(o.folder, c, o.checkout ?? null);
      if ('refused' in h) {
        refuse(null, h.refused);
        continue;
      }
      ({ text, source } = h);
    }
    const parsed = filesOf(text);
    if ('refused' in parsed) {
      refuse(agent, parsed.refused);
      continue;
    }
    // The variants run as the agent role does: the same perf command, image and GPUs.
    let gpus: number;
    try {
      gpus = Math.max(1, planRun(c, 'agent', { host: o.host, agentPatch: '(the variant)', runId: 'plan' }).tensorParallel ?? 1);
    } catch (e) {
      refuse(agent, (e instanceof Error ? e.message : String(e)).replace(/^refused:\s*/, ''));
      continue;
    }
    const mode = unitMode(parsed.files, o.units);
    const check = await parentCheck(o.checkout ?? null, c, parsed.files).catch(() => null);
    const uncheckedWhy = check ? null : !o.checkout ? 'no checkout' : `the parent ${c.parent?.slice(0, 12) ?? '(unknown)'} is not in the checkout`;
    let units = splitUnits(parsed.files, mode);
    let merges: UnitMerge[] = [];
    if (check) {
      const m = mergeDependent(units, check);
      if (m.unappliable.length) {
        refuse(agent, `does not apply to the parent ${c.parent?.slice(0, 12)}: ${m.unappliable.map(u => `${u.unit}: ${u.why}`).join('; ')}`);
        continue;
      }
      ({ units, merges } = m);
    }
    const e = entryOf.get(c.hash);
    const estimateS = e ? estimate(e, 'agent') : 900;
    let plan: AblationPlan;
    try {
      plan = planAblation(units, { design: o.design, repeats: o.repeats, estimateS, gpus, maxTests: o.maxTests });
    } catch (err) {
      refuse(agent, err instanceof Error ? err.message : String(err));
      continue;
    }
    plans.push({
      commit: c.hash,
      agent,
      patch: o.patch,
      source,
      mode,
      benchmarkMode: c.benchmarkMode,
      units,
      merges,
      checked: check ? 'parent' : 'unchecked',
      uncheckedWhy,
      plan,
      files: parsed.files,
    });
  }
  return { plans, refusals };
}
