"""Fake benchmarks/benchmark_throughput.py: offline, prints the newer `Throughput:` line."""
import argparse
import os
import time

import fakevllm_faults as faults
import vllm  # noqa: F401


def main():
    p = argparse.ArgumentParser(description="Benchmark the throughput.")
    p.add_argument("--backend", default="vllm")
    p.add_argument("--dataset", default=None)
    p.add_argument("--dataset-name", default=None)
    p.add_argument("--input-len", type=int, default=None)
    p.add_argument("--output-len", type=int, default=None)
    p.add_argument("--model", default="facebook/opt-125m")
    p.add_argument("--tensor-parallel-size", "-tp", type=int, default=1)
    p.add_argument("--num-prompts", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--dtype", default="auto")
    p.add_argument("--enforce-eager", action="store_true")
    p.add_argument("--trust-remote-code", action="store_true")
    p.add_argument("--max-model-len", type=int, default=None)
    p.add_argument("--output-json", default=None)
    args = p.parse_args()
    faults.maybe_flood()
    print(args)
    in_len, out_len = args.input_len or 256, args.output_len or 64
    t = time.perf_counter()
    time.sleep(args.num_prompts * float(os.environ.get("FAKE_VLLM_TOKEN_MS", "1")) / 1000)
    el = time.perf_counter() - t
    n = args.num_prompts
    print(f"Throughput: {n / el:.2f} requests/s, {n * (in_len + out_len) / el:.2f} total tokens/s, {n * out_len / el:.2f} output tokens/s")


if __name__ == "__main__":
    main()
