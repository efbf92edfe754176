"""vLLM's log line format: `INFO 11-22 10:00:00 api_server.py:123] message`."""
import sys
import time


def log(level: str, where: str, msg: str, stream=None) -> None:
    stamp = time.strftime("%m-%d %H:%M:%S")
    print(f"{level} {stamp} {where}] {msg}", file=stream or sys.stdout, flush=True)
