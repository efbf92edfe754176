// Classifies a synthetic log of N bytes streaming, in a fresh process, and prints the result with
// this process's peak RSS. The log is generated chunk by chunk into the classifier, so the test
// needs no disk space; `bench/classify` measures the same engine on a real 1 GB file.
import { Classifier, LogClassifier } from '../../../src/core/classify';
import { synthChunks } from '../../support/synthLog';

const bytes = Number(process.argv[2]);
const lc = new LogClassifier(new Classifier(), 'synthetic.log');
const gen = synthChunks(bytes);
let fed = 0;
const t0 = Date.now();
let r = gen.next();
while (!r.done) {
  lc.pushBytes(r.value);
  fed += r.value.length;
  r = gen.next();
}
const { classification } = lc.result();
process.stdout.write(
  JSON.stringify({
    result: { category: classification?.category ?? null, evidence: classification?.evidence ?? null },
    tailLine: r.value.tailLine,
    ms: Date.now() - t0,
    bytes: fed,
    maxRssMB: process.resourceUsage().maxRSS / 1024,
  }) + '\n',
);
