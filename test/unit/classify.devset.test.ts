import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli as run } from './helpers';

const DEV = 'test/devset/dev';
const SEALED = 'test/devset/sealed';
const FIXTURES = 'test/fixtures/failure-logs';

function headers(dir: string): Array<{ file: string; source: string; expected: string }> {
  const out: Array<{ file: string; source: string; expected: string }> = [];
  for (const f of fs.readdirSync(dir).filter(x => x.endsWith('.log'))) {
    const t = fs.readFileSync(path.join(dir, f), 'utf8');
    out.push({ file: f, source: /^# source: (\S+)/m.exec(t)?.[1] ?? '', expected: /^# expected: (\S+)/m.exec(t)?.[1] ?? '' });
  }
  return out;
}

interface Summary {
  logs: number;
  correct: number;
  wrong: number;
  stages: Array<{ stage: string; answered: number; correct: number; wrong: number }>;
}
const test = (...args: string[]): Summary => {
  const p = run('rules', 'test', ...args, '--json');
  assert.ok(p.status === 0 || p.status === 1, p.stderr);
  return JSON.parse(p.stdout) as Summary;
};

describe('classify: the development set of real excerpts from public threads (issue 22)', function () {
  this.timeout(180000);

  it('holds ≥ 100 excerpts, each with its thread URL, one per thread, none from a thread the fixtures were written from', () => {
    const dev = headers(DEV),
      sealed = headers(SEALED);
    assert.ok(dev.length >= 100, `${dev.length} excerpts`);
    const all = [...dev, ...sealed];
    for (const h of all) {
      assert.match(h.source, /^https:\/\/github\.com\/[\w.-]+\/[\w.-]+\/(?:issues|pull)\/\d+$/, h.file);
      assert.ok(h.expected && h.expected !== 'unclassified', h.file);
    }
    assert.equal(new Set(all.map(h => h.source)).size, all.length, 'one excerpt per thread');
    // The fixtures name their threads as vllm#N / sglang#N / aibrix#N.
    const used = new Set<string>();
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else for (const m of fs.readFileSync(p, 'utf8').matchAll(/\b(vllm|sglang|aibrix)?#(\d{3,6})\b/g)) used.add(`${m[1] ?? 'vllm'}#${m[2]}`);
      }
    };
    walk(FIXTURES);
    const repoOf: Record<string, string> = { 'vllm-project/vllm': 'vllm', 'sgl-project/sglang': 'sglang', 'vllm-project/aibrix': 'aibrix' };
    for (const h of all) {
      const m = /github\.com\/([\w.-]+\/[\w.-]+)\/(?:issues|pull)\/(\d+)/.exec(h.source)!;
      const key = repoOf[m[1]] ? `${repoOf[m[1]]}#${m[2]}` : null;
      assert.ok(!key || !used.has(key), `${h.file}: ${h.source} is a fixture's thread`);
    }
  });

  it('recall ≥ 85 % with ≤ 3 % wrong categories on the development set; figures per stage', () => {
    const s = test(DEV);
    assert.ok(s.correct / s.logs >= 0.85, `recall ${s.correct}/${s.logs}`);
    assert.ok(s.wrong / s.logs <= 0.03, `wrong ${s.wrong}/${s.logs}`);
    const by = Object.fromEntries(s.stages.map(x => [x.stage, x]));
    assert.ok(by.rules.answered > 0 && by.structure.answered > 0, JSON.stringify(s.stages));
    assert.equal(
      s.stages.reduce((n, x) => n + x.answered, 0),
      s.logs,
    );
  });

  it('the same figures under leave-one-thread-out cross-validation of the fixture corpus', () => {
    const s = test(FIXTURES, '--cross-validate');
    assert.ok(s.logs >= 130);
    assert.ok(s.correct / s.logs >= 0.85, `recall ${s.correct}/${s.logs}`);
    assert.ok(s.wrong / s.logs <= 0.03, `wrong ${s.wrong}/${s.logs}`);
  });
});
