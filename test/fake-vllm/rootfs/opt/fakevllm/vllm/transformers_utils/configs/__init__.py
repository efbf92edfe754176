from vllm.transformers_utils.configs.ovis import OvisConfig  # noqa: F401
