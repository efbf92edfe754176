import type { Commit, Run } from '../model';
import type { ClassifyInput, TextInput } from './engine';
import { fieldText } from '../ingest/fields';
export { fieldText };

/**
 * The texts a run's classification looks at: its kept output (embedded log fields and sibling
 * log files, in that order), then its error text. Each keeps the file and field it came from, so
 * evidence points at a line the user can open.
 */
export function runTexts(run: Run, doc: unknown, logFiles: ReadonlyMap<string, string> = new Map()): TextInput[] {
  const out: TextInput[] = [];
  for (const l of run.logs) {
    const text = fieldText(doc, l.field);
    if (text && l.field !== run.errorField) out.push({ source: { file: run.provenance.file, field: l.field }, text, scope: 'output' });
  }
  for (const f of run.logFiles) {
    const text = logFiles.get(f);
    if (text) out.push({ source: { file: f, field: null }, text, scope: 'output' });
  }
  if (run.error) {
    const fromFile = run.errorField ? fieldText(doc, run.errorField) : null;
    // A composed error has no field in the file; it still informs the generic rules.
    out.push({ source: { file: run.provenance.file, field: fromFile !== null ? run.errorField : null }, text: fromFile ?? run.error, scope: 'error' });
  }
  return out;
}

export function runContext(run: Run, commit?: Commit | null): string {
  const command = run.command ?? commit?.perfCommands[0]?.command ?? '';
  return `command: ${command}\nmodel: ${run.model ?? commit?.models[0] ?? ''}\nsubject: ${commit?.subject ?? ''}`;
}

export function classifyInput(run: Run, doc: unknown, logFiles?: ReadonlyMap<string, string>, commit?: Commit | null): ClassifyInput {
  return { role: run.role, status: run.status, texts: runTexts(run, doc, logFiles), context: runContext(run, commit) };
}
