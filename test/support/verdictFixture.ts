import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * A results folder of our own with repeated attempts per role, in the runner's own schema
 * (`bench-triage.run/v1`), one commit per verdict case. Values are output tokens/s of the
 * serving benchmark (higher is better).
 */
export const CASES = {
  tie: { commit: '1'.repeat(40), human: [1000, 1003, 998, 1001, 999], agent: [1001, 999, 1002, 1000, 998] },
  win: { commit: '2'.repeat(40), human: [1000, 1003, 998, 1001, 999], agent: [1100, 1104, 1097, 1102, 1099] },
  loss: { commit: '3'.repeat(40), human: [1000, 1003, 998, 1001, 999], agent: [901, 897, 903, 899, 900] },
  noisy: { commit: '4'.repeat(40), human: [1000, 1300], agent: [1250, 900] },
  workloads: { commit: '5'.repeat(40), human: [1000, 1003, 998], agent: [1100, 1104, 1097], agentCommand: '--num-prompts 100' },
} as const;

const COMMAND = 'python3 benchmarks/benchmark_serving.py --model facebook/opt-125m --dataset-name random --random-input-len 256 --random-output-len 64';

export function writeVerdictFixture(dir: string): void {
  let k = 0;
  for (const [name, c] of Object.entries(CASES)) {
    const baseline = c.human.map(v => v * 0.95);
    const rounds = Math.max(c.human.length, c.agent.length);
    // Attempts interleaved baseline → human → agent, as a campaign runs them.
    for (let i = 0; i < rounds; i++) {
      for (const [role, values] of [
        ['baseline', baseline],
        ['human', c.human],
        ['agent', c.agent],
      ] as const) {
        if (i >= values.length) continue;
        const runId = `20261123-0${String(k).padStart(5, '0')}-${role}`;
        const started = new Date(Date.UTC(2026, 10, 23, 8, 0, k++)).toISOString();
        const folder = path.join(dir, '.bench-triage', 'runs', c.commit.slice(0, 8), role, runId);
        mkdirSync(folder, { recursive: true });
        const extra = role === 'agent' && 'agentCommand' in c ? ` ${c.agentCommand}` : ' --num-prompts 1000';
        writeFileSync(
          path.join(folder, 'result.json'),
          JSON.stringify(
            {
              schema: 'bench-triage.run/v1',
              commit: c.commit,
              role,
              status: 'succeeded',
              error: null,
              metrics: { output_throughput: values[i], request_throughput: values[i] / 64 },
              agent: role === 'agent' ? 'fixture_agent' : null,
              model: 'facebook/opt-125m',
              command: `${COMMAND}${extra}`,
              image: 'bench-triage/fake-vllm:test',
              fixes: [],
              startedAt: started,
              durationS: 60,
              project: 'vllm',
              host: 'fixture',
              runId,
              exitCode: 0,
              logs: [],
              case: name,
            },
            null,
            2,
          ),
        );
      }
    }
  }
}
