/**
 * Webview entry (bundled to dist/webview.js): the Comparison (one commit) and Dashboard (workspace)
 * views. Data arrives as one message and is rendered with DOM APIs and textContent only — result
 * files are untrusted text. State is kept with setState so a reload restores the view.
 */
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, PointElement, ScatterController, Tooltip } from 'chart.js';
import type {
  AblationData,
  AblationEffectView,
  ComparisonData,
  DashboardData,
  DashboardProject,
  HostToWebview,
  MetricRow,
  VerdictRow,
  WebviewToHost,
} from './protocol';
import { pValueText } from '../core/report/pValue';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, ScatterController, PointElement, Tooltip, Legend);
declare function acquireVsCodeApi(): { postMessage(msg: WebviewToHost): void; getState(): unknown; setState(s: unknown): void };
const vscode = acquireVsCodeApi();
const root = document.getElementById('root')!;

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Array<Node | string | null>
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) if (c !== null) e.append(c);
  return e;
}
const css = (name: string) => getComputedStyle(document.body).getPropertyValue(name).trim() || '#888';
const fmt = (v: number | null, digits = 2) => (v === null ? '—' : Math.abs(v) >= 1000 ? v.toFixed(0) : v.toFixed(digits));
const pct = (v: number | null) => (v === null ? '' : `${v > 0 ? '+' : ''}${v.toFixed(1)} %`);
const interval = (c: [number, number] | null) => (c ? `[${c[0].toFixed(1)}, ${c[1].toFixed(1)}] %` : '—');
const button = (label: string, onClick: () => void, aria?: string) => {
  const b = el('button', { type: 'button', 'aria-label': aria ?? label }, label);
  b.addEventListener('click', onClick);
  return b;
};
const unitText = (u: string) => (u === 'unit unknown' ? 'unit unknown' : u);

function deltaCell(v: number | null): HTMLTableCellElement {
  // Improvements are direction-aware already (positive = better), so colour follows the sign.
  const td = el('td', { class: v === null ? '' : v > 0 ? 'better' : v < 0 ? 'worse' : '' }, pct(v));
  if (v !== null) td.setAttribute('aria-label', `${pct(v)} (${v > 0 ? 'better' : v < 0 ? 'worse' : 'same'})`);
  return td;
}

/** Rows move with the arrow keys, Home and End. */
function keyboardRows(table: HTMLTableElement): HTMLTableElement {
  table.addEventListener('keydown', ev => {
    const rowsEls = [...table.querySelectorAll<HTMLTableRowElement>('tbody tr[tabindex]')];
    const i = rowsEls.indexOf(document.activeElement as HTMLTableRowElement);
    const next = ev.key === 'ArrowDown' ? i + 1 : ev.key === 'ArrowUp' ? i - 1 : ev.key === 'Home' ? 0 : ev.key === 'End' ? rowsEls.length - 1 : null;
    if (next === null || i < 0) return;
    ev.preventDefault();
    rowsEls[Math.max(0, Math.min(rowsEls.length - 1, next))].focus();
  });
  return table;
}

function metricsTable(rows: MetricRow[]): HTMLElement {
  // What decides first: in a narrow editor the columns on the right are the ones cut off.
  const heads = ['Metric', 'Verdict', 'Agent vs human', '95 % CI', 'p', 'Basis', 'Human', 'Agent', 'Baseline', 'Human vs baseline', 'Agent vs baseline'];
  const body = rows.map(r => {
    const tr = el(
      'tr',
      { tabindex: '0', class: `${r.primary ? 'primary ' : ''}${r.headline ? 'headline' : ''}`, title: r.unitEvidence ? `unit from: ${r.unitEvidence}` : '' },
      el('th', { scope: 'row' }, `${r.label} (${unitText(r.unit)})${r.direction === 'lower' ? ' ↓' : r.direction === 'higher' ? ' ↑' : ''}`),
      el('td', { class: r.verdict ? `verdict-${r.verdict}` : '' }, r.verdict ?? '—'),
      deltaCell(r.agentVsHuman),
      el('td', {}, interval(r.ci)),
      el('td', {}, pValueText(r.p)),
      el('td', {}, r.basis === 'single' ? 'single run' : r.basis ? `${r.basis} (${r.n?.human ?? 0} vs ${r.n?.agent ?? 0})` : '—'),
      el('td', {}, fmt(r.human)),
      el('td', {}, fmt(r.agent)),
      el('td', {}, fmt(r.baseline)),
      deltaCell(r.humanDelta),
      deltaCell(r.agentDelta),
    );
    if (r.primary) tr.setAttribute('aria-label', `${r.label}: headline metric`);
    return tr;
  });
  return keyboardRows(
    el(
      'table',
      { id: 'metrics', 'aria-label': 'Every metric by role; ★ marks the headline metric, bold rows the other headline metrics; arrow keys move between rows' },
      el('thead', {}, el('tr', {}, ...heads.map(h => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, ...body),
    ),
  );
}

function chart(canvas: HTMLCanvasElement, config: ConstructorParameters<typeof Chart>[1]): void {
  Chart.defaults.color = css('--vscode-foreground');
  Chart.defaults.borderColor = css('--vscode-panel-border');
  new Chart(canvas, { ...config, options: { animation: false, responsive: true, maintainAspectRatio: false, ...config.options } });
}

const ROLE_X: Record<string, number> = { baseline: 0, human: 1, agent: 2 };

function renderComparison(d: ComparisonData): void {
  root.replaceChildren();
  root.append(
    el('h1', {}, `${d.commit.slice(0, 12)} ${d.subject ?? ''}`),
    el(
      'p',
      { class: 'meta' },
      [`project ${d.project}`, d.model && `model ${d.model}`, d.agent && `agent ${d.agent}`, `outcome ${d.outcome}`].filter(Boolean).join(' · '),
    ),
  );
  for (const c of d.conflicts) root.append(el('div', { class: 'warning', role: 'alert' }, `Data conflict: ${c}`));
  const h = d.headline;
  if (h) {
    const noise = h.basis === 'single' ? 'single run — noise unknown' : `${h.basis}: 95 % CI ${interval(h.ci)}, Mann–Whitney p ${pValueText(h.p)}`;
    const box = el(
      'div',
      { class: 'headline', id: 'headline', role: 'status' },
      el(
        'strong',
        {},
        d.pair.ok
          ? h.basis === 'single' && h.verdict !== 'unknown'
            ? `Verdict: ${h.verdict}? on ${h.label} (${unitText(h.unit)}) — a hint from one run each`
            : `Verdict: ${h.verdict} on ${h.label} (${unitText(h.unit)})`
          : `Not comparable — no verdict (the numbers below are shown for reference only)`,
      ),
      el(
        'p',
        {},
        `Agent vs human ${pct(h.agentVsHuman)} · ${noise} · tie band ±${d.tieBand} %${h.mixed ? ' · mixed: the agent wins on one headline metric and loses on another' : ''}`,
      ),
    );
    if (h.note) box.append(el('p', { class: 'meta' }, h.note));
    if (d.runMore !== null) {
      const n = d.runMore;
      box.append(
        el(
          'p',
          {},
          h.basis === 'single'
            ? 'One run each: the run-to-run noise is unknown (vLLM runs vary by 5–20 %), so this is a hint, not a verdict. More attempts of each role, interleaved baseline → human → agent, settle it.'
            : 'Not enough evidence either way: more attempts of each role, interleaved baseline → human → agent, can settle it.',
        ),
        button(
          `Run ${n} more`,
          () => vscode.postMessage({ type: 'runMore', commit: d.commit, agent: d.agent, n }),
          `Run ${n} more attempts of every role of ${d.commit.slice(0, 8)}`,
        ),
      );
    }
    root.append(box);
  }
  if (!d.pair.ok) root.append(el('div', { class: 'warning', role: 'alert' }, `Not comparable: ${d.pair.reasons.join('; ')}`));
  if (d.baselineNote) root.append(el('div', { class: 'warning', role: 'note' }, `Baseline not comparable (agent vs human still is): ${d.baselineNote}`));
  if (d.chosen)
    root.append(el('p', { class: 'meta' }, `Compared: ${d.chosen.why}${d.chosen.rejected.length ? `. Not chosen: ${d.chosen.rejected.join('; ')}` : ''}`));
  for (const n of d.comparability.notes ?? []) root.append(el('p', { class: 'meta note' }, `Note: ${n}`));
  if (d.metrics.length) root.append(el('h2', {}, 'Metrics'), metricsTable(d.metrics));
  else root.append(el('p', {}, 'No role of this commit has metrics yet.'));
  const pm = h && d.metrics.find(m => m.key === h.key);
  if (pm) {
    const points = d.attempts.filter(a => a.value !== null);
    const canvas = el('canvas', {
      role: 'img',
      'aria-label': `${pm.label}: every attempt by role (${points.map(a => `${a.role} ${fmt(a.value)}`).join(', ')})`,
    });
    root.append(el('h2', {}, `${pm.label} (${unitText(pm.unit)}): every attempt`), el('div', { class: 'chart' }, canvas));
    const colour: Record<string, string> = { baseline: css('--vscode-charts-blue'), human: css('--vscode-charts-green'), agent: css('--vscode-charts-purple') };
    chart(canvas, {
      type: 'scatter',
      data: {
        datasets: ['baseline', 'human', 'agent'].map(role => ({
          label: role,
          backgroundColor: colour[role],
          data: points
            .filter(a => a.role === role)
            .map((a, i, all) => ({ x: ROLE_X[role] + (all.length > 1 ? (i / (all.length - 1) - 0.5) * 0.3 : 0), y: a.value! })),
        })),
      },
      // The value axis starts at zero: a 2 % difference must not look like a cliff.
      options: {
        scales: {
          x: { min: -0.5, max: 2.5, ticks: { stepSize: 1, callback: v => ['baseline', 'human', 'agent'][Number(v)] ?? '' } },
          y: { beginAtZero: true, title: { display: true, text: `${pm.label} (${unitText(pm.unit)}), from 0` } },
        },
      },
    });
    if (h && h.ci) {
      const ci = el('canvas', {
        role: 'img',
        'aria-label': `agent vs human ${pct(h.agentVsHuman)}, 95 % interval ${interval(h.ci)}, tie band ±${d.tieBand} %`,
      });
      root.append(el('h2', {}, 'Agent vs human: estimate, 95 % interval and tie band (%)'), el('div', { class: 'chart', style: 'height:120px' }, ci));
      chart(ci, {
        type: 'bar',
        data: {
          labels: ['agent vs human'],
          datasets: [
            { label: `tie band ±${d.tieBand} %`, data: [[-d.tieBand, d.tieBand]], backgroundColor: css('--vscode-editorWidget-border') },
            { label: '95 % interval', data: [h.ci], backgroundColor: css('--vscode-charts-orange') },
            { label: 'estimate', data: [[h.agentVsHuman - 0.05, h.agentVsHuman + 0.05]], backgroundColor: css('--vscode-foreground') },
          ],
        },
        options: { indexAxis: 'y', scales: { y: { stacked: true } } },
      });
    }
  }
  if (d.dataProblems.length) {
    root.append(
      el('h2', {}, 'Data read with caution'),
      el('ul', {}, ...d.dataProblems.map(x => el('li', {}, `${x.role}: ${x.file}, field ${x.field}: ${x.message}`))),
    );
  }
  if (d.failures.length) {
    root.append(el('h2', {}, 'Why roles failed'));
    for (const f of d.failures) {
      const item = el(
        'div',
        { class: 'failure' },
        el('strong', {}, `${f.role}: ${f.title}`),
        f.cause ? ` (${f.cause})` : '',
        f.fixability ? ` · fix: ${f.fixability}` : '',
        el('p', {}, f.description),
      );
      if (f.evidence) {
        const ev = f.evidence;
        item.append(
          el('pre', {}, ev.text),
          button(
            `Open log at line ${ev.line}`,
            () => vscode.postMessage({ type: 'openEvidence', file: ev.file, field: ev.field, line: ev.line }),
            `Open the ${f.role} log at the evidence line ${ev.line}`,
          ),
        );
      }
      const more = f.findings.slice(1);
      if (more.length) {
        item.append(
          el('p', {}, 'Also found:'),
          el(
            'ul',
            {},
            ...more.map(x => {
              const li = el('li', {}, `${x.title}${x.cause ? ` (${x.cause})` : ''} — ${x.description} [${x.strength}]`);
              if (x.evidence) {
                const ev = x.evidence;
                li.append(
                  ' ',
                  button(
                    `line ${ev.line}`,
                    () => vscode.postMessage({ type: 'openEvidence', file: ev.file, field: ev.field, line: ev.line }),
                    `Open the ${f.role} log at line ${ev.line}`,
                  ),
                );
              }
              return li;
            }),
          ),
        );
      }
      root.append(item);
    }
  }
  if (d.attempts.length > 3) {
    root.append(el('h2', {}, 'Run history'));
    const rows = d.attempts.map(a =>
      el(
        'tr',
        { tabindex: '0' },
        el('td', {}, a.role),
        el('td', {}, a.status),
        el('td', {}, fmt(a.value)),
        el('td', {}, a.source),
        el('td', a.timestamp ? { title: a.timestamp } : {}, a.when),
        el('td', {}, a.counted ? 'yes' : 'no'),
      ),
    );
    root.append(
      keyboardRows(
        el(
          'table',
          { 'aria-label': 'Attempts per role' },
          el('thead', {}, el('tr', {}, ...['Role', 'Status', h?.label ?? 'Value', 'Source', 'When', 'Counted'].map(x => el('th', { scope: 'col' }, x)))),
          el('tbody', {}, ...rows),
        ),
      ),
    );
  }
}

/**
 * A Dashboard table; none at all when it has no rows. With `open`, every row leads to what it
 * counts (click, Enter or Space) and says where in its tooltip.
 */
function table(
  caption: string,
  head: string[],
  rows: Array<Array<string | number>>,
  open?: { title: (i: number) => string; go: (i: number) => void; wrap?: number },
): HTMLTableElement | null {
  if (!rows.length) return null;
  const body = rows.map((r, i) => {
    const tr = el(
      'tr',
      { tabindex: '0', ...(open ? { class: 'opens', title: open.title(i), role: 'link' } : {}) },
      ...r.map((c, j) => el('td', j === open?.wrap ? { class: 'wrap' } : {}, String(c))),
    );
    if (open) {
      tr.addEventListener('click', () => open.go(i));
      tr.addEventListener('keydown', ev => {
        if (ev.key === 'Enter' || ev.key === ' ') {
          ev.preventDefault();
          open.go(i);
        }
      });
    }
    return tr;
  });
  return keyboardRows(
    el(
      'table',
      { 'aria-label': caption },
      el('caption', {}, caption),
      el('thead', {}, el('tr', {}, ...head.map(h => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, ...body),
    ),
  );
}

const showInTree = (filter: string) => vscode.postMessage({ type: 'filterTree', filter });

const verdictRows = (rows: VerdictRow[]) => rows.map(v => [v.label, v.win, v.tie, v.loss, v.single, v.unknown, v.agentFailed, v.mixed]);
const VERDICT_HEAD = ['Win', 'Tie', 'Loss', 'Of these single-run (hints)', 'Unknown', 'Agent failed', 'Mixed'];

function renderProject(p: DashboardProject, include: boolean): HTMLElement {
  const t = p.totals;
  const sec = el(
    'section',
    { 'aria-label': `project ${p.project}` },
    el('h2', {}, `Project ${p.project}`),
    el(
      'p',
      { class: 'meta' },
      `${t.commits} commits, ${t.entries} entries: ${t.complete} complete, ${t.agentVsHuman} agent vs human only, ${t.incomparable} incomparable, ${t.partial} partial, ${t.failed} failed`,
    ),
  );
  // Agents with nothing counted (the "(none)" of entries without an agent run) are no row of zeros.
  const agents = p.agents.filter(a => a.key !== '(none)' && a.win + a.tie + a.loss + a.unknown + a.agentFailed + a.mixed > 0);
  const tables = [
    table(
      `Commits per category (${p.project})`,
      ['Category', 'Count', 'Fixability'],
      p.byCategory.map(c => [c.title, c.count, c.fixability ?? '—']),
      { title: i => `Show the ${p.byCategory[i].count} in the Commits view`, go: i => showInTree(`outcome=${p.byCategory[i].outcome}`) },
    ),
    table(
      `Failures per fixability (${p.project})`,
      ['Fixability', 'Count'],
      p.byFixability.map(f => [f.title, f.count]),
      { title: i => `Show the ${p.byFixability[i].count} in the Commits view`, go: i => showInTree(`blocked=${p.byFixability[i].fixability}`) },
    ),
    table(`Verdicts per agent (${p.project})`, ['Agent', ...VERDICT_HEAD], verdictRows(agents), {
      title: i => `Show ${agents[i].label}'s commits in the Commits view`,
      go: i => showInTree(`agent=${agents[i].key}`),
    }),
    table(`Verdicts per headline metric (${p.project})`, ['Headline metric', ...VERDICT_HEAD], verdictRows(p.metrics)),
  ];
  sec.append(...tables.filter((t): t is HTMLTableElement => !!t));
  if (!include && p.leftOut)
    sec.append(el('p', {}, `${p.leftOut} measured ${p.leftOut === 1 ? 'entry is' : 'entries are'} not comparable and left out of these counts.`));
  const notComparable = table(
    `Not comparable (${p.project})`,
    ['Commit', 'Agent', 'Why not'],
    p.incomparable.map(i => [i.commit.slice(0, 8), i.agent ?? '—', i.reasons.join('; ')]),
    {
      title: i => `Open the Comparison of ${p.incomparable[i].commit.slice(0, 8)}`,
      go: i => vscode.postMessage({ type: 'openCommit', commit: p.incomparable[i].commit, agent: p.incomparable[i].agent }),
      wrap: 2,
    },
  );
  if (notComparable) sec.append(notComparable);
  if (p.scatter.length) {
    const canvas = el('canvas', { role: 'img', 'aria-label': `Human vs agent improvement over baseline for ${p.scatter.length} commits of ${p.project}` });
    sec.append(el('h3', {}, 'Human vs agent improvement over baseline (%)'), el('div', { class: 'chart' }, canvas));
    chart(canvas, {
      type: 'scatter',
      data: { datasets: [{ label: 'commits', data: p.scatter.map(s => ({ x: s.human, y: s.agent_ })), backgroundColor: css('--vscode-charts-orange') }] },
      options: {
        scales: { x: { title: { display: true, text: 'human %' } }, y: { title: { display: true, text: 'agent %' } } },
        plugins: {
          tooltip: {
            callbacks: {
              label: c =>
                `${p.scatter[c.dataIndex].commit.slice(0, 8)}: human ${pct(p.scatter[c.dataIndex].human)}, agent ${pct(p.scatter[c.dataIndex].agent_)}${p.scatter[c.dataIndex].comparable ? '' : ' (not comparable)'}`,
            },
          },
        },
        onClick: (_e, items) => {
          if (items[0]) vscode.postMessage({ type: 'openCommit', commit: p.scatter[items[0].index].commit, agent: p.scatter[items[0].index].agent });
        },
      },
    });
  }
  return sec;
}

function renderDashboard(d: DashboardData): void {
  root.replaceChildren();
  const toggle = el('input', { type: 'checkbox', id: 'include-incomparable' });
  toggle.checked = d.includeIncomparable;
  toggle.addEventListener('change', () => vscode.postMessage({ type: 'setIncludeIncomparable', include: toggle.checked }));
  root.append(
    el('h1', {}, `Bench Triage — ${d.folder}`),
    el(
      'div',
      { class: 'toolbar' },
      button('Export report', () => vscode.postMessage({ type: 'exportReport' }), 'Export the triage report as Markdown'),
      el('label', { for: 'include-incomparable' }, toggle, ' Include incomparable commits in the counts'),
    ),
  );
  if (!d.projects.length) root.append(el('p', {}, 'No results in this folder.'));
  for (const p of d.projects) root.append(renderProject(p, d.includeIncomparable));
}

function effectCell(e: AblationEffectView | null, what: string): HTMLTableCellElement {
  if (!e) return el('td', {}, '—');
  // The verdict's colour; a removal that loses means the unit carries gain, so the words say which way.
  const td = el('td', { class: `verdict-${e.verdict}` }, e.text);
  td.setAttribute('aria-label', `${what}: ${e.text}${e.single ? ' (one run each: a hint)' : ''}`);
  return td;
}

function renderAblation(d: AblationData): void {
  root.replaceChildren();
  root.append(
    el('h1', {}, `Patch ablation of ${d.commit.slice(0, 12)}${d.agent ? ` (${d.agent})` : ''}`),
    el(
      'p',
      { class: 'meta' },
      [`the ${d.patch} patch`, `design ${d.design}`, d.metric && `metric ${d.metric} (${d.direction} is better)`, `campaign ${d.id}`]
        .filter(Boolean)
        .join(' · '),
    ),
  );
  if (d.pending)
    root.append(
      el('div', { class: 'warning', role: 'status' }, `${d.pending} run${d.pending === 1 ? '' : 's'} still queued or running: the figures will change.`),
    );
  root.append(
    el(
      'div',
      { class: 'headline', id: 'ablation-full', role: 'status' },
      el('strong', {}, d.full ? `The full patch against the parent: ${d.full.text}` : `No attribution yet: ${d.why ?? 'nothing measured'}`),
    ),
  );
  const tools = el(
    'div',
    { class: 'toolbar' },
    button('Open as Markdown', () => vscode.postMessage({ type: 'openMarkdown' }), 'Open this ablation as a Markdown report'),
  );
  if (d.minimal && !d.minimal.whole)
    tools.append(
      button(
        'Export minimal patch…',
        () => vscode.postMessage({ type: 'exportMinimal' }),
        `Save the minimal subset (${d.minimal.units.join(', ')}) as a .diff file`,
      ),
    );
  root.append(tools);
  if (d.minimal) root.append(el('div', { class: 'minimal', id: 'minimal', role: 'note' }, el('strong', {}, 'Minimal subset: '), d.minimal.text));
  const heads = ['Unit', 'Lines', 'Removed from the full patch', 'Alone vs parent', 'Hunk'];
  const table = el(
    'table',
    { id: 'units', 'aria-label': 'Each unit of the patch with its measured effect, grouped by file; Enter or a click shows the hunk in the patch' },
    el('thead', {}, el('tr', {}, ...heads.map(h => el('th', { scope: 'col' }, h)))),
  );
  for (const f of d.files) {
    const body = el('tbody', {}, el('tr', { class: 'file' }, el('th', { scope: 'rowgroup', colspan: String(heads.length) }, f.path)));
    for (const u of f.units) {
      const open = () => vscode.postMessage({ type: 'openHunk', unit: u.id });
      const tr = el(
        'tr',
        { tabindex: '0', class: `opens${u.inMinimal ? ' in-minimal' : ''}`, 'data-unit': u.id, title: `Show ${u.id} in the patch` },
        el('th', { scope: 'row' }, `${u.id}${u.inMinimal ? ' ✓' : ''}`),
        el('td', {}, `+${u.added} −${u.removed}`),
        effectCell(u.removal, `${u.id} removed from the full patch`),
        effectCell(u.alone, `${u.id} alone against the parent`),
        el('td', { class: 'wrap' }, u.label),
      );
      tr.addEventListener('click', open);
      tr.addEventListener('keydown', ev => {
        if (ev.key === 'Enter' || ev.key === ' ') {
          ev.preventDefault();
          open();
        }
      });
      body.append(tr);
    }
    table.append(body);
  }
  root.append(keyboardRows(table));
  root.append(
    el(
      'p',
      { class: 'meta' },
      'Removed: the full patch without the unit against the full patch (a loss means the unit carries gain). Alone: the parent with only the unit. A "?" is one run each: a hint, not a verdict.',
    ),
  );
  if (d.findings.length) root.append(el('h2', {}, 'Findings'), el('ul', { id: 'findings' }, ...d.findings.map(f => el('li', {}, f))));
  if (d.merges.length) root.append(el('h2', {}, 'Units merged before running'), el('ul', {}, ...d.merges.map(m => el('li', {}, m))));
  root.append(
    el('h2', {}, 'Runs per variant'),
    el(
      'table',
      { 'aria-label': 'Runs per variant' },
      el('thead', {}, el('tr', {}, ...['Variant', 'Measured', 'Broke'].map(h => el('th', { scope: 'col' }, h)))),
      el(
        'tbody',
        {},
        ...d.variants.map(v => el('tr', {}, el('th', { scope: 'row' }, v.id), el('td', {}, String(v.measured)), el('td', { class: 'wrap' }, v.broken ?? '—'))),
      ),
    ),
  );
}

function show(data: ComparisonData | DashboardData | AblationData): void {
  vscode.setState(data);
  if (data.view === 'comparison') renderComparison(data);
  else if (data.view === 'ablation') renderAblation(data);
  else renderDashboard(data);
}

window.addEventListener('message', (ev: MessageEvent<HostToWebview>) => {
  if (ev.data?.type === 'show') show(ev.data.data);
});
const saved = vscode.getState() as ComparisonData | DashboardData | AblationData | undefined;
if (saved) show(saved);
vscode.postMessage({ type: 'ready' });
