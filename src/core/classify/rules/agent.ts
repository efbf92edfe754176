import type { RuleSpec } from '../ruleSchema';
import { G, S, any } from './helpers';

/** Agent: the agent's patch. */
export const AGENT_RULES: RuleSpec[] = [
  {
    id: 'agent.no-patch',
    category: 'agent-no-patch',
    strength: S,
    roles: ['agent'],
    description: '{1}',
    indications: [
      any('(No valid patches in input[^\\n]{0,40})'),
      any('(patch file is empty[^\\n]{0,40}|empty patch[^\\n]{0,20}nothing to apply)', 'i'),
      any('(No Claude Code patch found[^\\n]{0,20})'),
      any('(Patch is empty or contains no vllm/ Python changes)'),
      any('(Patch contains only non-Python files[^\\n]{0,60})'),
      any('(Agent patch not found[^\\n]{0,60})'),
    ],
  },
  {
    id: 'agent.patch-failed',
    category: 'agent-patch-failed',
    strength: S,
    roles: ['agent'],
    description: 'The agent patch does not apply: {1}',
    indications: [
      any('(error: corrupt patch at line \\d+)'),
      any('(error: [^\\n]{1,160}: patch does not apply)'),
      any('(AGENT_PATCH_FAILED[^\\n]{0,160})'),
      any('(Patch apply failed[^\\n]{0,80})'),
      any('(Failed to apply (?:agent )?patch[^\\n]{0,40})'),
      any('(Agent patch failed to apply)'),
      any('(error: patch failed: [^\\n]{0,80})'),
    ],
  },
  // `patch` reporting hunks it could not place and going on (ISO-Bench's runner continued with
  // --force): the patch applied only in part, so what ran is not the agent's change.
  {
    id: 'agent.patch-partial',
    category: 'agent-patch-failed',
    cause: 'patch-partially-applied',
    strength: S,
    roles: ['agent'],
    description: 'The agent patch applied only in part: {1}',
    indications: [
      any('(Hunk #\\d+ FAILED at \\d+[^\\n]{0,40})'),
      any('(\\d+ out of \\d+ hunks? FAILED[^\\n]{0,80})'),
      any("(can't find file to patch[^\\n]{0,60})"),
      any('(Skipping patch\\.?)'),
      any('(AGENT_PATCH_APPLIED_FALLBACK)'),
      any('(Patch dry-run failed, trying with --force)'),
    ],
  },
  // Python refusing the patched code itself: the agent's change broke the server (only with the patch applied).
  {
    id: 'agent.broken-code',
    category: 'agent-broke-server',
    cause: 'python-error-in-patch',
    strength: S,
    roles: ['agent'],
    description: 'The patched code does not run: {1}',
    indications: [
      any(
        '^\\s{0,8}(?:\\(\\w{1,40}(?: rank=\\d{1,4})? pid=\\d{1,10}\\)\\s{0,4})?(?:ERROR[^\\]]{0,80}\\]\\s{0,4})?((?:SyntaxError|IndentationError|TabError): [^\\n]{0,160})',
      ),
      any(
        "^\\s{0,8}(?:\\(\\w{1,40}(?: rank=\\d{1,4})? pid=\\d{1,10}\\)\\s{0,4})?(?:ERROR[^\\]]{0,80}\\]\\s{0,4})?((?:NameError: name '\\w{1,80}' is not defined|UnboundLocalError: [^\\n]{0,120}))",
      ),
    ],
  },
  // The pipelines' own summaries of the agent's run, as they appear in its log: generic strings
  // (a root cause found beside them, such as a patch that applied in part, comes first).
  {
    id: 'agent.no-metrics',
    category: 'agent-no-metrics',
    strength: G,
    roles: ['agent'],
    description: '{1}',
    indications: [
      any('(No (?:\\w+ )?metrics in agent output[^\\n]{0,20})'),
      any('(Agent benchmark produced no metrics)'),
      any('(Agent phase recorded no metrics[^\\n]{0,80})'),
      any('(Patched (?:run|test) (?:produced no metrics|failed to produce JSON output))'),
      any('(No avg_ms in patched output)'),
    ],
  },
  {
    id: 'agent.server-crash',
    category: 'agent-broke-server',
    strength: G,
    roles: ['agent'],
    description: '{1}',
    indications: [any('(Server crashed after (?:applying )?(?:agent )?patch[^\\n]{0,20})'), any('(Agent server failed to start)')],
  },
];
