import * as assert from 'node:assert/strict';
import { scan } from '../../src/core/ingest';
import { Classifier, classifyInput, classifyRuns } from '../../src/core/classify';
import { memorySource } from './helpers';

// Runs that repeat one error text are scanned once and concluded per run: the context (command,
// model) still decides per run, and each run's evidence names its own file.
describe('classify: runs that repeat their texts', () => {
  // The runner's records, in memory: one generic error, one that no rule explains, under four models.
  const files: Record<string, string> = {};
  const errors = [
    'RuntimeError: Engine core initialization failed.',
    'ValueError: the frobnicator refused the widget',
    'RuntimeError: Engine core initialization failed.',
  ];
  const models = ['facebook/opt-125m', 'meta-llama/Llama-3.1-70B-Instruct', 'Qwen/Qwen2.5-72B', 'facebook/opt-125m'];
  let i = 0;
  for (const model of models)
    for (const error of errors)
      for (const role of ['baseline', 'human', 'agent'] as const) {
        const commit = (0xabc00000 + i++).toString(16).padEnd(40, '0');
        const command = `vllm bench serve --model ${model}`;
        const record = {
          schema: 'bench-triage.run/v1',
          commit,
          role,
          status: 'failed',
          error,
          metrics: {},
          model,
          agent: role === 'agent' ? 'a' : null,
          command,
        };
        files[`${commit.slice(0, 8)}/${role}/result.json`] = JSON.stringify(record);
      }
  const read = async (p: string) => files[p] ?? Promise.reject(new Error(`${p}: no such file`));

  it('gives each run what classifying it alone gives, context findings and evidence files included', async () => {
    const r = await scan(memorySource(files));
    assert.equal(r.runs.length, 36);
    const c = await classifyRuns(r, read);
    const alone = new Classifier();
    const commits = new Map(r.commits.map(x => [x.hash, x]));
    const rules = new Set<string>();
    for (const run of r.runs) {
      const doc = JSON.parse(await read(run.provenance.file));
      const own = alone.classify(classifyInput(run, doc, new Map(), commits.get(run.commit)));
      assert.deepEqual(c.get(run.id), own, run.id);
      for (const f of own.findings) {
        rules.add(`${f.rule}:${f.strength}`);
        if (f.evidence) assert.equal(f.evidence.file, run.provenance.file);
      }
      for (const e of own.candidates ?? []) assert.equal(e.file, run.provenance.file);
    }
    // Both kinds of conclusion were drawn from shared scans: with a context rule (the large
    // models) and without one, and an unclassified text with its candidate lines.
    assert.ok(rules.has('context.large-model:context'), [...rules].join(' '));
    assert.ok(
      [...rules].some(x => x.endsWith(':generic')),
      [...rules].join(' '),
    );
    assert.ok(
      [...c.values()].some(x => x.candidates?.length),
      'an unclassified run with candidates',
    );
  });
});
