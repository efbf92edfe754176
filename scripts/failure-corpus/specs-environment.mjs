// Environment failures: wheels, images, installs, builds, dependency drift, CUDA, models, version bugs.
// Each entry: the category it must be classified as, the signature it shows, where the signature is
// known from (a public thread or the runner itself), and the log around it.
import { buildStart, pipStart, runnerStart, site, traceback, v0Start, v1EngineFailure, v1Load, v1Start } from './compose.mjs';

const importVllm = (extra = []) => [
  ['/usr/local/bin/vllm', 5, '<module>', 'from vllm.entrypoints.cli.main import main'],
  [site('vllm/entrypoints/cli/__init__.py'), 3, '<module>', 'from vllm.entrypoints.cli.benchmark.latency import BenchmarkLatencySubcommand'],
  [site('vllm/__init__.py'), 12, '<module>', 'from vllm.engine.arg_utils import AsyncEngineArgs, EngineArgs'],
  ...extra,
];

export const ENVIRONMENT = [
  // ── wheel-missing
  {
    category: 'wheel-missing',
    name: 'runner-no-ancestor-wheel',
    signature: 'No wheel available and no ancestor wheel found',
    source: 'ISO-Bench runner (research §4.5)',
    lines: () => [
      ...runnerStart({ commit: '3b3d8e91' }),
      '[runner] looking up a pre-built wheel for 3b3d8e91 and its ancestors (20 back)',
      'ERROR: No wheel available and no ancestor wheel found for 3b3d8e91',
    ],
  },
  {
    category: 'wheel-missing',
    name: 'pip-no-version',
    signature: 'Could not find a version that satisfies the requirement vllm==…',
    source: 'pip resolver output',
    lines: () => [
      ...pipStart(['vllm==0.6.4.dev212+g4f2f1a7c']),
      'ERROR: Could not find a version that satisfies the requirement vllm==0.6.4.dev212+g4f2f1a7c (from versions: 0.5.5, 0.6.0, 0.6.1, 0.6.2, 0.6.3, 0.6.3.post1)',
      'ERROR: No matching distribution found for vllm==0.6.4.dev212+g4f2f1a7c',
    ],
  },
  {
    category: 'wheel-missing',
    name: 'wheels-index-404',
    signature: 'HTTP error 404 while getting https://wheels.vllm.ai/<commit>/…',
    source: 'vLLM per-commit wheel index',
    lines: () => [
      '$ pip install https://wheels.vllm.ai/9f1710f1ace3535920c0bb6d4cc329c36289080e/vllm-1.0.0.dev-cp38-abi3-manylinux1_x86_64.whl',
      'Collecting vllm==1.0.0.dev',
      'ERROR: HTTP error 404 while getting https://wheels.vllm.ai/9f1710f1ace3535920c0bb6d4cc329c36289080e/vllm-1.0.0.dev-cp38-abi3-manylinux1_x86_64.whl',
      'ERROR: Could not install requirement vllm==1.0.0.dev from https://wheels.vllm.ai/9f1710f1ace3535920c0bb6d4cc329c36289080e/vllm-1.0.0.dev-cp38-abi3-manylinux1_x86_64.whl because of HTTP error 404 Client Error: Not Found for url',
    ],
  },
  {
    category: 'wheel-missing',
    name: 'wheel-platform',
    signature: 'vllm-….whl is not a supported wheel on this platform',
    source: 'pip install of a wheel built for another Python/arch',
    lines: () => [
      '$ pip install /wheels/vllm-0.5.4+cu124-cp311-cp311-linux_aarch64.whl',
      'ERROR: vllm-0.5.4+cu124-cp311-cp311-linux_aarch64.whl is not a supported wheel on this platform.',
    ],
  },
  {
    category: 'wheel-missing',
    name: 'runner-human-wheel',
    signature: 'Human wheel not found for …',
    source: 'ISO-Bench runner (research §4.5)',
    lines: () => [
      ...runnerStart({ commit: 'c0569dbc', role: 'human' }),
      '[runner] fetching s3://vllm-wheels/c0569dbc/',
      'Human wheel not found for c0569dbc82b5e945a77878190114d1b68027828b',
    ],
  },
  {
    category: 'wheel-missing',
    name: 'pip-no-distribution',
    signature: 'No matching distribution found for vllm==…',
    source: 'pip resolver output',
    lines: () => [
      '$ uv pip install vllm==0.7.4.dev55',
      'Using Python 3.12.3 environment at: /usr',
      'ERROR: No matching distribution found for vllm==0.7.4.dev55',
    ],
  },
  // ── image-missing
  {
    category: 'image-missing',
    name: 'manifest-unknown',
    signature: 'manifest for … not found: manifest unknown',
    source: 'docker pull',
    lines: () => [
      `Unable to find image 'ghcr.io/acme/vllm-bench:8aa1485fcff7be3e42300c0615ee0f3f3cbce9a8' locally`,
      'docker: Error response from daemon: manifest for ghcr.io/acme/vllm-bench:8aa1485fcff7be3e42300c0615ee0f3f3cbce9a8 not found: manifest unknown: manifest unknown.',
      "See 'docker run --help'.",
    ],
  },
  {
    category: 'image-missing',
    name: 'pull-denied',
    signature: 'pull access denied for …, repository does not exist',
    source: 'docker pull',
    lines: () => [
      "Unable to find image 'vllm-baseline:baseline-4f2f1a7c0e11' locally",
      "docker: Error response from daemon: pull access denied for vllm-baseline, repository does not exist or may require 'docker login': denied: requested access to the resource is denied.",
    ],
  },
  {
    category: 'image-missing',
    name: 'no-such-image',
    signature: 'Error response from daemon: No such image',
    source: 'docker create against a host without the image',
    lines: () => [...runnerStart({ commit: '22d33bac' }), 'Error response from daemon: No such image: vllm-bench:22d33baca2c0f4f1b3b4a3a0c2fb3c4d39d4b8c1'],
  },
  {
    category: 'image-missing',
    name: 'containerd-resolve',
    signature: 'failed to resolve reference "…": not found',
    source: 'containerd / buildkit pull',
    lines: () => [
      '#2 [internal] load metadata for docker.io/library/vllm-bench:8a4e5c5f',
      '#2 ERROR: docker.io/library/vllm-bench:8a4e5c5f: not found',
      'ERROR: failed to solve: failed to resolve reference "docker.io/library/vllm-bench:8a4e5c5f": docker.io/library/vllm-bench:8a4e5c5f: not found',
    ],
  },
  {
    category: 'image-missing',
    name: 'runner-no-baseline-image',
    signature: 'No baseline image available',
    source: 'ISO-Bench runner (research §4.5)',
    lines: () => [
      ...runnerStart({ commit: 'd7740ea4', role: 'baseline' }),
      '[runner] parent 4f2f1a7c0e11',
      'No baseline image available for parent 4f2f1a7c0e11',
    ],
  },
  // ── install-failed
  {
    category: 'install-failed',
    name: 'no-vllm-c',
    signature: "No module named 'vllm._C'",
    source: 'vLLM import without its compiled extension',
    lines: () => [
      ...v1Start({ version: '0.8.5' }).slice(0, 1),
      ...traceback(importVllm([[site('vllm/_custom_ops.py'), 11, '<module>', 'import vllm._C']]), ["ModuleNotFoundError: No module named 'vllm._C'"]),
    ],
  },
  {
    category: 'install-failed',
    name: 'no-vllm',
    signature: "ModuleNotFoundError: No module named 'vllm'",
    source: 'python -m vllm.entrypoints… in an image without vLLM',
    lines: () => [
      '$ python3 -m vllm.entrypoints.openai.api_server --model facebook/opt-125m',
      "/usr/bin/python3: Error while finding module specification for 'vllm.entrypoints.openai.api_server' (ModuleNotFoundError: No module named 'vllm')",
      "ModuleNotFoundError: No module named 'vllm'",
    ],
  },
  {
    category: 'install-failed',
    name: 'wheel-install-failed',
    signature: 'Wheel install failed',
    source: 'ISO-Bench runner (research §4.5)',
    lines: () => [
      ...runnerStart({ commit: '6a417b86', role: 'human' }),
      '[runner] installing vllm-0.6.3.dev88+g6a417b86-cp38-abi3-manylinux1_x86_64.whl',
      'Human wheel install failed: pip exited with 1',
    ],
  },
  {
    category: 'install-failed',
    name: 'partially-initialized',
    signature: "cannot import name 'cuda_utils' from partially initialized module 'vllm'",
    source: 'vLLM import from a half-installed tree',
    lines: () =>
      traceback(importVllm([[site('vllm/utils.py'), 41, '<module>', 'from vllm import cuda_utils']]), [
        "ImportError: cannot import name 'cuda_utils' from partially initialized module 'vllm' (most likely due to a circular import) (/usr/local/lib/python3.12/dist-packages/vllm/__init__.py)",
      ]),
  },
  {
    category: 'install-failed',
    name: 'site-packages',
    signature: 'Could not find vLLM in site-packages',
    source: 'ISO-Bench runner (research §4.5)',
    lines: () => [
      ...runnerStart({ commit: '2f1f1c2a', role: 'agent' }),
      '[runner] overlaying the agent tree onto the installed package',
      'ERROR: Could not find vLLM in site-packages',
    ],
  },
  // ── build-failed
  {
    category: 'build-failed',
    name: 'nvcc-killed',
    signature: "nvcc error : '…cicc' died due to signal 9",
    source: 'vLLM source builds with too many jobs',
    lines: () => [
      ...buildStart({ jobs: 64 }),
      '  [41/312] Building CUDA object CMakeFiles/_C.dir/csrc/quantization/gptq_marlin/gptq_marlin.cu.o',
      '  FAILED: CMakeFiles/_C.dir/csrc/quantization/gptq_marlin/gptq_marlin.cu.o',
      '  /usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -DTORCH_EXTENSION_NAME=_C -O3 -gencode arch=compute_90,code=sm_90 --threads=2 -c /workspace/vllm/csrc/quantization/gptq_marlin/gptq_marlin.cu -o CMakeFiles/_C.dir/csrc/quantization/gptq_marlin/gptq_marlin.cu.o',
      `  nvcc error   : '"$CICC_PATH/cicc"' died due to signal 9 (Kill signal)`,
      '  ninja: build stopped: subcommand failed.',
      '  error: subprocess-exited-with-error',
    ],
  },
  {
    category: 'build-failed',
    name: 'cc1plus-killed',
    signature: 'c++: fatal error: Killed signal terminated program cc1plus',
    source: 'host compiler out of memory',
    lines: () => [
      ...buildStart(),
      '  [88/312] Building CXX object CMakeFiles/_moe_C.dir/csrc/moe/torch_bindings.cpp.o',
      '  FAILED: CMakeFiles/_moe_C.dir/csrc/moe/torch_bindings.cpp.o',
      '  c++: fatal error: Killed signal terminated program cc1plus',
      '  compilation terminated.',
    ],
  },
  {
    category: 'build-failed',
    name: 'cmake-cuda',
    signature: 'CMake Error … CUDA',
    source: 'CMake configure without a usable CUDA toolkit',
    lines: () => [
      ...buildStart().slice(0, 9),
      '  CMake Error at /usr/local/lib/python3.12/dist-packages/torch/share/cmake/Caffe2/public/cuda.cmake:42 (message):',
      '    Failed to find nvcc.',
      '    Compiler requires the CUDA toolkit.  Please set the CUDAToolkit_ROOT variable.',
      '  -- Configuring incomplete, errors occurred!',
    ],
  },
  {
    category: 'build-failed',
    name: 'unsupported-arch',
    signature: "nvcc fatal : Unsupported gpu architecture 'compute_…'",
    source: 'old CUDA toolkit asked for a newer architecture',
    lines: () => [
      ...buildStart(),
      '  FAILED: CMakeFiles/_C.dir/csrc/attention/paged_attention_v2.cu.o',
      "  nvcc fatal   : Unsupported gpu architecture 'compute_100a'",
      '  ninja: build stopped: subcommand failed.',
    ],
  },
  {
    category: 'build-failed',
    name: 'editable-failed',
    signature: 'Failed building editable for vllm',
    source: 'pip install -e . summary',
    lines: () => [
      ...buildStart(),
      '  error: subprocess-exited-with-error',
      '  × Building editable for vllm (pyproject.toml) did not run successfully.',
      '  │ exit code: 1',
      '  note: This error originates from a subprocess, and is likely not a problem with pip.',
      '  ERROR: Failed building editable for vllm',
      'Failed to build vllm',
    ],
  },
  {
    category: 'build-failed',
    name: 'cmake-cuda-required',
    signature: 'CUDA 12.1 or later is required',
    source: 'CMake configure of newer vLLM against an older CUDA toolkit',
    lines: () => [
      ...buildStart(),
      '  CMake Error at CMakeLists.txt:70 (message):',
      '    CUDA 12.1 or later is required, found CUDA 11.8',
      '  -- Configuring incomplete, errors occurred!',
      '  error: subprocess-exited-with-error',
      '  ERROR: Failed building editable for vllm',
    ],
  },
  {
    category: 'build-failed',
    name: 'docker-step-failed',
    signature: "The command '/bin/sh -c …' returned a non-zero code",
    source: 'docker build (classic builder) of an image from source',
    lines: () => [
      'Step 9/16 : RUN TORCH_CUDA_ARCH_LIST="$TORCH_CUDA_ARCH_LIST" MAX_JOBS="$MAX_JOBS" python3 -m pip install -e . --no-build-isolation',
      ' ---> Running in 4b1f0c2d9e7a',
      'Obtaining file:///opt/vllm_baseline',
      '  Preparing editable metadata (pyproject.toml): started',
      "  Preparing editable metadata (pyproject.toml): finished with status 'done'",
      '  Building editable for vllm (pyproject.toml): started',
      "  Building editable for vllm (pyproject.toml): finished with status 'done'",
      'Successfully built vllm',
      'Installing collected packages: vllm',
      "ERROR: Could not install packages due to an OSError: [Errno 13] Permission denied: '/usr/local/lib/python3.10/dist-packages/__editable__.vllm-0.6.4.pth'",
      'Removing intermediate container 4b1f0c2d9e7a',
      'The command \'/bin/sh -c TORCH_CUDA_ARCH_LIST="$TORCH_CUDA_ARCH_LIST" MAX_JOBS="$MAX_JOBS" python3 -m pip install -e . --no-build-isolation\' returned a non-zero code: 1',
    ],
  },
  {
    category: 'build-failed',
    name: 'torch-extension',
    signature: 'Error compiling objects for extension',
    source: 'setuptools CUDA extension build (older vLLM)',
    lines: () => [
      '$ python setup.py develop',
      'running build_ext',
      "building 'vllm._C' extension",
      '/usr/local/cuda/bin/nvcc -I/usr/local/lib/python3.10/dist-packages/torch/include -c csrc/activation_kernels.cu -o build/temp.linux-x86_64-cpython-310/csrc/activation_kernels.o',
      'csrc/activation_kernels.cu(12): error: identifier "__nv_bfloat16" is undefined',
      ...traceback(
        [[site('torch/utils/cpp_extension.py'), 2100, '_run_ninja_build', 'raise RuntimeError(message) from e']],
        ['RuntimeError: Error compiling objects for extension'],
      ),
    ],
  },
  // ── dependency-conflict
  {
    category: 'dependency-conflict',
    name: 'aimv2',
    signature: "'aimv2' is already used by a Transformers config",
    source: 'vLLM with transformers ≥ 4.54',
    lines: () => [
      ...v1Start({ version: '0.9.1' }).slice(0, 2),
      ...traceback(importVllm([[site('vllm/transformers_utils/configs/ovis.py'), 76, '<module>', 'AutoConfig.register("aimv2", AIMv2Config)']]), [
        "ValueError: 'aimv2' is already used by a Transformers config, pick another name.",
      ]),
    ],
  },
  {
    category: 'dependency-conflict',
    name: 'numpy2',
    signature: 'compiled using NumPy 1.x cannot be run in NumPy 2',
    source: 'NumPy 2 ABI break',
    lines: () => [
      'A module that was compiled using NumPy 1.x cannot be run in',
      'NumPy 2.1.3 as it may crash. To support both 1.x and 2.x',
      'versions of NumPy, modules must be compiled with NumPy 2.0.',
      ...traceback(importVllm([[site('vllm/sequence.py'), 14, '<module>', 'import numpy as np']]), ['ImportError: numpy.core.multiarray failed to import']),
    ],
  },
  {
    category: 'dependency-conflict',
    name: 'pyairports-pip',
    signature: 'No matching distribution found for pyairports',
    source: 'outlines 0.0.x pinning a package taken off PyPI (research: 4 of 45 builds)',
    lines: () => [
      ...pipStart(['-e', '.']).slice(0, 2),
      'Collecting outlines<0.1,>=0.0.43 (from vllm==0.6.1.dev238+ge2c6e0a82)',
      'Collecting pyairports (from outlines<0.1,>=0.0.43->vllm==0.6.1.dev238+ge2c6e0a82)',
      'ERROR: Could not find a version that satisfies the requirement pyairports (from outlines) (from versions: none)',
      'ERROR: No matching distribution found for pyairports',
    ],
  },
  {
    category: 'dependency-conflict',
    name: 'pyairports-import',
    signature: "No module named 'pyairports'",
    source: 'outlines import at server start',
    lines: () => [
      ...v0Start({ version: '0.6.1.post2' }).slice(0, 2),
      ...traceback(
        [[site('outlines/types/airports.py'), 4, '<module>', 'from pyairports.airports import AIRPORT_LIST']],
        ["ModuleNotFoundError: No module named 'pyairports'"],
      ),
    ],
  },
  {
    category: 'dependency-conflict',
    name: 'outlines-fsm',
    signature: "No module named 'outlines.fsm'",
    source: 'vLLM 0.6 guided decoding with outlines ≥ 0.1',
    lines: () =>
      traceback(
        [
          [
            site('vllm/model_executor/guided_decoding/outlines_logits_processors.py'),
            27,
            '<module>',
            'from outlines.fsm.guide import CFGGuide, Generate, Guide, RegexGuide, Write',
          ],
        ],
        ["ModuleNotFoundError: No module named 'outlines.fsm'"],
      ),
  },
  {
    category: 'dependency-conflict',
    name: 'build-regex-from-schema',
    signature: "cannot import name 'build_regex_from_schema'",
    source: 'outlines API move',
    lines: () => [
      ...v0Start({ version: '0.6.4.post1' }).slice(0, 2),
      ...traceback(
        [[site('vllm/model_executor/guided_decoding/outlines_decoding.py'), 9, '<module>', 'from outlines.fsm.json_schema import build_regex_from_schema']],
        [
          "ImportError: cannot import name 'build_regex_from_schema' from 'outlines.fsm.json_schema' (/usr/local/lib/python3.12/dist-packages/outlines/fsm/json_schema.py)",
        ],
      ),
    ],
  },
  {
    category: 'dependency-conflict',
    name: 'logits-warper',
    signature: "cannot import name 'LogitsWarper' from 'transformers'",
    source: 'transformers 4.48 removal',
    lines: () =>
      traceback(importVllm([[site('vllm/model_executor/guided_decoding/__init__.py'), 5, '<module>', 'from transformers import LogitsWarper']]), [
        "ImportError: cannot import name 'LogitsWarper' from 'transformers' (/usr/local/lib/python3.12/dist-packages/transformers/__init__.py)",
      ]),
  },
  // ── cuda-incompatible
  {
    category: 'cuda-incompatible',
    name: 'vllm-c-undefined-symbol',
    signature: '_C.abi3.so: undefined symbol: _ZN…',
    source: 'vLLM built against another torch (vllm#13608, #21226)',
    lines: () => [
      'INFO 07-19 13:20:10 [__init__.py:239] Automatically detected platform cuda.',
      ...traceback(importVllm([[site('vllm/_custom_ops.py'), 11, '<module>', 'import vllm._C']]), [
        'ImportError: /usr/local/lib/python3.12/dist-packages/vllm/_C.abi3.so: undefined symbol: _ZN5torch3jit17parseSchemaOrNameERKSsb',
      ]),
    ],
  },
  {
    category: 'cuda-incompatible',
    name: 'flash-attn-symbol',
    signature: 'vllm_flash_attn/….so: undefined symbol',
    source: 'vllm-flash-attn built for another torch',
    lines: () => [
      ...v1Start({ version: '0.7.3' }),
      ...v1Load({ loaded: false }),
      ...v1EngineFailure({
        exception: [
          'ImportError: /usr/local/lib/python3.12/dist-packages/vllm/vllm_flash_attn/_vllm_fa2_C.abi3.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE',
        ].map(l => l),
      }),
    ],
  },
  {
    category: 'cuda-incompatible',
    name: 'tensormap',
    signature: 'undefined symbol: cuTensorMapEncodeTiled',
    source: 'research §5.1: driver older than the toolkit the kernels need',
    lines: () =>
      traceback(importVllm([[site('vllm/_custom_ops.py'), 11, '<module>', 'import vllm._C']]), [
        'ImportError: /usr/local/lib/python3.12/dist-packages/vllm/_C.abi3.so: undefined symbol: cuTensorMapEncodeTiled',
      ]),
  },
  {
    category: 'cuda-incompatible',
    name: 'libcudart-missing',
    signature: 'libcudart.so.12: cannot open shared object file',
    source: 'CUDA runtime absent from the image',
    lines: () =>
      traceback(importVllm([[site('vllm/_custom_ops.py'), 11, '<module>', 'import vllm._C']]), [
        'ImportError: libcudart.so.12: cannot open shared object file: No such file or directory',
      ]),
  },
  {
    category: 'cuda-incompatible',
    name: 'driver-too-old',
    signature: 'The NVIDIA driver on your system is too old',
    source: 'torch CUDA init on an old driver',
    lines: () => [
      ...v1Start({ version: '0.10.1' }),
      ...v1Load({ loaded: false }),
      ...v1EngineFailure({
        exception: [
          'RuntimeError: The NVIDIA driver on your system is too old (found version 12020). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx',
        ],
      }),
    ],
  },
  {
    category: 'cuda-incompatible',
    name: 'no-kernel-image',
    signature: 'no kernel image is available for execution on the device',
    source: 'kernels built for another architecture',
    lines: () => [
      ...v1Start({ version: '0.8.4' }),
      ...v1Load(),
      ...v1EngineFailure({
        exception: [
          'RuntimeError: CUDA error: no kernel image is available for execution on the device',
          'CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.',
        ],
      }),
    ],
  },
  // ── model-unsupported
  {
    category: 'model-unsupported',
    name: 'architecture',
    signature: 'Model architectures [...] are not supported for now',
    source: 'vLLM model registry',
    lines: () => [
      ...v0Start({ version: '0.5.4', model: 'Qwen/Qwen2-VL-7B-Instruct' }),
      ...traceback(
        [[site('vllm/model_executor/models/__init__.py'), 160, 'resolve_model_cls', 'raise ValueError(']],
        [
          "ValueError: Model architectures ['Qwen2VLForConditionalGeneration'] are not supported for now. Supported architectures: ['AquilaModel', 'BaiChuanForCausalLM', 'LlamaForCausalLM']",
        ],
      ),
    ],
  },
  {
    category: 'model-unsupported',
    name: 'rope-type',
    signature: 'Unknown RoPE scaling type',
    source: 'Llama 3.1 rope_scaling on vLLM 0.5.x',
    lines: () => [
      ...v0Start({ version: '0.5.2', model: 'meta-llama/Llama-3.1-8B-Instruct' }),
      ...traceback(
        [[site('vllm/model_executor/layers/rotary_embedding.py'), 807, 'get_rope', 'raise ValueError(f"Unknown RoPE scaling type {scaling_type}")']],
        ['ValueError: Unknown RoPE scaling type llama3'],
      ),
    ],
  },
  {
    category: 'model-unsupported',
    name: 'transformers-model-type',
    signature: 'Transformers does not recognize this architecture',
    source: 'config of a model newer than the installed transformers',
    lines: () =>
      traceback(
        [[site('transformers/models/auto/configuration_auto.py'), 1073, 'from_pretrained', 'raise ValueError(']],
        [
          'ValueError: The checkpoint you are trying to load has model type `qwen3` but Transformers does not recognize this architecture. This could be because of an issue with the checkpoint, or because your version of Transformers is out of date.',
        ],
      ),
  },
  {
    category: 'model-unsupported',
    name: 'quantization-method',
    signature: 'Unknown quantization method',
    source: 'vLLM quantization registry',
    lines: () => [
      ...v0Start({ version: '0.4.2', model: 'neuralmagic/Meta-Llama-3-8B-Instruct-FP8' }),
      ...traceback(
        [[site('vllm/config.py'), 164, '_verify_quantization', 'raise ValueError(']],
        ["ValueError: Unknown quantization method: fp8. Must be one of ['aqlm', 'awq', 'gptq', 'squeezellm', 'marlin']."],
      ),
    ],
  },
  {
    category: 'model-unsupported',
    name: 'rope-dict',
    signature: 'rope_scaling must be a dictionary',
    source: 'transformers config validation',
    lines: () =>
      traceback(
        [[site('transformers/models/llama/configuration_llama.py'), 182, '_rope_scaling_validation', 'raise ValueError(']],
        [
          "ValueError: `rope_scaling` must be a dictionary with two fields, `type` and `factor`, got {'factor': 8.0, 'low_freq_factor': 1.0, 'high_freq_factor': 4.0, 'original_max_position_embeddings': 8192, 'rope_type': 'llama3'}",
        ],
      ),
  },
  // ── version-bug (#8791: vLLM 0.6.x binds the API port twice)
  {
    category: 'version-bug',
    name: 'runner-8791',
    signature: 'has known port binding bug (issue #8791)',
    source: 'ISO-Bench runner (research §4.5)',
    lines: () => [...runnerStart({ commit: '6d646d08' }), 'vLLM 0.6.3.post2.dev156 has known port binding bug (issue #8791) - skipping serving benchmark'],
  },
  {
    category: 'version-bug',
    name: 'uvicorn-bind-063',
    signature: 'uvicorn: error while attempting to bind … address already in use, on 0.6.3',
    source: 'vllm#8791, #8204',
    lines: () => [
      ...v0Start({ version: '0.6.3.post1' }),
      'INFO 10-14 01:40:11 api_server.py:232] vLLM to use /tmp/tmpq0j3x1ok as PROMETHEUS_MULTIPROC_DIR',
      'INFO:     Started server process [1742]',
      'INFO:     Waiting for application startup.',
      'INFO:     Application startup complete.',
      "ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): address already in use",
      'INFO:     Waiting for application shutdown.',
    ],
  },
  {
    category: 'version-bug',
    name: 'oserror-98-064',
    signature: 'OSError: [Errno 98] Address already in use, on 0.6.4',
    source: 'vllm#9763',
    lines: () => [
      ...v0Start({ version: '0.6.4' }),
      ...traceback(
        [[site('vllm/entrypoints/openai/api_server.py'), 612, 'run_server', 'sock.bind((args.host or "", args.port))']],
        ['OSError: [Errno 98] Address already in use'],
      ),
    ],
  },
  {
    category: 'version-bug',
    name: 'eaddrinuse-062',
    signature: 'EADDRINUSE from the c10d store, on 0.6.2',
    source: 'vllm#9737, #11617',
    lines: () => [
      ...v0Start({ version: '0.6.2', tp: 2 }),
      ...traceback(
        [[site('torch/distributed/rendezvous.py'), 186, '_create_c10d_store', 'return TCPStore(']],
        [
          'RuntimeError: The server socket has failed to listen on any local network address. useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use',
        ],
      ),
    ],
  },
  {
    category: 'version-bug',
    name: 'plan-refusal',
    signature: 'cannot run serving benchmarks (port-binding bug #8791)',
    source: 'this project’s plan check',
    lines: () => [
      'bench-triage: refused: vLLM 0.6.3 cannot run serving benchmarks (port-binding bug #8791): use an offline benchmark (benchmark_throughput.py / benchmark_latency.py) (perf command of 6d646d08a1b2)',
    ],
  },
];
