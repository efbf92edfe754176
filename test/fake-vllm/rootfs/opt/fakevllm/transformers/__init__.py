"""Fake transformers: just the AutoConfig registry, with the real error message.

With FAKE_VLLM_FAULT=aimv2 it behaves like transformers >= 4.48, which registers "aimv2" itself.
"""
import fakevllm_faults as _faults

__version__ = "4.48.0" if _faults.on("aimv2") else "4.45.2"


class PretrainedConfig:
    model_type = ""


class _LazyConfigMapping(dict):
    def register(self, key, value, exist_ok=False):
        if key in self and not exist_ok:
            raise ValueError(f"'{key}' is already used by a Transformers config, pick another name.")
        self[key] = value


CONFIG_MAPPING = _LazyConfigMapping()
if _faults.on("aimv2"):
    CONFIG_MAPPING["aimv2"] = PretrainedConfig


class AutoConfig:
    @staticmethod
    def register(model_type, config, exist_ok=False):
        CONFIG_MAPPING.register(model_type, config, exist_ok=exist_ok)
