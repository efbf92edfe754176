"""Fake benchmarks/benchmark_latency.py: offline, prints `Avg latency` and percentile lines."""
import argparse
import os
import time

import fakevllm_faults as faults
import vllm  # noqa: F401  (the real script imports vllm first: the aimv2 clash surfaces here)
from vllm.logger import log


def main():
    p = argparse.ArgumentParser(description="Benchmark the latency of processing a single batch of requests till completion.")
    p.add_argument("--model", default="facebook/opt-125m")
    p.add_argument("--tokenizer", default=None)
    p.add_argument("--tensor-parallel-size", "-tp", type=int, default=1)
    p.add_argument("--input-len", type=int, default=32)
    p.add_argument("--output-len", type=int, default=128)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--num-iters-warmup", type=int, default=10)
    p.add_argument("--num-iters", type=int, default=30)
    p.add_argument("--dtype", default="auto")
    p.add_argument("--enforce-eager", action="store_true")
    p.add_argument("--trust-remote-code", action="store_true")
    p.add_argument("--max-model-len", type=int, default=None)
    p.add_argument("--gpu-memory-utilization", type=float, default=0.9)
    p.add_argument("--output-json", default=None)
    args = p.parse_args()
    faults.maybe_flood()
    print(args)
    log("INFO", "llm_engine.py:237", f"Initializing an LLM engine (v{vllm.__version__}) with config: model='{args.model}', tensor_parallel_size={args.tensor_parallel_size}")
    if faults.on("oom"):
        import torch
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.23 GiB is free.")
    token_ms = float(os.environ.get("FAKE_VLLM_TOKEN_MS", "1"))
    lat = []
    for i in range(args.num_iters_warmup + args.num_iters):
        t = time.perf_counter()
        time.sleep(args.output_len * token_ms / 1000 / 20)
        if i >= args.num_iters_warmup:
            lat.append(time.perf_counter() - t)
    lat.sort()
    print(f"Avg latency: {sum(lat) / len(lat)} seconds")
    for q in (10, 25, 50, 75, 90, 99):
        print(f"{q}% percentile latency: {lat[min(len(lat) - 1, int(len(lat) * q / 100))]} seconds")


if __name__ == "__main__":
    main()
