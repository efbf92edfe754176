import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { category, isKnownCategory, labelLines, withLabel, type Label } from '../core/classify';
import { labelsFile, loadLabels } from './labelsFile';
import { ROLES, type Role } from '../core/model';
import { analyzeFolder, loadUserRules } from './analyzeFolder';
import { clean } from './terminal';

type Out = (s: string) => void;

export interface LabelArgs {
  folder: string;
  commit?: string;
  agent?: string;
  role?: string;
  category?: string;
  note?: string;
  list: boolean;
}

/**
 * `bench-triage label <folder> --commit C --role R --category X [--agent A] [--note TEXT]`: sets a
 * run's category by hand, with the evidence lines it was set on (`--list` shows the labels). The
 * file is replaced whole (written beside, then renamed): a crash leaves the old one.
 */
export async function labelCommand(a: LabelArgs, out: Out, err: Out): Promise<number> {
  const labels = loadLabels(a.folder, err);
  if (a.list) {
    if (!labels.length) out(`no labels in ${clean(labelsFile(a.folder))}`);
    for (const l of labels)
      out(`${l.commit.slice(0, 8)} ${l.role}${l.agent ? ` (${clean(l.agent)})` : ''}: ${l.category}${l.was ? ` (was ${l.was})` : ''} — ${clean(l.run)}`);
    return 0;
  }
  if (!a.commit || !a.role || !a.category) throw new Error('label needs --commit, --role and --category (or --list)');
  if (!(ROLES as readonly string[]).includes(a.role)) throw new Error(`--role must be one of ${ROLES.join(', ')} (got ${a.role})`);
  if (!isKnownCategory(a.category))
    throw new Error(
      `--category "${a.category}" is not a category (e.g. gpu-oom, dependency-conflict; every category is listed in the README, How failures are explained)`,
    );
  const an = await analyzeFolder(a.folder, { rules: loadUserRules(a.folder, undefined, err), labels });
  const matches = an.entries.filter(e => e.commit.startsWith(a.commit!) && (a.agent === undefined || e.agent === a.agent));
  if (!matches.length) throw new Error(`no commit ${a.commit}${a.agent ? ` with agent ${a.agent}` : ''} in ${a.folder}`);
  if (new Set(matches.map(e => e.commit)).size > 1)
    throw new Error(`--commit ${a.commit} names several commits: ${[...new Set(matches.map(e => e.commit.slice(0, 12)))].join(', ')}`);
  if (matches.length > 1 && a.role === 'agent' && a.agent === undefined)
    throw new Error(`commit ${a.commit} has several agents (${matches.map(e => e.agent).join(', ')}): say which with --agent`);
  const e = matches[0];
  const run = e.roles[a.role as Role].run;
  if (!run) throw new Error(`commit ${e.commit.slice(0, 8)} has no ${a.role} run`);
  const c = an.classifications.get(run.id);
  const label: Label = {
    run: run.id,
    commit: e.commit,
    agent: a.role === 'agent' ? e.agent : null,
    role: a.role as Role,
    category: a.category,
    was: c?.category ?? null,
    lines: labelLines(c).map(x => ({ file: x.file, line: x.line, text: x.text })),
    ...(a.note ? { note: a.note.slice(0, 2000) } : {}),
    at: new Date().toISOString(),
  };
  const file = labelsFile(a.folder);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, withLabel(labels, label));
  renameSync(`${file}.tmp`, file);
  out(
    `${e.commit.slice(0, 8)} ${a.role}: ${category(a.category).title}${c ? ` (was ${category(c.category).title})` : ''}, on ${label.lines.length} evidence line${label.lines.length === 1 ? '' : 's'} → ${clean(file)}`,
  );
  return 0;
}
