import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyze } from '../../src/app/folderAnalysis';
import { nodeFileSource } from '../../src/platform/nodeFileSource';
import type { CommitTriage } from '../../src/core/compare';
import type { Role, Run } from '../../src/core/model';
import { ISOBENCH, requireCorpus } from './helpers';

/**
 * Every reason the tool gives for a comparison is true of the files it names. For the whole
 * ISO-Bench corpus, each reason is parsed and its claim checked against the run's file read again
 * as text — independently of the tool's own parsing: a model named is in the file, a flag's value
 * is in the command the file holds (or absent where the reason says "default"), a count is what
 * the file printed or stored. A reason of a kind this test does not know fails it.
 */
describe('every comparability reason is true of the files it names (ISO-Bench, whole corpus) [ISO-Bench data]', function () {
  this.timeout(180000);
  let entries: CommitTriage[];
  const texts = new Map<string, string>();
  const text = (r: Run) => {
    const f = r.provenance.file;
    if (!texts.has(f)) texts.set(f, fs.readFileSync(path.join(ISOBENCH, f), 'utf8').replace(/\\n/g, '\n').replace(/\\"/g, '"'));
    return texts.get(f)!;
  };
  before(async () => {
    requireCorpus();
    entries = (await analyze(nodeFileSource(ISOBENCH))).entries;
  });

  const num = (v: string) => (/^-?[\d.]+$/.test(v) ? Number(v) : NaN);
  const hasFlag = (t: string, flag: string, value: string | null) => {
    const re = new RegExp(`${flag.replace(/[-]/g, '\\-')}(?:[ =]+(\\S+))?(?=[\\s"',]|$)`, 'g');
    for (const m of t.matchAll(re)) {
      if (value === null) return true;
      const got = (m[1] ?? 'true').replace(/["',]+$/, '');
      if (got === value || (Number.isFinite(num(value)) && num(got) === num(value))) return true;
      if (flag === '--dataset-path' && got.endsWith(value)) return true;
    }
    return false;
  };
  /** The role's perf command as its file holds it (the command must be in the file verbatim; else the whole file is searched). */
  const commandText = (r: Run) => {
    const t = text(r);
    if (r.command && t.includes(r.command)) return r.command;
    if (r.command) throw new Error(`${r.provenance.file}: the command ${r.command} is not in the file`);
    return t;
  };
  /** A claimed value "V (from)" of one role is what its file says. */
  function valueHolds(run: Run, label: string, value: string, from: string): string | null {
    const t = text(run);
    if (from === 'the successful requests it recorded')
      return new RegExp(`Successful requests:\\s+${value}\\b|"(successful_requests|completed|num_prompts)":\\s*${value}\\b`).test(t)
        ? null
        : `no ${value} successful requests in the file`;
    if (from === 'the input tokens it recorded')
      return new RegExp(`Total input tokens:\\s+${value}\\b|"total_input_tokens":\\s*${value}\\b`).test(t) ? null : `no ${value} input tokens in the file`;
    const flag = /^(--[\w-]+)/.exec(from)?.[1];
    const c = commandText(run);
    if (flag)
      return hasFlag(c, flag, label === 'dataset' ? value.split(' ')[0] : value) || hasFlag(c, flag, value) ? null : `its command has no ${flag} ${value}`;
    const dflt = /^default of (\S+)/.exec(from);
    if (dflt) return null; // a default is what the command does not say: checked by the flag reason kinds below
    if (/^(--|default|the )/.test(from)) return `unknown source "${from}"`;
    return t.includes(`"${from}"`) ? null : `field ${from} not in the file`;
  }

  it('checks every reason of every entry', () => {
    const kinds = new Map<string, number>();
    const wrong: string[] = [];
    const count = (k: string) => kinds.set(k, (kinds.get(k) ?? 0) + 1);
    for (const e of entries) {
      const run = (role: string) => e.roles[role as Role].run!;
      const id = `${e.commit.slice(0, 8)}/${e.agent ?? '-'}`;
      for (const reason of new Set([...e.comparability.reasons, ...e.pair.reasons])) {
        let m: RegExpExecArray | null;
        if ((m = /^models differ: (.*)$/.exec(reason))) {
          count('models');
          for (const part of m[1].split('; ')) {
            const p = /^(baseline|human|agent) (\S+)(?: \(the file says (\S+);.*\))?$/.exec(part);
            if (!p) wrong.push(`${id}: cannot read "${part}"`);
            else if (!text(run(p[1])).includes(p[3] ?? p[2])) wrong.push(`${id}: ${p[1]}'s file does not name ${p[3] ?? p[2]}`);
          }
        } else if ((m = /^GPU configurations differ: (.*)$/.exec(reason))) {
          count('gpus');
          for (const part of m[1].split('; ')) {
            const p = /^(baseline|human|agent) (.+)$/.exec(part)!;
            if (run(p[1]).gpuConfig !== p[2]) wrong.push(`${id}: ${p[1]} GPU ${p[2]}`);
          }
        } else if ((m = /^pipelines differ: (.*)$/.exec(reason))) {
          count('pipelines');
          const parts = m[1].split('; ').map(x => /^(baseline|human|agent) (.+)$/.exec(x)!);
          for (const p of parts) {
            const f = run(p[1]).provenance.file;
            if (/\(separate_\*\)$/.test(p[2]) && !/\/separate_/.test(f)) wrong.push(`${id}: ${p[1]} "${p[2]}" vs ${f}`);
          }
          if (new Set(parts.map(p => p[2])).size < 2) wrong.push(`${id}: "pipelines differ" with one pipeline`);
        } else if ((m = /^workloads differ on (--[\w-]+): (.*)$/.exec(reason))) {
          count('flag');
          for (const part of m[2].split(', ')) {
            const p = /^(baseline|human|agent) (.+)$/.exec(part)!;
            const has = hasFlag(commandText(run(p[1])), m[1], p[2] === '(not set)' ? null : p[2]);
            if (p[2] === '(not set)' ? has : !has) wrong.push(`${id}: ${p[1]} ${m[1]} ${p[2]}`);
          }
        } else if ((m = /^workloads differ on ([^:]+): (.*)$/.exec(reason))) {
          count('workload');
          const values = [...m[2].matchAll(/(baseline|human|agent) (.+?) \(([^()]+)\)(?:, |$)/g)];
          if (values.length < 2) wrong.push(`${id}: cannot read "${reason}"`);
          for (const v of values) {
            const why = valueHolds(run(v[1]), m[1], v[2], v[3]);
            if (why) wrong.push(`${id}: ${v[1]}: ${why} (${reason})`);
            if (v[3].startsWith('default of') && /^--/.test(m[1])) wrong.push(`${id}: default claimed for a flag`);
          }
          if (new Set(values.map(v => v[2])).size < 2 && m[1] !== 'total input tokens') wrong.push(`${id}: "differ" with one value: ${reason}`);
        } else if ((m = /^(baseline|human|agent): its result file says (.+?) (\S+) \((.+)\) but its command says (\S+) \((.+)\)$/.exec(reason))) {
          count('file vs command');
          const why = valueHolds(run(m[1]), m[2], m[3], m[4]);
          if (why) wrong.push(`${id}: ${why}`);
        } else if (/^benchmark workloads differ \(the Docker flat runner/.test(reason)) {
          count('docker flat runner');
          for (const role of ['human', 'agent'] as const) {
            const r = e.roles[role].run;
            if (r && reason.includes(`${role}: `) && !/_(human|agent|baseline)_result\.json$/.test(r.provenance.file))
              wrong.push(`${id}: ${role} is not a Docker flat runner file`);
            if (r && reason.includes(`${role}: `) && /Avg latency:/.test(text(r)) && !/Successful requests/.test(text(r)))
              wrong.push(`${id}: ${role}'s output is a latency benchmark, not a serving client`);
          }
        } else if ((m = /^benchmark scripts differ: (.*)$/.exec(reason))) {
          count('scripts');
          for (const part of m[1].split(', ')) {
            const p = /^(baseline|human|agent) (\S+)$/.exec(part)!;
            const t = text(run(p[1]));
            const script = {
              serving: /benchmark_serving|bench serve/,
              latency: /benchmark_latency|bench latency/,
              throughput: /benchmark_throughput|bench throughput/,
              prefix_caching: /prefix_caching/,
            }[p[2]];
            if (script && !script.test(t)) wrong.push(`${id}: ${p[1]} ran no ${p[2]} script`);
          }
        } else if (/script versions \(/.test(reason)) {
          count('script versions');
          for (const x of reason.matchAll(/\b(baseline|human|agent) lacks ([^;)]+)/g)) {
            const r = run(x[1]);
            if (!Object.values(r.metricSources).some(s => s.evidence === 'printed' || s.evidence === 'raw'))
              wrong.push(`${id}: ${x[1]} has no printed output to lack ${x[2]}`);
            for (const label of x[2].split(', '))
              if (label === 'Request throughput' && /Request throughput \(req\/s\)/.test(text(r))) wrong.push(`${id}: ${x[1]} printed ${label}`);
          }
        } else if (reason === 'human and agent share no metric') {
          count('no shared metric');
          const h = Object.keys(e.roles.human.run!.metrics),
            a = Object.keys(e.roles.agent.run!.metrics);
          if (h.some(k => a.includes(k))) wrong.push(`${id}: they share ${h.filter(k => a.includes(k)).join(', ')}`);
        } else if (reason === 'no metric was measured by all three roles') count('no 3-way metric');
        else if (/requests failed/.test(reason)) count('failed requests');
        else wrong.push(`${id}: a reason of a kind this test does not check: ${reason}`);
      }
    }
    assert.deepEqual(wrong, []);
    assert.ok((kinds.get('models') ?? 0) > 5 && (kinds.get('workload') ?? 0) > 5 && (kinds.get('pipelines') ?? 0) > 5, JSON.stringify([...kinds]));
  });

  it('classify --json: every entry whose human and agent are comparable carries an agent-vs-human figure', () => {
    for (const e of entries) {
      if (!e.pair.ok) continue;
      assert.ok(e.comparison, `${e.commit.slice(0, 8)}: comparable, no comparison`);
      assert.ok(Number.isFinite(e.comparison.agentVsHuman));
      assert.notEqual(e.verdict, 'n/a', `${e.commit.slice(0, 8)}: comparable but no verdict`);
    }
  });
});
