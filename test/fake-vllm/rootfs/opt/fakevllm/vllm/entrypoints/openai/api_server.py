"""Fake OpenAI-compatible vLLM server: /health, /v1/models, /v1/completions (optionally streamed).

Prints vLLM's start-up log lines; fails like real servers when FAKE_VLLM_FAULT asks:
oom (CUDA OOM while profiling), never-ready (hangs before binding), port-bug (vLLM 0.6.x bind
failure, issue #8791), crash-mid (illegal memory access after half of FAKE_VLLM_CRASH_AFTER requests).
"""
import argparse
import asyncio
import json
import os
import sys
import time

import fakevllm_faults as faults
import fakevllm_markers as markers
import vllm
from vllm.logger import log

SRC = "api_server.py:585"


def parse_args():
    p = argparse.ArgumentParser("vllm.entrypoints.openai.api_server")
    p.add_argument("--model", default="facebook/opt-125m")
    p.add_argument("--host", default="0.0.0.0")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--tensor-parallel-size", "-tp", type=int, default=1)
    p.add_argument("--max-model-len", type=int, default=4096)
    args, unknown = p.parse_known_args()
    return args, unknown


REASONS = {200: "OK", 404: "Not Found", 400: "Bad Request"}


class State:
    served = 0


def make_handler(model: str):
    """The connection handler. One asyncio loop, as uvicorn's: 64 streams cost the host little CPU,
    so a patch's speed, not the host's load, decides the throughput (threads spent more CPU than the
    benchmark's 2 s on a 2-core host, and a busy host moved the figures by 10 %)."""
    crash_after = int(os.environ.get("FAKE_VLLM_CRASH_AFTER", "20"))
    # What the patch's marker lines say (none in an unpatched image: 1.0).
    # FAKE_VLLM_DECODE_MS: the same, by a name the editor's settings take (a *TOKEN* name reads as a secret there).
    token_s = float(os.environ.get("FAKE_VLLM_DECODE_MS") or os.environ.get("FAKE_VLLM_TOKEN_MS", "1")) / markers.token_speed() / 1000

    def access(peer, method, path, code):  # access log in vLLM's format
        log("INFO", "logger.py:37", f'{peer} - "{method} {path}" {code}')

    async def respond(writer, code, body=b"", ctype="application/json"):
        head = f"HTTP/1.1 {code} {REASONS.get(code, '')}\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n\r\n"
        writer.write(head.encode() + body)
        await writer.drain()

    async def completion(writer, req):
        State.served += 1
        n = State.served
        if faults.on("crash-mid") and n > crash_after:
            print("Traceback (most recent call last):\n  File \"/usr/local/lib/python3.10/dist-packages/vllm/worker/model_runner.py\", line 1654, in execute_model\n"
                  "    hidden_or_intermediate_states = model_executable(\nRuntimeError: CUDA error: an illegal memory access was encountered\n"
                  "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
                  file=sys.stderr, flush=True)
            os._exit(1)
        max_tokens = int(req.get("max_tokens", 16))
        prompt = req.get("prompt", "")
        usage = {"prompt_tokens": max(1, len(str(prompt).split())), "completion_tokens": max_tokens}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        created = int(time.time())
        if not req.get("stream"):
            await asyncio.sleep(max_tokens * token_s)
            body = {"id": f"cmpl-{n}", "object": "text_completion", "created": created, "model": model,
                    "choices": [{"index": 0, "text": " tok" * max_tokens, "finish_reason": "length"}], "usage": usage}
            return await respond(writer, 200, json.dumps(body).encode())
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")

        def chunk(data: bytes) -> bytes:
            return b"%x\r\n%s\r\n" % (len(data), data)

        def event(last: bool) -> bytes:
            ev = {"id": f"cmpl-{n}", "object": "text_completion", "created": created, "model": model,
                  "choices": [{"index": 0, "text": " tok", "finish_reason": "length" if last else None}]}
            return chunk(b"data: " + json.dumps(ev).encode() + b"\n\n")

        middle = event(False)
        loop = asyncio.get_running_loop()
        # Each token is due at a fixed time from the request's start, as a GPU's decode steps are:
        # a late wake-up (a loaded host) is caught up on the next tokens instead of adding up.
        start = loop.time()
        for i in range(max_tokens):
            await asyncio.sleep(max(0.0, start + (i + 1) * token_s - loop.time()))
            writer.write(event(True) if i == max_tokens - 1 else middle)
            await writer.drain()
        writer.write(chunk(b"data: [DONE]\n\n") + chunk(b""))
        await writer.drain()

    async def handle(reader, writer):
        peer = (writer.get_extra_info("peername") or ("-",))[0]
        try:
            while True:  # keep-alive: requests one after another on the connection
                line = await reader.readline()
                if not line.strip():
                    return
                method, path = (line.decode("latin-1").split() + ["", ""])[:2]
                headers = {}
                while True:
                    h = await reader.readline()
                    if h in (b"\r\n", b"\n", b""):
                        break
                    k, _, v = h.decode("latin-1").partition(":")
                    headers[k.strip().lower()] = v.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0") or 0))
                if method == "GET" and path == "/health":
                    code = 200
                    await respond(writer, 200)
                elif method == "GET" and path == "/v1/models":
                    code = 200
                    await respond(writer, 200, json.dumps({"object": "list", "data": [{"id": model, "object": "model", "owned_by": "vllm", "max_model_len": 4096}]}).encode())
                elif method == "POST" and path == "/v1/completions":
                    code = 200
                    await completion(writer, json.loads(body or b"{}"))
                else:
                    code = 404
                    await respond(writer, 404, json.dumps({"detail": "Not Found"}).encode())
                access(peer, method, path, code)
                if headers.get("connection", "").lower() == "close":
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client went away
        finally:
            writer.close()

    return handle


def main():
    args, unknown = parse_args()
    log("INFO", SRC, f"vLLM API server version {vllm.__version__}")
    log("INFO", "api_server.py:586", f"args: Namespace(model='{args.model}', host='{args.host}', port={args.port}, tensor_parallel_size={args.tensor_parallel_size}, extra={unknown})")
    log("INFO", "config.py:1020", "Defaulting to use mp for distributed inference")
    if faults.on("leak-token"):  # what a chatty hub client does: the runner must mask it in stored logs
        log("INFO", "hub.py:88", f"Downloading {args.model} with token {os.environ.get('HF_TOKEN', '')}")
    log("INFO", "llm_engine.py:237", f"Initializing an LLM engine (v{vllm.__version__}) with config: model='{args.model}', dtype=torch.bfloat16, max_seq_len={args.max_model_len}, tensor_parallel_size={args.tensor_parallel_size}, seed=0")
    log("INFO", "model_runner.py:1056", f"Starting to load model {args.model}...")
    speed = markers.token_speed()  # a hunk that needs another fails here, as an import would
    if speed != 1.0:
        log("INFO", "fake_kernels.py:1", f"patched kernels: tokens x{speed:.3f} as fast")
    time.sleep(float(os.environ.get("FAKE_VLLM_LOAD_S", "0.5")))
    log("INFO", "model_runner.py:1067", "Loading model weights took 0.2389 GB")
    if faults.on("server-flood"):  # a server that floods its logs just before it dies: the runner must keep every byte
        import fakevllm_flood
        fakevllm_flood.flood(int(os.environ.get("FAKE_VLLM_FLOOD_MB", "500")))
    if faults.on("oom"):
        import torch
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.23 GiB is free. "
                                     "Including non-PyTorch memory, this process has 77.86 GiB memory in use.")
    log("INFO", "gpu_executor.py:122", "# GPU blocks: 27215, # CPU blocks: 7281")
    if faults.on("never-ready"):
        log("INFO", "model_runner.py:1390", "Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static.")
        while True:
            time.sleep(3600)
    if faults.on("port-bug"):
        raise OSError(98, f"error while attempting to bind on address ('{args.host}', {args.port}): address already in use")
    handler = make_handler(args.model)
    asyncio.run(serve(args, handler))


async def serve(args, handler):
    # uvicorn's backlog is large; a small one resets bursts.
    server = await asyncio.start_server(handler, args.host, args.port, backlog=1024)
    log("INFO", "launcher.py:19", "Available routes are:")
    for route in ("/health", "/v1/models", "/v1/completions"):
        log("INFO", "launcher.py:27", f"Route: {route}, Methods: {'POST' if 'completions' in route else 'GET'}")
    print(f"INFO:     Started server process [{os.getpid()}]", file=sys.stderr, flush=True)
    print("INFO:     Waiting for application startup.", file=sys.stderr, flush=True)
    print("INFO:     Application startup complete.", file=sys.stderr, flush=True)
    print(f"INFO:     Uvicorn running on http://{args.host}:{args.port} (Press CTRL+C to quit)", file=sys.stderr, flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    main()
