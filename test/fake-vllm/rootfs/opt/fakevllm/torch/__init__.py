"""Fake torch: only what the fake vLLM raises."""


class OutOfMemoryError(RuntimeError):
    pass


OutOfMemoryError.__module__ = "torch"
