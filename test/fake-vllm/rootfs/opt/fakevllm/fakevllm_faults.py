"""Failures on demand, chosen with FAKE_VLLM_FAULT (comma-separated)."""
import os

_FAULTS = {f.strip() for f in os.environ.get("FAKE_VLLM_FAULT", "").split(",") if f.strip()}


def on(name: str) -> bool:
    return name in _FAULTS


def maybe_flood() -> None:
    """FAKE_VLLM_FAULT=flood: FAKE_VLLM_FLOOD_MB MiB of long non-UTF-8 lines before the real output."""
    if on("flood"):
        import fakevllm_flood
        fakevllm_flood.flood(int(os.environ.get("FAKE_VLLM_FLOOD_MB", "500")))
