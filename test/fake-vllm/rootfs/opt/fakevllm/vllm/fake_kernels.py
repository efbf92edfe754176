"""Kernels of the fake vLLM: a file with room for a patch of several hunks (see fakevllm_markers)."""


def rms_norm(x, eps=1e-6):
    # The first kernel.
    s = sum(v * v for v in x) / max(1, len(x))
    return [v / (s + eps) ** 0.5 for v in x]


def silu(x):
    # The activation.
    return [v / (1 + 2.718281828 ** -v) for v in x]


def gelu(x):
    # Another activation.
    return [0.5 * v * (1 + (v / (1 + abs(v)))) for v in x]


def rotary(x, pos):
    # Positions.
    return [v * (1 + pos * 1e-4) for v in x]


def softmax(xs):
    # Normalised weights.
    m = max(xs)
    e = [2.718281828 ** (x - m) for x in xs]
    t = sum(e)
    return [v / t for v in e]


def attention(q, k, v):
    # Scores and weights.
    scores = [sum(a * b for a, b in zip(q, kk)) for kk in k]
    weights = softmax(scores)
    out = [0.0] * len(v[0])
    for w, row in zip(weights, v):
        for i, x in enumerate(row):
            out[i] += w * x
    return out


def sample(logits):
    # Greedy.
    best = max(range(len(logits)), key=lambda i: logits[i])
    return best


def top_k(logits, k):
    # The k best.
    return sorted(range(len(logits)), key=lambda i: -logits[i])[:k]


def detokenize(ids):
    # Text.
    return " ".join(f"tok{i}" for i in ids)
