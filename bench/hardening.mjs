#!/usr/bin/env node
// bench/hardening: the bounds of issue 23, each in fresh processes.
//   - every named input that is /dev/zero or a FIFO: time to the finding and peak RSS (target ≤ 2 s, ≤ 300 MB);
//   - the language server: a code action over 20 000 placeholder rows (target ≤ 500 ms), and the
//     time from the last of 2 000 one-character edits to the 4 MB dataset to its diagnostics (target ≤ 1 s);
//   - classify on the ISO-Bench corpus with 10 000 user rules vs none (target ≤ 3×).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const CLI = path.join(ROOT, 'dist/cli.js');
const ISOBENCH = path.resolve(ROOT, '../shared/isobench');
const DATASET = path.join(ISOBENCH, 'hf_cache/alpha-vllm-99-commits/combined_vllm_pr_dataset.filled.jsonl');
const N = Number(process.env.BENCH_REPEAT ?? 3);
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The CLI in a fresh process, its peak RSS read at exit by a preloaded hook (written in the bench's own folder). */
function cli(args, dir) {
  const hook = path.join(dir, 'rss-hook.cjs');
  writeFileSync(hook, "process.on('exit', () => require('fs').writeSync(2, `\\nBT_MAXRSS ${process.resourceUsage().maxRSS}\\n`));\n");
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--require', hook, CLI, ...args], { encoding: 'utf8', timeout: 60_000, maxBuffer: 256 << 20 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const rss = Number(/BT_MAXRSS (\d+)/.exec(r.stderr)?.[1] ?? 0) / 1024;
  return { ms, rssMB: rss, status: r.status, stderr: r.stderr.replace(/\nBT_MAXRSS \d+\n/, '') };
}

export function benchHardening() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bt-hard-'));
  try {
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const ws = path.join(dir, 'ws');
    mkdirSync(path.join(ws, '.bench-triage'), { recursive: true });
    symlinkSync('/dev/zero', path.join(ws, '.bench-triage', 'rules.json'));
    const ws2 = path.join(dir, 'ws2');
    mkdirSync(path.join(ws2, '.bench-triage'), { recursive: true });
    execFileSync('mkfifo', [path.join(ws2, '.bench-triage', 'labels.json')]);
    const ws3 = path.join(dir, 'ws3');
    mkdirSync(path.join(ws3, '.bench-triage'), { recursive: true });
    execFileSync('mkfifo', [path.join(ws3, '.bench-triage', 'rules.json')]);
    const cases = [
      ['.bench-triage/labels.json a FIFO (classify)', ['classify', ws2, '--json']],
      ['.bench-triage/rules.json a FIFO (classify)', ['classify', ws3, '--json']],
      ['build --dockerfile FIFO', ['build', '--folder', ws, '--commit', 'abc', '--role', 'human', '--dockerfile', fifo, '--dry-run']],
      ['rules test --tsv FIFO', ['rules', 'test', ws2, '--tsv', fifo]],
      ['plan --agent-patch FIFO', ['plan', '--folder', path.join(ROOT, 'demo/workspace'), '--commit', 'f6978a76', '--role', 'agent', '--agent-patch', fifo]],
      ['.bench-triage/rules.json → /dev/zero (classify)', ['classify', ws, '--json']],
      ['--rules /dev/zero (classify)', ['classify', ISOBENCH, '--rules', '/dev/zero', '--json']],
      ['--rules FIFO (report)', ['report', ISOBENCH, '--rules', fifo]],
      ['build --dockerfile /dev/zero', ['build', '--folder', ws, '--commit', 'abc', '--role', 'human', '--dockerfile', '/dev/zero', '--dry-run']],
      ['rules test --tsv /dev/zero', ['rules', 'test', ws, '--tsv', '/dev/zero']],
      ['classify-log /dev/zero', ['classify-log', '/dev/zero']],
      ['classify-log FIFO', ['classify-log', fifo]],
      [
        'plan --agent-patch /dev/zero',
        ['plan', '--folder', path.join(ROOT, 'demo/workspace'), '--commit', 'f6978a76', '--role', 'agent', '--agent-patch', '/dev/zero'],
      ],
    ];
    const devzero = cases.map(([what, args]) => {
      const r = cli(args, dir);
      return { what, ms: r.ms, rssMB: r.rssMB, refused: /not a regular file|symbolic link/.test(r.stderr) };
    });
    // Campaign status over a FIFO run record.
    const camp = path.join(ws, '.bench-triage/campaigns/c-1');
    mkdirSync(path.join(camp, 'runs'), { recursive: true });
    mkdirSync(path.join(camp, 'claims'), { recursive: true });
    writeFileSync(
      path.join(camp, 'campaign.json'),
      JSON.stringify({
        schema: 'bench-triage.campaign/v1',
        id: 'c-1',
        createdAt: 't',
        select: 's',
        repeats: 1,
        hosts: ['h'],
        gpuHours: 0,
        refusals: [],
        items: [{ n: 1, commit: 'abcd1234', agent: null, role: 'agent', repeat: 1, estimateS: 60, gpus: 1 }],
      }),
    );
    execFileSync('mkfifo', [path.join(camp, 'runs/1.json')]);
    const st = cli(['campaign', 'status', '--folder', ws], dir);
    devzero.push({ what: 'campaign status, runs/1.json a FIFO', ms: st.ms, rssMB: st.rssMB, refused: /FIFO/.test(st.stderr + '') || st.status === 1 });

    const lsp = mode =>
      JSON.parse(
        execFileSync(process.execPath, [path.join(ROOT, 'dist-bench/lspWorker.js'), mode === 'burst' ? DATASET : '20000', '1', mode], { encoding: 'utf8' }),
      );
    const actions = Array.from({ length: N }, () => lsp('codeaction'));
    const bursts = Array.from({ length: N }, () => lsp('burst'));

    const rules = path.join(dir, 'rules.json');
    writeFileSync(
      rules,
      JSON.stringify({
        rules: Array.from({ length: 10_000 }, (_, i) => ({
          id: `team.r${i}`,
          category: 'gpu-oom',
          description: 'd',
          indications: [{ scope: 'any', pattern: `never-seen-token-${i}\\b` }],
        })),
      }),
    );
    const time = args => {
      const r = cli(args, dir);
      if (r.status !== 0) throw new Error(`classify failed: ${r.stderr.slice(0, 400)}`);
      return r;
    };
    time(['classify', ISOBENCH, '--json']);
    const plain = [],
      many = [];
    for (let i = 0; i < N; i++) {
      plain.push(time(['classify', ISOBENCH, '--json']));
      many.push(time(['classify', ISOBENCH, '--json', '--rules', rules]));
    }
    return {
      devzero,
      codeAction: { rows: actions[0].rows, actions: actions[0].actions, ms: median(actions.map(a => a.ms)), peakMB: Math.max(...actions.map(a => a.peakMB)) },
      burst: {
        edits: bursts[0].edits,
        mb: bursts[0].bytes / 1048576,
        ms: median(bursts.map(b => b.afterLastMs)),
        peakMB: Math.max(...bursts.map(b => b.peakMB)),
      },
      rules: { plainMs: median(plain.map(r => r.ms)), manyMs: median(many.map(r => r.ms)), manyRssMB: Math.max(...many.map(r => r.rssMB)) },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = benchHardening();
  console.log('bench/hardening');
  for (const d of r.devzero)
    console.log(
      `  ${d.what.padEnd(48)} ${d.ms.toFixed(0).padStart(6)} ms  ${d.rssMB.toFixed(0).padStart(4)} MB  ${d.refused ? 'refused with a finding' : 'NOT REFUSED'}`,
    );
  console.log(
    `  code action over ${r.codeAction.rows} placeholder rows: ${r.codeAction.ms.toFixed(0)} ms (${r.codeAction.actions} actions), server peak ${r.codeAction.peakMB.toFixed(0)} MB (target ≤ 500 ms)`,
  );
  console.log(
    `  ${r.burst.edits} edits to the ${r.burst.mb.toFixed(1)} MB dataset → diagnostics: ${r.burst.ms.toFixed(0)} ms after the last (target ≤ 1 s), server peak ${r.burst.peakMB.toFixed(0)} MB`,
  );
  console.log(
    `  classify ISO-Bench with 10 000 user rules vs none: ${r.rules.manyMs.toFixed(0)} vs ${r.rules.plainMs.toFixed(0)} ms (${(r.rules.manyMs / r.rules.plainMs).toFixed(2)}×, target ≤ 3×)`,
  );
}
