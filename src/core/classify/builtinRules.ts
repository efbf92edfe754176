import type { RuleSpec } from './ruleSchema';

/**
 * Built-in rules, as data. Patterns are JavaScript regexes written to run in linear time on a
 * line (no nested quantifiers). Order breaks ties on the same line: more specific first.
 * The corpus facts behind them: research file §4.5, §4.8, §5.1, §5.2.
 */
// Every quantifier that can run along a line is bounded or follows a literal, so a match attempt
// costs at most a few hundred steps per position even on a 10 MB line.
const S = 'signature' as const, C = 'context' as const, G = 'generic' as const;
const any = (pattern: string, flags?: 'i') => ({ scope: 'any' as const, pattern, ...(flags ? { flags } : {}) });
const err = (pattern: string, flags?: 'i') => ({ scope: 'error' as const, pattern, ...(flags ? { flags } : {}) });
const ctx = (pattern: string, flags?: 'i') => ({ scope: 'context' as const, pattern, ...(flags ? { flags } : {}) });

export const BUILTIN_RULES: RuleSpec[] = [
  // ── environment
  { id: 'image-missing.manifest', category: 'image-missing', strength: S, description: 'Docker image {1} not found (manifest unknown)',
    indications: [any('manifest for (\\S+) not found'), any('pull access denied for (\\S+)'), any('Failed to pull (?:baseline |base )?image (\\S+)'), any('(manifest unknown)')] },
  { id: 'image-missing.none-available', category: 'image-missing', strength: S, description: 'No Docker image available: {1}',
    indications: [any('(No (?:baseline |Docker )image available[^\\n]*)'), any('(vllm-baseline:baseline-\\w+ not found)')] },
  { id: 'image-missing.no-parent', category: 'image-missing', cause: 'parent-unknown', strength: S, description: 'The parent commit is unknown, so the baseline image cannot be named',
    indications: [any('Missing parent_commit - cannot determine baseline image')] },
  { id: 'disk-full', category: 'disk-full', strength: S, description: 'No space left on device: {1}',
    indications: [any('([^\\s:]{1,200}): no space left on device', 'i'), any('(no space left on device|disk quota exceeded)', 'i')] },
  { id: 'wheel-missing', category: 'wheel-missing', strength: S, description: 'No pre-built wheel for {1}',
    indications: [any('No wheel available and no ancestor wheel found for (\\w+)'), any('No wheel for (?:baseline|human) (\\w+)'), any('(?:Baseline|Human) wheel not found for (\\w+)'), any('No wheel source provided for (\\w+)')] },
  { id: 'infra.git-lock', category: 'infra-transient', cause: 'git-timeout', strength: S, description: 'Git lock or time-out in the build cache: {1}',
    indications: [any("(Unable to create '[^']*index\\.lock')"), any("(Command '\\['git'[^\\n]*timed out after \\d+ seconds)")] },
  { id: 'install-failed.wheel', category: 'install-failed', strength: S, description: 'vLLM wheel install failed: {1}',
    indications: [any('((?:Baseline |Human |Agent )?[Ww]heel install(?:ation)? failed[^\\n]{0,120})'), any('(Failed to install (?:baseline |human )?wheel[^\\n]{0,120})')] },
  { id: 'install-failed.vllm-c', category: 'install-failed', strength: S, description: 'vLLM is not importable: {1}',
    indications: [any("^(?!\\s*(?:\\(\\w+ pid=\\d+\\)\\s*)?(?:WARNING|INFO|DEBUG)\\b).*(No module named '?vllm\\._C'?)"), any("(No module named '?vllm\\._version'?)"),
      any('(vLLM import failed after (?:wheel install|overlay)[^\\n]{0,80})'), any('(Could not find vLLM in site-packages)'), any('(vLLM not properly installed[^\\n]{0,80})'),
      any('(ERROR: Could not find Python with vLLM)'), any('(ERROR: vLLM not found at \\S+)'), any("(cannot import name 'cuda_utils' from partially initialized module 'vllm')"),
      any("(Could not load any common_ops library)"), any("(No module named 'common_ops')"), any('(SGLang not found in container)')] },
  { id: 'build-failed', category: 'build-failed', strength: S, description: 'Building vLLM failed: {1}',
    indications: [any('(Incremental build failed[^\\n]{0,120})'), any('(Wheel build failed[^\\n]{0,80})'), any('(Build timed out \\(exceeded[^\\n]*)'),
      any("(An error happened while installing `vllm` in editable mode)"), any("(Preparing editable metadata \\(pyproject\\.toml\\): finished with status 'error')"),
      any('(Failed building (?:editable|wheel) for vllm)'), any('(CMake Error[^\\n]{0,120})'), any('(error: subprocess-exited-with-error)')] },
  { id: 'dependency.aimv2', category: 'dependency-conflict', cause: 'aimv2-registered', strength: S, description: "transformers already registers 'aimv2': {1}",
    indications: [any("(\\\\?'aimv2\\\\?' is already used by a Transformers config[^\\n]{0,40})")] },
  { id: 'dependency.numpy2', category: 'dependency-conflict', cause: 'numpy2', strength: S, description: 'NumPy 2 incompatibility: {1}',
    indications: [any('(Numpy is not available)'), any('(compiled using NumPy 1\\.x cannot be run in)'), any('(_ARRAY_API not found)'), any('(numpy\\.core\\.multiarray failed to import)')] },
  { id: 'dependency.fa-utils', category: 'dependency-conflict', cause: 'fa-utils-missing', strength: S, description: '{1}', indications: [any("(No module named '?vllm\\.vllm_flash_attn\\.fa_utils'?)")] },
  { id: 'dependency.logits-warper', category: 'dependency-conflict', cause: 'logits-warper', strength: S, description: '{1}', indications: [any("(cannot import name '?LogitsWarper'?[^\\n]{0,80})")] },
  { id: 'dependency.pyairports', category: 'dependency-conflict', cause: 'pyairports', strength: S, description: '{1}', indications: [any("(No module named \\\\?'?pyairports\\\\?'?)")] },
  { id: 'dependency.outlines', category: 'dependency-conflict', cause: 'outlines-fsm', strength: S, description: '{1}', indications: [any("(No module named '?outlines\\.fsm[\\w.]*'?)"), any('(OUTLINES_INSTALL_FAILED)')] },
  { id: 'dependency.transformers-utils', category: 'dependency-conflict', cause: 'transformers-utils', strength: S, description: '{1}', indications: [any("(No module named '?transformers\\.utils'?)")] },
  { id: 'dependency.hf-hub', category: 'dependency-conflict', cause: 'huggingface-hub', strength: S, description: '{1}', indications: [any('(huggingface-hub>=[\\d.]+,<[\\d.]+ is required[^\\n]{0,80})')] },
  { id: 'dependency.triton', category: 'dependency-conflict', cause: 'triton-api', strength: S, description: '{1}', indications: [any("(cannot import name '?default_cache_dir'? from '?triton[^\\n]{0,40})")] },
  { id: 'dependency.chat-template', category: 'dependency-conflict', cause: 'transformers-api', strength: S, description: '{1}', indications: [any("(has no attribute '?default_chat_template'?)")] },
  { id: 'dependency.pyarrow', category: 'dependency-conflict', cause: 'pyarrow-api', strength: S, description: '{1}', indications: [any("(module 'pyarrow' has no attribute '\\w+')")] },
  { id: 'dependency.missing-module', category: 'dependency-conflict', cause: 'missing-module', strength: S, description: 'Missing Python module: {1}',
    indications: [any("No module named '?(librosa|deep_ep|deep_gemm|flashinfer|xformers|triton|sentencepiece|tiktoken)'?")] },
  { id: 'cuda.tensormap', category: 'cuda-incompatible', cause: 'cuTensorMapEncodeTiled', strength: S, description: '{1}', indications: [any('(undefined symbol: cuTensorMapEncodeTiled|cuTensorMapEncodeTiled)')] },
  { id: 'cuda.undefined-symbol', category: 'cuda-incompatible', cause: 'undefined-symbol', strength: S, description: 'Compiled module does not match: {1}', indications: [any('(undefined symbol: \\S+)')] },
  { id: 'cuda.arch', category: 'cuda-incompatible', strength: S, description: '{1}',
    indications: [any('(no kernel image is available for execution on the device)'), any('(CUDA driver version is insufficient[^\\n]{0,60})'), any('("normal_kernel_cuda" not implemented for \'Float8\\w*\')'), any('(CUDA error: (?!out of memory)[^\\n]{0,100})')] },
  { id: 'model.rope', category: 'model-unsupported', cause: 'rope-scaling', fixability: 'recipe', strength: S, description: 'RoPE scaling type not supported: {1}',
    indications: [any('Unknown RoPE scaling type (\\w+)'), any("(rope_scaling[^\\n]{0,40}must be a dictionary[^\\n]{0,40})"), any('(rope_scaling format and cache engine bugs[^\\n]{0,40})')] },
  { id: 'model.architecture', category: 'model-unsupported', cause: 'architecture', strength: S, description: 'Model architecture not supported: {1}',
    indications: [any('Model architectures? \\[([^\\]]+)\\] (?:are|is) not supported'), any('Model architectures \\[([^\\]]+)\\] failed to be inspected'), any("(The checkpoint you are trying to load has model type `\\w+` but Transformers does not recognize)")] },
  { id: 'version-bug.8791', category: 'version-bug', strength: S, description: '{1}', indications: [any('(vLLM [\\w.+-]+ has known port binding bug \\(issue #8791\\))'), any('(port binding bug[^\\n]{0,40}#8791)'),
      // What the bug looks like from the server itself (vLLM 0.6.0–0.6.5 binds the API port twice).
      any('(error while attempting to bind on address[^\\n]{0,80}address already in use)')] },
  // ── resources
  { id: 'gpu-oom', category: 'gpu-oom', strength: S, description: '{1}', indications: [any('(CUDA out of memory[^\\n]{0,80})'), any('(torch\\.OutOfMemoryError[^\\n]{0,60})'), any('(CUBLAS_STATUS_ALLOC_FAILED)'), any('(No available memory for the cache blocks[^\\n]{0,40})')] },
  { id: 'multi-gpu.tp', category: 'multi-gpu-required', cause: 'tensor-parallel', strength: S, description: '{1}',
    indications: [any('(Requires tensor-parallel-size \\d+[^\\n]{0,60})'), any('(only \\d+ H100 available)'), any('(The number of required GPUs exceeds the total number of available GPUs[^\\n]{0,40})'), any('(Total number of attention heads \\(\\d+\\) must be divisible by tensor parallel size[^\\n]{0,20})')] },
  { id: 'multi-gpu.blocked', category: 'multi-gpu-required', cause: 'model-too-large', strength: S, description: '{1}', indications: [any('(Model \\S+ is blocked: too large[^\\n]{0,60})')] },
  // ── runtime
  { id: 'infra.broken-pipe', category: 'infra-transient', cause: 'broken-pipe', strength: S, description: '{1}', indications: [any('(\\[Errno 32\\] Broken pipe|BrokenPipeError[^\\n]{0,40})')] },
  { id: 'infra.sandbox', category: 'infra-transient', cause: 'sandbox-error', strength: S, description: '{1}',
    indications: [any('(Sandbox error: [^\\n]{0,80})'), any('(request cancelled due to internal error)'), any("(Lookup failed for Function '[^']+')"), any('(Connection reset by peer)'), any('(Temporary failure in name resolution)')] },
  { id: 'server.cuda-graph', category: 'server-startup-failed', cause: 'cuda-graph-timeout', strength: S, description: 'Server stopped while capturing CUDA graphs: {1}',
    indications: [err('server failed to start\\. Logs: (\\w*apturing CUDA graph shapes:[^\\n]{0,30})')] },
  // ── measurement
  { id: 'no-metrics.bad-arguments', category: 'no-metrics', cause: 'bad-arguments', strength: S, description: 'The benchmark rejected its arguments: {1}',
    indications: [any('(error: unrecognized arguments: [^\\n]{0,120})'), any('(error: the following arguments are required: [^\\n]{0,80})'), any('(error: argument --?[\\w-]+: [^\\n]{0,80})'), any('(dataset_path must be provided[^\\n]{0,40})')] },
  { id: 'no-metrics.dataset-missing', category: 'no-metrics', cause: 'dataset-missing', strength: S, description: 'Dataset file missing: {1}',
    indications: [any("(No such file or directory: '[^']*(?:sharegpt|ShareGPT|sonnet|dataset)[^']*')")] },
  { id: 'no-metrics.test-target', category: 'no-metrics', cause: 'test-target-missing', strength: S, description: 'The generated perf test targets code this commit does not have: {1}',
    indications: [any('("target_resolved": false)'), any("(module '[\\w.]+' has no attribute '\\w+')"), any("(Failed to import (?:required classes|vLLM components): [^\\n]{0,80})"), any("(No module named '?benchmark\\.kernels[\\w.]*'?)")] },
  // ── dataset
  { id: 'dataset.no-perf-command', category: 'no-perf-command', strength: S, description: '{1}', indications: [any('(No perf_command in dataset|No test_script in dataset)'), any('(No optimizable code paths in commit[^\\n]{0,60})')] },
  { id: 'dataset.no-model', category: 'bad-perf-command', cause: 'placeholder', strength: S, description: '{1}', indications: [any('(Could not extract model from perf_command[^\\n]{0,40})')] },
  { id: 'dataset.gated', category: 'model-gated', cause: 'gated', strength: S, description: '{1}',
    indications: [any('(GatedRepoError[^\\n]{0,60})'), any('((?:401|403) Client Error[^\\n]{0,60})'), any('(Access to model \\S+ is restricted[^\\n]{0,40})'), any('(You are trying to access a gated repo[^\\n]{0,40})'), any('(HF_ACCESS_DENIED)')] },
  { id: 'dataset.invalid-repo', category: 'model-gated', cause: 'invalid-repo', strength: S, description: '{1}',
    indications: [any('(\\S{1,200} is not a local folder and is not a valid model identifier[^\\n]{0,40})'), any('(Repo id must be in the form[^\\n]{0,60})'), any('(Invalid repository ID[^\\n]{0,40})'), any('(RepositoryNotFoundError[^\\n]{0,40})')] },
  // ── agent
  { id: 'agent.no-patch', category: 'agent-no-patch', strength: S, roles: ['agent'], description: '{1}',
    indications: [any('(No Claude Code patch found[^\\n]{0,20})'), any('(Patch is empty or contains no vllm/ Python changes)'), any('(Patch contains only non-Python files[^\\n]{0,60})'), any('(Agent patch not found[^\\n]{0,60})')] },
  { id: 'agent.patch-failed', category: 'agent-patch-failed', strength: S, roles: ['agent'], description: 'The agent patch does not apply: {1}',
    indications: [any('(AGENT_PATCH_FAILED[^\\n]{0,160})'), any('(Patch apply failed[^\\n]{0,80})'), any('(Failed to apply (?:agent )?patch[^\\n]{0,40})'), any('(Agent patch failed to apply)'), any('(error: patch failed: [^\\n]{0,80})')] },
  // `patch` reporting hunks it could not place and going on (ISO-Bench's runner continued with
  // --force): the patch applied only in part, so what ran is not the agent's change.
  { id: 'agent.patch-partial', category: 'agent-patch-failed', cause: 'patch-partially-applied', strength: S, roles: ['agent'], description: 'The agent patch applied only in part: {1}',
    indications: [any('(Hunk #\\d+ FAILED at \\d+[^\\n]{0,40})'), any('(\\d+ out of \\d+ hunks? FAILED[^\\n]{0,80})'), any("(can't find file to patch[^\\n]{0,60})"), any('(Skipping patch\\.?)'),
      any('(AGENT_PATCH_APPLIED_FALLBACK)'), any('(Patch dry-run failed, trying with --force)')] },
  // ── context: inferred from the command, the model and the subject when the logs say nothing specific
  { id: 'context.placeholder', category: 'bad-perf-command', cause: 'placeholder', strength: C, description: 'Placeholder left in the perf command: {1}',
    indications: [ctx('--model[= ](MODEL)\\b'), ctx('--[\\w-]+[= ](BS|INPUT_LEN|OUTPUT_LEN|MODEL_NAME|NUM_PROMPTS|TP)\\b'), ctx('(<[a-z_]+>)')] },
  { id: 'context.tp', category: 'multi-gpu-required', cause: 'tensor-parallel', strength: C, description: 'The command asks for tensor-parallel size {1} on a 1-GPU configuration',
    indications: [ctx('(?:--tensor-parallel-size|-tp)[= ]([2-9]|\\d\\d)\\b')] },
  { id: 'context.large-model', category: 'multi-gpu-required', cause: 'model-too-large', strength: C, description: 'Model too large for one H100: {1}',
    indications: [ctx('(deepseek-ai/DeepSeek-(?:V2(?!-Lite)|V3|R1)[\\w.-]*)', 'i'), ctx('(nemotron-4-340b[\\w-]*|dbrx[\\w-]*|Llama-4-Scout[\\w-]*|Mixtral-8x22B[\\w-]*|[\\w./-]{0,80}-(?:70|72|110|180|405)B[\\w.-]{0,40})', 'i')] },
  { id: 'context.hardware', category: 'wrong-hardware', strength: C, description: 'The commit targets other hardware: {1}',
    indications: [ctx('subject: .*(\\[(?:ROCm|ROCM|AMD|Hardware\\]\\[AMD|Neuron|TPU|XPU|Intel|CPU|Hardware\\]\\[Intel)\\])'), ctx('subject: .*\\b(mi300|MI300|rocm|neuron)\\b')] },
  // ── generic: the pipelines' summary strings
  { id: 'generic.agent-crash', category: 'agent-broke-server', strength: G, roles: ['agent'], description: '{1}',
    indications: [err('(Server crashed after (?:applying )?(?:agent )?patch[^\\n]{0,20})'), err('(Server startup timeout after (?:applying (?:agent )?)?patch)'), err('(Agent server failed to start)')] },
  { id: 'generic.agent-no-metrics', category: 'agent-no-metrics', strength: G, roles: ['agent'], description: '{1}',
    indications: [err('(No (?:\\w+ )?metrics in agent output[^\\n]{0,20})'), err('(Agent benchmark produced no metrics)'), err('(Agent phase recorded no metrics[^\\n]*)'), err('(Patched (?:run|test) (?:produced no metrics|failed to produce JSON output))'), err('(No avg_ms in patched output)')] },
  { id: 'generic.agent-timeout', category: 'timeout', strength: G, roles: ['agent'], description: '{1}', indications: [err('(Agent benchmark (?:\\(wheel mode\\) )?timed out after \\d+s)')] },
  { id: 'generic.timeout', category: 'timeout', strength: G, description: '{1}',
    indications: [err('((?:Benchmark )?timed out after \\d+\\s*s\\w*)', 'i'), err('(Timeout after \\d+s)'), err('(Benchmark exceeded \\d+s timeout)'), err('(Server startup timeout[^\\n]{0,20})'), err('(SERVER_TIMEOUT)'),
      err('(Server failed to start within (?:timeout|\\d+ seconds))'), err('(Sandbox timeout after \\d+s)'), err('(Test timed out after \\d+s)'), err('(Benchmark timed out)')] },
  { id: 'generic.server', category: 'server-startup-failed', strength: G, description: '{1}',
    indications: [err('(Server crashed during startup)'), err('((?:BASELINE|HUMAN|AGENT|Baseline|Human) server failed(?: to start)?)'), err('(Server failed to start[^\\n]{0,20})'), err('(SERVER_CRASHED|SERVER_START_FAILED)'),
      err('(Engine (?:core initialization|process) failed[^\\n]{0,40})'), err('(Server failed - incompatible overlay)'), err('(Failed to start vLLM server)')] },
  { id: 'generic.no-metrics', category: 'no-metrics', cause: 'parse-miss', strength: G, description: '{1}',
    indications: [err('(No (?:\\w+ )?metrics in output)'), err('((?:Baseline |Human )?(?:benchmark )?produced no metrics)', 'i'), err('(Baseline did not produce metrics)'), err('(No (?:throughput|latency) metrics)'),
      err('(Could not parse metrics from output)'), err('(No metrics (?:from benchmark|parsed from output))'), err('((?:Baseline|Patched) test failed to produce JSON output)'), err('(No avg_ms in (?:baseline|patched) output)'),
      err('(Benchmark did not complete)'), err('(No JSON results in output)'), err('(status says success but no metrics were recorded)'), err('(Failed to parse benchmark results JSON|No benchmark results found in output)')] },
  { id: 'generic.incompatible', category: 'model-unsupported', strength: G, description: '{1}', indications: [err('(has fundamental model compatibility issues[^\\n]{0,60})')] },
  { id: 'generic.exit', category: 'server-startup-failed', strength: G, description: '{1}', indications: [err('(Exit code \\d+)'), err('(Script error: [^\\n]{0,60})')] },
];
