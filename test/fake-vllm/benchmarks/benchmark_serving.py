"""Fake benchmarks/benchmark_serving.py: real flags, real result block and --save-result JSON.

It sends real HTTP requests (streamed completions) to the server named by --host/--port or
--base-url and measures TTFT/TPOT/ITL from the chunks, like the upstream client.
"""
import argparse
import asyncio
import json
import os
import statistics
import sys
import time
import urllib.parse
from datetime import datetime

import fakevllm_faults as faults


def args_parser():
    p = argparse.ArgumentParser(description="Benchmark the online serving throughput.")
    p.add_argument("--backend", default="vllm")
    p.add_argument("--base-url", default=None)
    p.add_argument("--host", default="localhost")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--endpoint", default="/v1/completions")
    p.add_argument("--dataset", default=None)
    p.add_argument("--dataset-name", default="sharegpt", choices=["sharegpt", "sonnet", "random", "hf"])
    p.add_argument("--dataset-path", default=None)
    p.add_argument("--model", required=True)
    p.add_argument("--tokenizer", default=None)
    p.add_argument("--best-of", type=int, default=1)
    p.add_argument("--use-beam-search", action="store_true")
    p.add_argument("--num-prompts", type=int, default=1000)
    p.add_argument("--sharegpt-output-len", type=int, default=None)
    p.add_argument("--sonnet-input-len", type=int, default=550)
    p.add_argument("--sonnet-output-len", type=int, default=150)
    p.add_argument("--sonnet-prefix-len", type=int, default=200)
    p.add_argument("--random-input-len", type=int, default=1024)
    p.add_argument("--random-output-len", type=int, default=128)
    p.add_argument("--random-range-ratio", type=float, default=1.0)
    p.add_argument("--request-rate", type=float, default=float("inf"))
    p.add_argument("--max-concurrency", type=int, default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--trust-remote-code", action="store_true")
    p.add_argument("--disable-tqdm", action="store_true")
    p.add_argument("--profile", action="store_true")
    p.add_argument("--save-result", action="store_true")
    p.add_argument("--save-detailed", action="store_true")
    p.add_argument("--metadata", nargs="*", default=None)
    p.add_argument("--result-dir", default=None)
    p.add_argument("--result-filename", default=None)
    p.add_argument("--ignore-eos", action="store_true")
    p.add_argument("--percentile-metrics", default="ttft,tpot,itl")
    p.add_argument("--metric-percentiles", default="99")
    return p


async def one_request(url, model, prompt_len, output_len):
    """One streamed completion over its own connection, timed per chunk as the upstream aiohttp client does."""
    u = urllib.parse.urlsplit(url)
    body = json.dumps({"model": model, "prompt": "hi " * prompt_len, "max_tokens": output_len, "stream": True}).encode()
    start = time.perf_counter()
    reader, writer = await asyncio.wait_for(asyncio.open_connection(u.hostname, u.port or 80), 60)
    try:
        writer.write(f"POST {u.path or '/'} HTTP/1.1\r\nHost: {u.netloc}\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
        await writer.drain()
        status = (await reader.readline()).split()
        if len(status) < 2 or status[1] != b"200":
            raise ConnectionError(f"HTTP {b' '.join(status[1:]).decode(errors='replace') or 'no status'} from {url}")
        while (await reader.readline()).strip():
            pass  # headers: the server streams chunked
        ttft, itls, last, pending = None, [], start, b""
        while True:
            size = int((await reader.readline()).split(b";")[0] or b"0", 16)
            if size == 0:
                break
            pending += await reader.readexactly(size + 2)
            *lines, pending = pending.split(b"\n")
            for line in lines:
                line = line.strip()
                if not line.startswith(b"data: ") or line == b"data: [DONE]":
                    continue
                now = time.perf_counter()
                if ttft is None:
                    ttft = now - start
                else:
                    itls.append(now - last)
                last = now
    finally:
        writer.close()
    latency = time.perf_counter() - start
    return ttft or latency, itls, latency, output_len


async def run_all(url, model, in_len, out_len, num_prompts, workers, tqdm, t0):
    """Every prompt at once, at most `workers` in flight (the fake's request rate is infinite)."""
    gate = asyncio.Semaphore(workers)
    done = 0

    async def gated():
        nonlocal done
        async with gate:
            r = await one_request(url, model, in_len, out_len)
        done += 1
        if tqdm and done % max(1, num_prompts // 10) == 0:
            el = time.perf_counter() - t0
            print(f"{100 * done // num_prompts:3d}%|{'█' * (10 * done // num_prompts):<10}| {done}/{num_prompts} [{el:05.2f}<00:00, {done / max(el, 1e-9):.2f}it/s]", file=sys.stderr, flush=True)
        return r

    return await asyncio.gather(*(gated() for _ in range(num_prompts)))


def pct(values, p):
    if not values:
        return 0.0
    s = sorted(values)
    k = (len(s) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def main():
    args = args_parser().parse_args()
    base = args.base_url or f"http://{args.host}:{args.port}"
    url = base + args.endpoint
    faults.maybe_flood()
    in_len = args.random_input_len if args.dataset_name == "random" else args.sonnet_input_len
    out_len = args.random_output_len if args.dataset_name == "random" else args.sonnet_output_len
    if args.dataset_name == "sharegpt":
        in_len, out_len = 256, args.sharegpt_output_len or 64
    print(args)
    print("Starting initial single prompt test run...")
    asyncio.run(one_request(url, args.model, in_len, 4))
    print("Initial test run completed. Starting main benchmark run...")
    print(f"Traffic request rate: {args.request_rate}")
    min_seconds = float(os.environ.get("FAKE_VLLM_BENCH_SECONDS", "0"))
    t0 = time.perf_counter()
    workers = max(1, min(args.max_concurrency or 64, args.num_prompts))
    results = asyncio.run(run_all(url, args.model, in_len, out_len, args.num_prompts, workers, not args.disable_tqdm, t0))
    while time.perf_counter() - t0 < min_seconds:
        print(f"waiting for stragglers: {time.perf_counter() - t0:.0f}s", file=sys.stderr, flush=True)
        time.sleep(1)
    duration = time.perf_counter() - t0
    if faults.on("leak-token"):  # a client that echoes its credentials: the runner must mask them, also after a re-attach
        print(f"uploading results with token {os.environ.get('HF_TOKEN', '')}", flush=True)
    ttfts = [r[0] for r in results]
    itls = [x for r in results for x in r[1]]
    tpots = [(r[2] - r[0]) / (r[3] - 1) for r in results if r[3] > 1]
    completed = len(results)
    total_in, total_out = in_len * completed, sum(r[3] for r in results)
    ms = lambda v: v * 1000  # noqa: E731
    m = {
        "completed": completed, "total_input_tokens": total_in, "total_output_tokens": total_out,
        "request_throughput": completed / duration, "output_throughput": total_out / duration,
        "total_token_throughput": (total_in + total_out) / duration,
        "mean_ttft_ms": ms(statistics.mean(ttfts)), "median_ttft_ms": ms(statistics.median(ttfts)), "std_ttft_ms": ms(statistics.pstdev(ttfts)), "p99_ttft_ms": ms(pct(ttfts, 99)),
        "mean_tpot_ms": ms(statistics.mean(tpots or [0])), "median_tpot_ms": ms(statistics.median(tpots or [0])), "std_tpot_ms": ms(statistics.pstdev(tpots or [0])), "p99_tpot_ms": ms(pct(tpots, 99)),
        "mean_itl_ms": ms(statistics.mean(itls or [0])), "median_itl_ms": ms(statistics.median(itls or [0])), "std_itl_ms": ms(statistics.pstdev(itls or [0])), "p99_itl_ms": ms(pct(itls, 99)),
    }
    print("{s:{c}^{n}}".format(s=" Serving Benchmark Result ", n=50, c="="))
    print("{:<40} {:<10}".format("Successful requests:", completed))
    print("{:<40} {:<10.2f}".format("Benchmark duration (s):", duration))
    print("{:<40} {:<10}".format("Total input tokens:", total_in))
    print("{:<40} {:<10}".format("Total generated tokens:", total_out))
    print("{:<40} {:<10.2f}".format("Request throughput (req/s):", m["request_throughput"]))
    print("{:<40} {:<10.2f}".format("Output token throughput (tok/s):", m["output_throughput"]))
    print("{:<40} {:<10.2f}".format("Total Token throughput (tok/s):", m["total_token_throughput"]))
    for key, title, name in (("ttft", "Time to First Token", "TTFT"), ("tpot", "Time per Output Token (excl. 1st token)", "TPOT"), ("itl", "Inter-token Latency", "ITL")):
        print("{s:{c}^{n}}".format(s=title, n=50, c="-"))
        print("{:<40} {:<10.2f}".format(f"Mean {name} (ms):", m[f"mean_{key}_ms"]))
        print("{:<40} {:<10.2f}".format(f"Median {name} (ms):", m[f"median_{key}_ms"]))
        print("{:<40} {:<10.2f}".format(f"P99 {name} (ms):", m[f"p99_{key}_ms"]))
    print("=" * 50)
    if args.save_result:
        now = datetime.now().strftime("%Y%m%d-%H%M%S")
        result = {"date": now, "backend": args.backend, "model_id": args.model, "tokenizer_id": args.tokenizer or args.model,
                  "best_of": args.best_of, "use_beam_search": args.use_beam_search, "num_prompts": args.num_prompts,
                  "request_rate": args.request_rate if args.request_rate != float("inf") else "inf", "duration": duration, **m}
        if args.save_detailed:
            result.update({"input_lens": [in_len] * completed, "output_lens": [r[3] for r in results], "ttfts": ttfts,
                           "itls": [r[1] for r in results], "errors": [""] * completed})
        name = args.result_filename or f"{args.backend}-{result['request_rate']}qps-{args.model.split('/')[-1]}-{now}.json"
        path = os.path.join(args.result_dir, name) if args.result_dir else name
        with open(path, "w") as f:
            json.dump(result, f)


if __name__ == "__main__":
    main()
