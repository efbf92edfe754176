"""Fake OpenAI-compatible vLLM server: /health, /v1/models, /v1/completions (optionally streamed).

Prints vLLM's start-up log lines; fails like real servers when FAKE_VLLM_FAULT asks:
oom (CUDA OOM while profiling), never-ready (hangs before binding), port-bug (vLLM 0.6.x bind
failure, issue #8791), crash-mid (illegal memory access after half of FAKE_VLLM_CRASH_AFTER requests).
"""
import argparse
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

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


class State:
    served = 0
    lock = threading.Lock()


def make_handler(model: str):
    crash_after = int(os.environ.get("FAKE_VLLM_CRASH_AFTER", "20"))
    # What the patch's marker lines say (none in an unpatched image: 1.0).
    # FAKE_VLLM_DECODE_MS: the same, by a name the editor's settings take (a *TOKEN* name reads as a secret there).
    token_ms = float(os.environ.get("FAKE_VLLM_DECODE_MS") or os.environ.get("FAKE_VLLM_TOKEN_MS", "1")) / markers.token_speed()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *a):  # access log in vLLM's format
            log("INFO", "logger.py:37", f'{self.address_string()} - "{self.command} {self.path}" {a[1] if len(a) > 1 else ""}')

        def _json(self, code, obj):
            body = json.dumps(obj).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if self.path == "/health":
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif self.path == "/v1/models":
                self._json(200, {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "vllm", "max_model_len": 4096}]})
            else:
                self._json(404, {"detail": "Not Found"})

        def do_POST(self):
            if self.path != "/v1/completions":
                return self._json(404, {"detail": "Not Found"})
            req = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
            with State.lock:
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
            if not req.get("stream"):
                time.sleep(max_tokens * token_ms / 1000)
                return self._json(200, {"id": f"cmpl-{n}", "object": "text_completion", "created": int(time.time()), "model": model,
                                        "choices": [{"index": 0, "text": " tok" * max_tokens, "finish_reason": "length"}], "usage": usage})
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()

            def chunk(data: bytes):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()

            for i in range(max_tokens):
                time.sleep(token_ms / 1000)
                ev = {"id": f"cmpl-{n}", "object": "text_completion", "created": int(time.time()), "model": model,
                      "choices": [{"index": 0, "text": " tok", "finish_reason": "length" if i == max_tokens - 1 else None}]}
                chunk(b"data: " + json.dumps(ev).encode() + b"\n\n")
            chunk(b"data: [DONE]\n\n")
            chunk(b"")

    return Handler


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
    ThreadingHTTPServer.request_queue_size = 1024  # uvicorn's backlog is large; the default 5 resets bursts
    server = ThreadingHTTPServer((args.host, args.port), make_handler(args.model))
    server.daemon_threads = True
    log("INFO", "launcher.py:19", "Available routes are:")
    for route in ("/health", "/v1/models", "/v1/completions"):
        log("INFO", "launcher.py:27", f"Route: {route}, Methods: {'POST' if 'completions' in route else 'GET'}")
    print(f"INFO:     Started server process [{os.getpid()}]", file=sys.stderr, flush=True)
    print("INFO:     Waiting for application startup.", file=sys.stderr, flush=True)
    print("INFO:     Application startup complete.", file=sys.stderr, flush=True)
    print(f"INFO:     Uvicorn running on http://{args.host}:{args.port} (Press CTRL+C to quit)", file=sys.stderr, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
