"""Fake vLLM for Bench Triage's Docker tests: same entry points and output formats, no GPU.

Like the real package, importing it loads the model configs (so the aimv2 clash surfaces at
import time, exactly where real images fail).
"""
import os

__version__ = os.environ.get("FAKE_VLLM_VERSION", "0.6.4.post1")

from vllm.transformers_utils import configs  # noqa: E402,F401  (import side effects, as upstream)
