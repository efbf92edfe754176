"""Marker lines a patch can add to the fake vLLM's own source, so that a test knows what each hunk does.

`# fake-vllm: speedup=1.25` makes every token that much faster (the factors of all markers multiply);
`# fake-vllm: provides=NAME` and `# fake-vllm: needs=NAME`: a marker that needs a name no marker
provides fails at import, as a hunk that uses a function another hunk adds does.
"""
import os
import re

import vllm

MARK = re.compile(r"#\s*fake-vllm:\s*(speedup|needs|provides)=([A-Za-z0-9_.]+)")


def scan():
    root = os.path.dirname(vllm.__file__)
    speed, needs, provides = 1.0, [], set()
    for d, _, files in os.walk(root):
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            path = os.path.join(d, f)
            with open(path, encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    m = MARK.search(line)
                    if not m:
                        continue
                    kind, value = m.groups()
                    if kind == "speedup":
                        speed *= float(value)
                    elif kind == "needs":
                        needs.append((value, path))
                    else:
                        provides.add(value)
    return speed, needs, provides


def token_speed():
    """The product of the speed-ups; an ImportError naming what a marker needs and nothing provides."""
    speed, needs, provides = scan()
    for name, path in needs:
        if name not in provides:
            raise ImportError(f"cannot import name '{name}' from 'vllm.fake_kernels' ({path})")
    return speed
