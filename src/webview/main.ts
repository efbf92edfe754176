/**
 * Webview entry (bundled to dist/webview.js): the Comparison (one commit) and Dashboard (workspace)
 * views. Data arrives as one message and is rendered with DOM APIs and textContent only — result
 * files are untrusted text. State is kept with setState so a reload restores the view.
 */
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, PointElement, ScatterController, Tooltip } from 'chart.js';
import type { ComparisonData, DashboardData, HostToWebview, MetricRow, WebviewToHost } from './protocol';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, ScatterController, PointElement, Tooltip, Legend);
declare function acquireVsCodeApi(): { postMessage(msg: WebviewToHost): void; getState(): unknown; setState(s: unknown): void };
const vscode = acquireVsCodeApi();
const root = document.getElementById('root')!;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: Array<Node | string | null>): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) if (c !== null) e.append(c);
  return e;
}
const css = (name: string) => getComputedStyle(document.body).getPropertyValue(name).trim() || '#888';
const fmt = (v: number | null, digits = 2) => (v === null ? '—' : Math.abs(v) >= 1000 ? v.toFixed(0) : v.toFixed(digits));
const pct = (v: number | null) => (v === null ? '' : `${v > 0 ? '+' : ''}${v.toFixed(1)} %`);
const button = (label: string, onClick: () => void, aria?: string) => { const b = el('button', { type: 'button', 'aria-label': aria ?? label }, label); b.addEventListener('click', onClick); return b; };

function deltaCell(v: number | null): HTMLTableCellElement {
  // Improvements are direction-aware already (positive = better), so colour follows the sign.
  const td = el('td', { class: v === null ? '' : v > 0 ? 'better' : v < 0 ? 'worse' : '' }, pct(v));
  if (v !== null) td.setAttribute('aria-label', `${pct(v)} (${v > 0 ? 'better' : v < 0 ? 'worse' : 'same'} than baseline)`);
  return td;
}

function metricsTable(rows: MetricRow[]): HTMLElement {
  const head = el('tr', {}, ...['Metric', 'Baseline', 'Human', 'Δ human', 'Agent', 'Δ agent'].map(h => el('th', { scope: 'col' }, h)));
  const body = rows.map(r => el('tr', { tabindex: '0' }, el('th', { scope: 'row' }, `${r.label} (${r.unit})${r.direction === 'lower' ? ' ↓' : r.direction === 'higher' ? ' ↑' : ''}`),
    el('td', {}, fmt(r.baseline)), el('td', {}, fmt(r.human)), deltaCell(r.humanDelta), el('td', {}, fmt(r.agent)), deltaCell(r.agentDelta)));
  const table = el('table', { id: 'metrics', 'aria-label': 'Metrics by role; arrow keys move between rows' }, el('thead', {}, head), el('tbody', {}, ...body));
  // Keyboard: up/down move between rows, Home/End jump.
  table.addEventListener('keydown', ev => {
    const rowsEls = [...table.querySelectorAll<HTMLTableRowElement>('tbody tr')];
    const i = rowsEls.indexOf(document.activeElement as HTMLTableRowElement);
    const next = ev.key === 'ArrowDown' ? i + 1 : ev.key === 'ArrowUp' ? i - 1 : ev.key === 'Home' ? 0 : ev.key === 'End' ? rowsEls.length - 1 : null;
    if (next === null || i < 0) return;
    ev.preventDefault();
    rowsEls[Math.max(0, Math.min(rowsEls.length - 1, next))].focus();
  });
  return table;
}

function chart(canvas: HTMLCanvasElement, config: ConstructorParameters<typeof Chart>[1]): void {
  Chart.defaults.color = css('--vscode-foreground');
  Chart.defaults.borderColor = css('--vscode-panel-border');
  new Chart(canvas, { ...config, options: { animation: false, responsive: true, maintainAspectRatio: false, ...config.options } });
}

function renderComparison(d: ComparisonData): void {
  root.replaceChildren();
  root.append(el('h1', {}, `${d.commit.slice(0, 12)} ${d.subject ?? ''}`),
    el('p', { class: 'meta' }, [d.model && `model ${d.model}`, d.agent && `agent ${d.agent}`, `outcome ${d.outcome}`, `verdict ${d.verdict}`].filter(Boolean).join(' · ')));
  if (!d.comparability.ok) root.append(el('div', { class: 'warning', role: 'alert' }, `Not comparable: ${d.comparability.reasons.join('; ')}`));
  if (d.metrics.length) root.append(el('h2', {}, 'Metrics'), metricsTable(d.metrics));
  else root.append(el('p', {}, 'No role of this commit has metrics yet.'));
  const pm = d.primary && d.metrics.find(m => m.key === d.primary!.key);
  if (pm) {
    const canvas = el('canvas', { role: 'img', 'aria-label': `${pm.label} by role: baseline ${fmt(pm.baseline)}, human ${fmt(pm.human)}, agent ${fmt(pm.agent)} ${pm.unit}` });
    root.append(el('h2', {}, `${pm.label} (${pm.unit})`), el('div', { class: 'chart' }, canvas));
    chart(canvas, { type: 'bar', data: { labels: ['baseline', 'human', 'agent'], datasets: [{ label: pm.label, data: [pm.baseline, pm.human, pm.agent], backgroundColor: [css('--vscode-charts-blue'), css('--vscode-charts-green'), css('--vscode-charts-purple')] }] }, options: { plugins: { legend: { display: false } } } });
  }
  if (d.failures.length) {
    root.append(el('h2', {}, 'Why roles failed'));
    for (const f of d.failures) {
      const item = el('div', { class: 'failure' }, el('strong', {}, `${f.role}: ${f.title}`), f.cause ? ` (${f.cause})` : '', f.fixability ? ` · fix: ${f.fixability}` : '', el('p', {}, f.description));
      if (f.evidence) {
        const ev = f.evidence;
        item.append(el('pre', {}, ev.text), button(`Open log at line ${ev.line}`, () => vscode.postMessage({ type: 'openEvidence', file: ev.file, field: ev.field, line: ev.line }), `Open the ${f.role} log at the evidence line ${ev.line}`));
      }
      root.append(item);
    }
  }
  if (d.attempts.length > 1) {
    root.append(el('h2', {}, 'Run history'));
    const rows = d.attempts.map(a => el('tr', { tabindex: '0' }, el('td', {}, a.role), el('td', {}, a.status), el('td', {}, fmt(a.value)), el('td', {}, a.source), el('td', {}, a.timestamp ?? '')));
    root.append(el('table', { 'aria-label': 'Attempts per role' }, el('thead', {}, el('tr', {}, ...['Role', 'Status', d.primary?.label ?? 'Value', 'Source', 'When'].map(h => el('th', { scope: 'col' }, h)))), el('tbody', {}, ...rows)));
    for (const s of d.spread) root.append(el('p', {}, `${s.role}: ${s.n} measured attempts, ${fmt(s.min)}–${fmt(s.max)} (mean ${fmt(s.mean)}, spread ${((s.max - s.min) / s.mean * 100).toFixed(1)} %)`));
  }
}

function renderDashboard(d: DashboardData): void {
  root.replaceChildren();
  const t = d.totals;
  root.append(el('h1', {}, `Bench Triage — ${d.folder}`), el('p', { class: 'meta' }, `${t.commits} commits, ${t.entries} entries: ${t.complete} complete, ${t.incomparable} incomparable, ${t.partial} partial, ${t.failed} failed`),
    button('Export report', () => vscode.postMessage({ type: 'exportReport' }), 'Export the triage report as Markdown'));
  const table = (caption: string, head: string[], rows: Array<Array<string | number>>) => el('table', { 'aria-label': caption }, el('caption', {}, caption),
    el('thead', {}, el('tr', {}, ...head.map(h => el('th', { scope: 'col' }, h)))), el('tbody', {}, ...rows.map(r => el('tr', { tabindex: '0' }, ...r.map(c => el('td', {}, String(c)))))));
  root.append(table('Commits per category', ['Category', 'Count', 'Fixability'], d.byCategory.map(c => [c.title, c.count, c.fixability ?? '—'])),
    table('Failures per fixability', ['Fixability', 'Count'], d.byFixability.map(f => [f.fixability, f.count])),
    table('Agent vs human per agent', ['Agent', 'Win', 'Tie', 'Loss', 'Agent failed'], d.agents.map(a => [a.agent, a.win, a.tie, a.loss, a.agentFailed])));
  if (d.scatter.length) {
    const canvas = el('canvas', { role: 'img', 'aria-label': `Human vs agent improvement over baseline for ${d.scatter.length} commits` });
    root.append(el('h2', {}, 'Human vs agent improvement over baseline (%)'), el('div', { class: 'chart' }, canvas));
    chart(canvas, { type: 'scatter', data: { datasets: [{ label: 'commits', data: d.scatter.map(p => ({ x: p.human, y: p.agent_ })), backgroundColor: css('--vscode-charts-orange') }] },
      options: { scales: { x: { title: { display: true, text: 'human %' } }, y: { title: { display: true, text: 'agent %' } } },
        plugins: { tooltip: { callbacks: { label: c => `${d.scatter[c.dataIndex].commit.slice(0, 8)}: human ${pct(d.scatter[c.dataIndex].human)}, agent ${pct(d.scatter[c.dataIndex].agent_)}` } } },
        onClick: (_e, items) => { if (items[0]) vscode.postMessage({ type: 'openCommit', commit: d.scatter[items[0].index].commit }); } } });
  }
}

function show(data: ComparisonData | DashboardData): void {
  vscode.setState(data);
  if (data.view === 'comparison') renderComparison(data); else renderDashboard(data);
}

window.addEventListener('message', (ev: MessageEvent<HostToWebview>) => { if (ev.data?.type === 'show') show(ev.data.data); });
const saved = vscode.getState() as ComparisonData | DashboardData | undefined;
if (saved) show(saved);
vscode.postMessage({ type: 'ready' });
