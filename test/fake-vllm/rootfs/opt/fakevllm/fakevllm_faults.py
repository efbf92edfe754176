"""Failures on demand, chosen with FAKE_VLLM_FAULT (comma-separated)."""
import os

_FAULTS = {f.strip() for f in os.environ.get("FAKE_VLLM_FAULT", "").split(",") if f.strip()}


def on(name: str) -> bool:
    return name in _FAULTS
