/**
 * Known fixes as declarative, named steps (research §4.5). Each step is an argv run inside the
 * container before the server starts — never a shell string built from dataset text. Paths are
 * found at run time by the runner (`$VLLM_DIR` is the installed vLLM package directory).
 */
export interface RecipeStep {
  argv: string[];
  why: string;
}
export interface Recipe {
  id: string;
  title: string;
  fixes: string[];
  steps: RecipeStep[];
}

const py = (code: string, why: string): RecipeStep => ({ argv: ['python3', '-c', code], why });
const pip = (spec: string[], why: string): RecipeStep => ({ argv: ['python3', '-m', 'pip', 'install', '--no-cache-dir', ...spec], why });

/** Rewrites a registration call so that re-registering is allowed (the aimv2 clash). */
const AIMV2 = [
  // find_spec locates vllm without importing it: importing is exactly what fails before the fix.
  'import importlib.util, pathlib',
  'root = pathlib.Path(list(importlib.util.find_spec("vllm").submodule_search_locations)[0]) / "transformers_utils" / "configs"',
  'for name in ("ovis.py", "ovis2.py"):',
  '    p = root / name',
  '    if p.exists():',
  '        t = p.read_text()',
  '        t2 = t.replace(\'AutoConfig.register("aimv2", AIMv2Config)\', \'AutoConfig.register("aimv2", AIMv2Config, exist_ok=True)\')',
  '        if t2 != t: p.write_text(t2); print("bench-triage recipe aimv2-exist-ok: patched", p)',
].join('\n');

export const RECIPES: readonly Recipe[] = [
  {
    id: 'aimv2-exist-ok',
    title: "Register aimv2 with exist_ok=True (transformers already has 'aimv2')",
    fixes: ['aimv2-registered'],
    steps: [py(AIMV2, "transformers ≥ 4.48 registers 'aimv2' itself; vLLM's Ovis config registers it again")],
  },
  { id: 'numpy-lt-2', title: 'Install numpy<2', fixes: ['numpy2'], steps: [pip(['numpy<2'], 'the stack was built against NumPy 1.x')] },
  {
    id: 'fa-utils',
    title: 'Provide vllm/vllm_flash_attn/fa_utils.py from the same commit',
    fixes: ['fa-utils-missing'],
    steps: [
      {
        argv: ['bench-triage-copy', 'vllm/vllm_flash_attn/fa_utils.py'],
        why: 'the image lacks fa_utils.py; the runner copies it from `git show <commit>:vllm/vllm_flash_attn/fa_utils.py`',
      },
    ],
  },
  {
    id: 'transformers-4.44.2',
    title: 'Pin transformers==4.44.2 (LogitsWarper)',
    fixes: ['logits-warper', 'transformers-utils'],
    steps: [pip(['transformers==4.44.2'], 'newer transformers removed LogitsWarper; a broken install lacks transformers.utils')],
  },
  {
    id: 'outlines-0.0.34',
    title: 'Install outlines 0.0.34 and pyairports',
    fixes: ['outlines-fsm', 'pyairports'],
    steps: [
      pip(['outlines==0.0.34', '--no-deps'], 'the guided-decoding code of this vLLM expects the old outlines.fsm API'),
      pip(['pyairports', 'pycountry'], 'outlines imports pyairports'),
    ],
  },
];

export function recipe(id: string): Recipe {
  const r = RECIPES.find(x => x.id === id);
  if (!r) throw new Error(`unknown recipe "${id}"; known: ${RECIPES.map(x => x.id).join(', ')}`);
  return r;
}

/** Recipes that address a classification's cause. */
export function proposeRecipes(cause: string | null | undefined): Recipe[] {
  return cause ? RECIPES.filter(r => r.fixes.includes(cause)) : [];
}
