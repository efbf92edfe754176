"""Deterministic flood: N MiB split over stdout and stderr, ~1 MiB lines with non-UTF-8 bytes.

The Docker tests run this same file on the host to know the expected sha256 of each stream.
"""
import os
import sys


def block(seed: int) -> bytes:
    # 1 MiB of every byte value except newline, then a newline: long lines, invalid UTF-8.
    b = bytearray(((i * 131 + seed * 17) & 0xFF) for i in range(256))
    b = bytes(b).replace(b"\n", b"\xff")
    line = (b * 4096)[: (1 << 20) - 1] + b"\n"
    return line


def flood(total_mib: int) -> None:
    out, err = block(1), block(2)
    for i in range(total_mib):
        fd, data = (1, out) if i % 2 == 0 else (2, err)
        view = memoryview(b"line %08d " % i + data[12:])
        while view:
            view = view[os.write(fd, view):]


if __name__ == "__main__":
    flood(int(sys.argv[1]) if len(sys.argv) > 1 else int(os.environ.get("FAKE_VLLM_FLOOD_MB", "500")))
