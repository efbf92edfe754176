import * as assert from 'node:assert/strict';
import { promises as fsp, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { scan, type ScanResult } from '../../src/core/ingest';
import { Classifier, classifyInput, classifyRuns, category, fieldText, type Classification } from '../../src/core/classify';
import { isEchoLine } from '../../src/core/logs/lines';
import { triage } from '../../src/core/compare';
import type { Run } from '../../src/core/model';
import { nodeFileSource } from '../../src/platform/nodeFileSource';
import { ISOBENCH, requireCorpus } from './helpers';

const read = (p: string) => readFileSync(path.join(ISOBENCH, p), 'utf8');

/** The text of a run's kept output, read independently of the classifier. */
function rawOutput(run: Run): string {
  const doc = JSON.parse(read(run.provenance.file));
  return run.logs.map(l => fieldText(doc, l.field) ?? '').join('\n');
}

describe('classify: the real ISO-Bench corpus [ISO-Bench data]', function () {
  this.timeout(120000);
  let r: ScanResult;
  let c: Map<string, Classification>;
  before(async () => {
    requireCorpus();
    r = await scan(nodeFileSource(ISOBENCH));
    c = await classifyRuns(r, p => fsp.readFile(path.join(ISOBENCH, p), 'utf8'));
  });

  it('gives every failed run a category; unclassified at most 5 %', () => {
    const failed = r.runs.filter(x => x.status !== 'success');
    assert.ok(failed.length > 200);
    for (const run of failed) assert.ok(c.get(run.id)?.category, run.id);
    const uncl = failed.filter(x => c.get(x.id)!.category === 'unclassified');
    assert.ok(uncl.length / failed.length <= 0.05, `${uncl.length}/${failed.length} unclassified: ${uncl.map(u => u.id).join(', ')}`);
    for (const run of r.runs.filter(x => x.status === 'success')) assert.ok(!c.has(run.id));
  });

  it('runs that repeat their texts are classified as each would be on its own (the texts scanned once, the context per run)', () => {
    const classifier = new Classifier();
    const commits = new Map(r.commits.map(x => [x.hash, x]));
    let repeated = 0;
    const texts = new Map<string, number>();
    for (const run of r.runs) {
      if (!c.has(run.id) || run.logFiles.length) continue;
      const input = classifyInput(run, JSON.parse(read(run.provenance.file)), new Map(), commits.get(run.commit));
      const own = classifier.classify(input);
      assert.deepEqual(c.get(run.id), own, run.id);
      const k = JSON.stringify([input.role, input.status, input.texts.map(t => t.text)]);
      texts.set(k, (texts.get(k) ?? 0) + 1);
      if (texts.get(k)! > 1 && own.strength !== 'signature') repeated++;
    }
    // The memo was met by runs whose result is not a signature's: their context was applied to a shared scan.
    assert.ok(repeated >= 5, `${repeated} repeated runs without a signature`); // 6 in the corpus today
  });

  it('every evidence is found at its line in its file', () => {
    let checked = 0;
    for (const [id, cl] of c) {
      const ev = cl.evidence;
      if (!ev) continue;
      const text = ev.field ? fieldText(JSON.parse(read(ev.file)), ev.field) : read(ev.file);
      assert.ok(text !== null, `${id}: field ${ev.field} exists in ${ev.file}`);
      const line = text.split('\n')[ev.line - 1];
      assert.ok(
        line !== undefined && line.includes(ev.text),
        `${id}: line ${ev.line} of ${ev.file}${ev.field ? `#${ev.field}` : ''} is ${JSON.stringify(line?.slice(0, 200))}, evidence ${JSON.stringify(ev.text.slice(0, 200))}`,
      );
      checked++;
    }
    assert.ok(checked > 200, `${checked} evidences checked`);
  });

  it('agrees with FULL_VLLM_COMMIT_ANALYSIS.md on the Modal results for at least 90 % of commits', () => {
    const md = read('archive/results/2026-01/omniperf_results_3way_claude_code/archive/analysis/FULL_VLLM_COMMIT_ANALYSIS.md');
    const detail = md.slice(md.indexOf('## Detailed Commit List by Status'), md.indexOf('## Recommendations'));
    const expected = new Map<string, string>();
    let section = '';
    for (const line of detail.split('\n')) {
      const h = /^### (\w+)/.exec(line);
      if (h) {
        section = h[1] === 'SUCCESSFUL' ? 'SUCCESS' : h[1];
        continue;
      }
      const m = /^\| ([0-9a-f]{8}) \|/.exec(line);
      if (m) expected.set(m[1], section);
    }
    assert.ok(expected.size >= 90, `${expected.size} commits parsed from the analysis`);
    const env = new Set(['environment', 'resources', 'runtime']);
    const agrees = (exp: string, out: string): boolean | null => {
      const g = category(out).group;
      switch (exp) {
        case 'MISSING_WHEEL':
        case 'WHEEL_DOWNLOAD_FAILED':
          return out === 'wheel-missing' || out === 'install-failed';
        case 'MODAL_INFRA':
          return out === 'infra-transient';
        case 'VERSION_BUG':
          return out === 'version-bug';
        case 'NO_PERF_COMMAND':
          return out === 'no-perf-command';
        case 'MODEL_TOO_LARGE':
          return out === 'multi-gpu-required' || out === 'model-gated';
        case 'NO_METRICS':
          return out === 'no-metrics' || !['complete', 'incomparable', 'partial', 'unclassified'].includes(out);
        case 'SERVER_FAILED':
          return env.has(g);
        case 'SUCCESS':
          return ['complete', 'incomparable', 'partial'].includes(out) || g === 'agent';
        default:
          return null; // OTHER has no correspondence
      }
    };
    const modal = r.runs.filter(x => x.provenance.file.includes('/results/modal/'));
    const entries = triage(modal, c, { commits: new Map(r.commits.map(k => [k.hash, k])) });
    let total = 0,
      ok = 0;
    const bad: string[] = [];
    for (const e of entries) {
      const exp = expected.get(e.commit.slice(0, 8));
      if (!exp) continue;
      const v = agrees(exp, e.outcome);
      if (v === null) continue;
      total++;
      if (v) ok++;
      else bad.push(`${e.commit.slice(0, 8)} ${exp} → ${e.outcome}`);
    }
    assert.ok(total >= 85, `${total} commits compared`);
    assert.ok(ok / total >= 0.9, `${ok}/${total} agree; disagreements: ${bad.join('; ')}`);
  });

  const SIGNATURES: Array<[RegExp, string, string | null, RegExp]> = [
    [/manifest unknown/, 'image-missing', null, /manifest/],
    [/no space left on device/, 'disk-full', null, /no space left on device/],
    [/No module named 'transformers\.utils'/, 'dependency-conflict', 'transformers-utils', /transformers\.utils/],
    [/cuTensorMapEncodeTiled/, 'cuda-incompatible', null, /cuTensorMapEncodeTiled/],
    [/Unknown RoPE scaling type/, 'model-unsupported', null, /Unknown RoPE scaling type/],
  ];
  for (const [re, cat, cause, evRe] of SIGNATURES) {
    it(`every run whose kept output has ${re.source} is ${cat}${cause ? '/' + cause : ''}, with that line as evidence`, () => {
      const runs = r.runs.filter(x => x.status !== 'success' && re.test(rawOutput(x)));
      for (const run of runs) {
        const cl = c.get(run.id)!;
        assert.equal(cl.category, cat, `${run.id}: ${cl.category} (${cl.evidence?.text})`);
        if (cause) assert.equal(cl.cause, cause);
        assert.match(cl.evidence!.text, evRe);
      }
      // Signatures the corpus subset lacks are covered by the engine tests with the same rules.
      if (runs.length) assert.ok(runs.every(x => c.get(x.id)!.strength === 'signature'));
    });
  }

  it('generic S2 errors resolve to the root cause in the output', () => {
    const generic = r.runs.filter(x => x.provenance.schema === 'S2' && /No metrics in agent output|Server crashed/.test(x.error ?? ''));
    assert.ok(generic.length > 5);
    const resolved = generic.filter(x => c.get(x.id)!.strength === 'signature');
    assert.ok(resolved.length / generic.length > 0.5, `${resolved.length}/${generic.length} resolved to a signature`);
    for (const run of generic.filter(x => /manifest unknown/.test(rawOutput(x)))) assert.equal(c.get(run.id)!.category, 'image-missing');
  });

  it('never takes an echoed fix line as evidence (real outputs that contain them)', () => {
    const echo =
      /Fixing rope_scaling compatibility|Patched aimv2 registration|Installing pyairports|Fixing outlines\.fsm compatibility|applying compatibility fixes/;
    const runs = r.runs.filter(x => x.status !== 'success' && echo.test(rawOutput(x)));
    assert.ok(runs.length >= 3, `${runs.length} real outputs with echoed fix lines`);
    for (const run of runs) {
      const ev = c.get(run.id)!.evidence;
      if (!ev) continue;
      assert.ok(!echo.test(ev.text) && !isEchoLine(ev.text), `${run.id}: evidence is an echo line: ${ev.text}`);
    }
  });
});
