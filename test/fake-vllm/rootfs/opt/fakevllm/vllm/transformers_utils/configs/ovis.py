# Mirrors vLLM's Ovis config module: it registers the "aimv2" vision config with transformers.
from transformers import AutoConfig, PretrainedConfig


class AIMv2Config(PretrainedConfig):
    model_type = "aimv2"


class OvisConfig(PretrainedConfig):
    model_type = "ovis"


AutoConfig.register("aimv2", AIMv2Config)
