import { getLocation } from 'jsonc-parser';
import { VERSIONED_FLAGS, modelSize, toOfflineCommand } from '../core/perfcmd';
import { lookupAlias, metricDef } from '../core/metrics';
import { CATEGORIES, category, CAUSES } from '../core/classify/taxonomy';
import type { Analysis, Finding, PerfCommandSite } from './documentFindings';
import { jsonEscape } from './jsonString';
import { mdText } from '../core/report/markdown';

/** Data in a hover is escaped for Markdown: a model name or a key cannot inject links, HTML or code. */
const md = (s: string) => mdText(s, 200);

export interface Edit {
  start: number;
  end: number;
  newText: string;
}
export interface Fix {
  title: string;
  edit: Edit;
  preferred?: boolean;
}

/** Sites sorted by start, per analysis: a lookup is a binary search (a code action over 20 000 rows looks up each). */
const sorted = new WeakMap<Analysis, PerfCommandSite[]>();

export function siteAt(a: Analysis, offset: number): PerfCommandSite | null {
  let s = sorted.get(a);
  if (!s) sorted.set(a, (s = [...a.sites].sort((x, y) => x.token.start - y.token.start)));
  let lo = 0,
    hi = s.length - 1,
    at = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (s[mid].token.start <= offset) {
      at = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  // Sites do not overlap: the last one starting at or before the offset is the only candidate.
  return at >= 0 && offset <= s[at].token.end ? s[at] : null;
}

/** Decoded index of a document offset inside a site's string. */
function indexIn(site: PerfCommandSite, offset: number): number {
  let k = 0;
  while (k < site.token.value.length && site.token.at(k + 1) <= offset) k++;
  return k;
}

/** Markdown hover text, or null. */
export function hover(a: Analysis, text: string, offset: number): string | null {
  const site = siteAt(a, offset);
  if (site) {
    const k = indexIn(site, offset);
    const p = site.parsed;
    for (const f of p.flags) {
      if (k >= f.nameTok.start && k <= f.nameTok.end) {
        const doc = p.flagTable?.[f.name];
        if (!doc) return `**${md(f.name)}** — not a flag of ${md(p.script ?? '')}`;
        const versions = VERSIONED_FLAGS.filter(v => v.flag === f.name)
          .map(v => `\n\nvLLM ≥ ${v.since}: ${f.name} ${v.note}`)
          .join('');
        return `**${md(f.name)}**${doc.takesValue ? ' `<value>`' : ''} — ${doc.meaning}${doc.default ? `\n\nDefault: \`${doc.default}\`` : ''}${versions}\n\n(${md(p.script ?? '')})`;
      }
      if (f.value && k >= f.value.start && k <= f.value.end && f.name === '--model') {
        const size = modelSize(f.value.text);
        return size
          ? `**${md(f.value.text)}**\n\n~${size.params} B parameters · ~${Math.round(size.gpuMemGB)} GB GPU memory in bf16 · needs about **${size.h100s} H100${size.h100s > 1 ? 's' : ''}**`
          : `**${md(f.value.text)}** — size unknown (no parameter count in the name)`;
      }
    }
    return p.script ? `${md(p.script)} · ${p.kind ?? 'unknown kind'} benchmark · run as argv, never through a shell` : null;
  }
  if (a.kind === 'json' || a.kind === 'rules' || a.kind === 'jsonl') {
    const lineStart = a.kind === 'jsonl' ? text.lastIndexOf('\n', offset - 1) + 1 : 0;
    const lineEnd = a.kind === 'jsonl' ? (text.indexOf('\n', offset) + 1 || text.length + 1) - 1 : text.length;
    const loc = getLocation(text.slice(lineStart, lineEnd), offset - lineStart);
    const key = loc.path[loc.path.length - 1];
    if (typeof key === 'string' && loc.isAtPropertyKey) {
      const al = lookupAlias(key);
      const def = al && metricDef(al.canonical);
      if (def)
        return `**${md(key)}** → \`${def.key}\` — ${def.label}${def.unit ? ` (${def.unit})` : ''}${al!.scale ? `, ×${al!.scale} to convert` : ''}\n\n${def.direction === 'lower' ? 'Lower is better.' : def.direction === 'higher' ? 'Higher is better.' : 'A count, not a performance metric.'}`;
    }
    const v = loc.previousNode?.type === 'string' ? String(loc.previousNode.value) : null;
    if (v && CATEGORIES.some(c => c.id === v)) {
      const c = category(v);
      return `**${c.title}** (\`${c.id}\`, ${c.group}) — ${c.description}\n\nFixability: **${c.fixability}**${c.recipe ? ` · recipe \`${c.recipe}\`` : ''}`;
    }
    if (v && v in CAUSES) return `cause \`${v}\` — ${CAUSES[v]}`;
  }
  return null;
}

export interface CompletionEntry {
  label: string;
  detail: string;
  documentation?: string;
  kind: 'flag' | 'model';
  edit: Edit;
}

/** Flags of the command's script, or model names after `--model`. */
export function complete(a: Analysis, offset: number, modelsSeen: Iterable<string>): CompletionEntry[] {
  const site = siteAt(a, offset);
  if (!site || offset <= site.token.start || offset >= site.token.end) return [];
  const k = indexIn(site, offset);
  const before = site.token.value.slice(0, k);
  const word = /(\S*)$/.exec(before)![1];
  const prev = /(\S+)\s+\S*$/.exec(before)?.[1];
  const edit = (text: string): Edit => ({ start: site.token.at(k - word.length), end: offset, newText: site.json ? jsonEscape(text) : text });
  if (prev === '--model') {
    return [...new Set(modelsSeen)]
      .filter(m => m.startsWith(word) || !word)
      .sort()
      .map(m => ({ label: m, detail: 'model seen in the workspace', kind: 'model', edit: edit(m) }));
  }
  if (!site.parsed.flagTable || (word && !word.startsWith('-'))) return [];
  // The flag being typed does not count as already used.
  const used = new Set(site.parsed.flags.filter(f => !(k >= f.nameTok.start && k <= f.nameTok.end)).map(f => f.name));
  return Object.entries(site.parsed.flagTable)
    .filter(([name]) => !used.has(name) && name.startsWith(word))
    .map(([name, doc]) => ({
      label: name,
      detail: doc.default ? `default ${doc.default}` : doc.takesValue ? 'takes a value' : 'switch',
      documentation: doc.meaning,
      kind: 'flag',
      edit: edit(name),
    }));
}

/** Quick fixes for one finding. */
export function fixes(a: Analysis, f: Finding): Fix[] {
  const site = siteAt(a, f.start);
  if (!site) return [];
  const esc = (s: string) => (site.json ? jsonEscape(s) : s);
  if (f.code === 'placeholder') {
    const flag = String(f.data?.flag ?? '');
    const ph = String(f.data?.placeholder ?? '');
    const values =
      flag === '--model'
        ? site.models
        : (() => {
            const d = site.parsed.flagTable?.[flag]?.default;
            return d ? [d] : [];
          })();
    return values.map((v, i) => ({
      title: `Replace ${ph} with ${v}${flag !== '--model' ? ' (the default)' : ''}`,
      edit: { start: f.start, end: f.end, newText: esc(v) },
      preferred: i === 0,
    }));
  }
  if (f.code === 'no-model') {
    const close = site.token.end - (site.json ? 1 : 0);
    return site.models.map((m, i) => ({ title: `Add --model ${m}`, edit: { start: close, end: close, newText: esc(` --model ${m}`) }, preferred: i === 0 }));
  }
  if (f.code === 'version-bug') {
    const offline = toOfflineCommand(site.token.value);
    if (!offline) return [];
    const s = site.token.start + (site.json ? 1 : 0),
      e = site.token.end - (site.json ? 1 : 0);
    return [{ title: 'Switch to an offline benchmark (benchmark_throughput.py)', edit: { start: s, end: e, newText: esc(offline) }, preferred: true }];
  }
  return [];
}
