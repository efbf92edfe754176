import * as assert from 'node:assert/strict';
import { CommitIndex, parseJson, locateJsonError } from '../../src/core/ingest';
import { lookupAlias, addMetrics, emptyMetrics, METRICS, knownSpellings } from '../../src/core/metrics';

describe('ingest pieces', () => {
  describe('parseJson', () => {
    it('finds the position of the first error', () => {
      const r = parseJson('{"a": 1,\n "b": ,\n "c": 2}');
      assert.ok(!r.ok);
      assert.equal(r.line, 2);
      assert.equal(r.column, 7);
      assert.equal(r.offset, 15);
    });
    it('reports extra data after a complete value (the trae_gpt5 corruption)', () => {
      const r = parseJson('{"a": 1}\n"timestamp": "x"\n}');
      assert.ok(!r.ok);
      assert.match(r.message, /extra data/);
      assert.equal(r.line, 2);
    });
    it('reads Python NaN / Infinity as null', () => {
      const r = parseJson('{"a": NaN, "b": [1, -Infinity], "c": "NaN, ok"}');
      assert.ok(r.ok);
      assert.deepEqual(r.value, { a: null, b: [1, null], c: 'NaN, ok' });
    });
    it('mends the tokens before the first parse, yet a token only inside strings changes nothing and a broken text is placed in the original', () => {
      const inf = parseJson('{"rate": Infinity, "note": "Infinity"}', { keepInfinity: true });
      assert.ok(inf.ok);
      assert.deepEqual(inf.value, { rate: Infinity, note: 'Infinity' });
      assert.equal(inf.notes?.length, 1);
      const quoted = parseJson('{"note": "NaN and Infinity"}');
      assert.ok(quoted.ok);
      assert.equal(quoted.notes, undefined, 'no token outside a string: no note');
      const broken = parseJson('{"rate": Infinity,\n "x": }');
      assert.ok(!broken.ok);
      assert.equal(broken.line, 2);
      assert.equal(broken.offset, 25, 'the fault after the token, in the text as written (not the mended one)');
    });
    it('survives a million open brackets without recursion', () => {
      const e = locateJsonError('['.repeat(1_000_000));
      assert.match(e.message, /end of input/);
      assert.equal(e.offset, 1_000_000);
    });
    it('agrees with JSON.parse on valid documents', () => {
      for (const t of ['{}', '[]', '[1,{"a":[true,false,null,"x\\u00e9"]},-1.5e3]', '"s"', '0']) assert.ok(parseJson(t).ok, t);
      for (const t of ['{', '[1,]', '{"a"}', '{"a":1,}', '01', '"\\x"', 'nul']) assert.ok(!parseJson(t).ok, t);
    });
  });

  describe('CommitIndex', () => {
    it('resolves unique prefixes of 7, 8 and 12 hex to the full hash and leaves ambiguous ones alone', () => {
      const ix = new CommitIndex();
      ix.add('015069b01741e9ecb9e604c7fe87fbdfc306ebe5');
      ix.add('015069b0ffffffffffffffffffffffffffffffff');
      ix.add('22dd9c2730dc1124b9d0ac15fff223d0b8d9020b');
      assert.equal(ix.resolve('22dd9c2'), '22dd9c2730dc1124b9d0ac15fff223d0b8d9020b');
      assert.equal(ix.resolve('22dd9c27'), '22dd9c2730dc1124b9d0ac15fff223d0b8d9020b');
      assert.equal(ix.resolve('015069b01741'), '015069b01741e9ecb9e604c7fe87fbdfc306ebe5');
      assert.equal(ix.resolve('015069b0'), '015069b0', 'ambiguous stays a prefix');
      assert.equal(ix.resolve('abcdef12'), 'abcdef12');
    });
  });

  describe('metric alias table', () => {
    it('maps every spelling to a canonical key that exists, with units converted', () => {
      for (const s of knownSpellings())
        assert.ok(
          METRICS.some(m => m.key === lookupAlias(s)!.canonical),
          s,
        );
      const m = addMetrics(emptyMetrics(), {
        avg_latency_s: 1.5,
        ttft_p50: 3,
        mean_ttft_ms: 4,
        request_throughput_req_s: 2,
        total_generated_tokens: 9,
        weird_key: 1,
      });
      assert.deepEqual(m.metrics, { latency_avg_ms: 1500, ttft_median_ms: 3, ttft_mean_ms: 4, request_throughput_req_s: 2 });
      assert.deepEqual(m.counts, { total_output_tokens: 9 });
      assert.deepEqual(m.unknown, ['weird_key']);
    });
    it('reads throughput_tok_s of a serving run as output token throughput', () => {
      assert.equal(lookupAlias('throughput_tok_s', { servingThroughputIsOutput: true })!.canonical, 'output_throughput_tok_s');
      assert.equal(lookupAlias('throughput_tok_s')!.canonical, 'throughput_tok_s');
    });
    it('gives latencies lower-is-better and throughputs higher-is-better', () => {
      for (const m of METRICS.filter(x => x.kind === 'metric')) {
        if (/_ms$|time_s$/.test(m.key)) assert.equal(m.direction, 'lower', m.key);
        if (/throughput|speedup/.test(m.key)) assert.equal(m.direction, 'higher', m.key);
      }
    });
  });
});
