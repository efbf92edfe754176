"""Bench Triage's helper inside the benchmark container (copied in by the runner; stdlib only).

Every phase runs detached with its stdout and stderr redirected, byte for byte, to files under
/bench-triage/logs, and its exit code written when it ends. The runner streams those files with
`follow` from the byte offsets it already has, so a new runner (after a window reload) picks up
exactly where the previous one stopped, and nothing the phase printed is lost.
"""
import fcntl
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request

LOGS = "/bench-triage/logs"
SECRETS = "/bench-triage/secrets"


def phase_env():
    """This process's environment plus the run's secrets (files only root can read; never in the
    container's configuration, so `docker inspect` does not show them)."""
    env = dict(os.environ)
    if os.path.isdir(SECRETS):
        for name in sorted(os.listdir(SECRETS)):
            with open(os.path.join(SECRETS, name), "r", encoding="utf-8", errors="replace") as f:
                env[name] = f.read()
    return env


def paths(phase):
    base = os.path.join(LOGS, phase)
    return base + ".out", base + ".err", base + ".exit", base + ".pid"


def write_atomic(path, text):
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def reap(*_):
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass


FREED = "/.bench-triage-freed"
# How long a run's processes may take to die once killed (a GPU context's teardown) before its
# GPUs are left to the container's death instead.
GIVE_BACK_S = 30


def others_alive(me):
    """Kills every other live process of this container (its pid namespace); returns those seen."""
    seen = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == me:
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        if stat[stat.rindex(")") + 2] in "ZX":  # exited: its files (the GPUs) are closed
            continue
        seen.append(int(d))
        try:
            os.kill(int(d), signal.SIGKILL)
        except OSError:
            pass
    return seen


def give_back(*_):
    """On a swarm's GPU slot, as the runner asks once the run is over: every other process of the
    container killed and gone, the hand-off token written, then the slot's lock given back, so the
    slot's next run takes the GPUs without waiting for this container's removal and death."""
    fd = int(os.environ.pop("BENCH_TRIAGE_LOCK_FD", "-1"))
    token = os.environ.pop("BENCH_TRIAGE_HANDOFF", "")
    if fd < 0 or not token:
        return
    me, deadline = os.getpid(), time.monotonic() + GIVE_BACK_S
    while others_alive(me):
        reap()
        if time.monotonic() > deadline:
            return  # no marker: the lock stays until the container dies, and the runner stops asking
        time.sleep(0.002)
    # Said before the lock goes: its time (and mtime) is never after the next run took the GPUs.
    write_atomic(FREED, "%.6f" % time.time())
    open(token, "w").close()
    fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)


def cmd_idle(_args):
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    # A phase the container launched itself as it took its GPUs is this process's child.
    signal.signal(signal.SIGCHLD, reap)
    if os.environ.get("BENCH_TRIAGE_LOCK_FD"):
        signal.signal(signal.SIGUSR2, give_back)
    reap()
    while True:
        time.sleep(3600)


def cmd_launch(args, claimed=False):
    phase, cwd, argv = args[0], args[1], args[3:]
    out, err, ex, pidf = paths(phase)
    os.makedirs(LOGS, exist_ok=True)
    # Once only per container: a runner re-attaching may launch again a phase already under way,
    # and a cluster's run container launches its first phase itself, its claim made first.
    if not claimed:
        try:
            os.close(os.open(os.path.join(LOGS, phase) + ".launched", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
        except FileExistsError:
            return 0
    with open(out, "wb") as o, open(err, "wb") as e, open(os.devnull, "rb") as i:
        try:
            child = subprocess.Popen(argv, cwd=cwd, stdin=i, stdout=o, stderr=e, start_new_session=True, env=phase_env())
        except OSError as exc:
            e.write(f"bench-triage: cannot start {argv[0]}: {exc}\n".encode())
            e.flush()
            write_atomic(ex, "127")
            return 127
    write_atomic(pidf, str(child.pid))
    code = child.wait()
    write_atomic(ex, str(128 - code if code < 0 else code))
    return 0


def cmd_follow(args):
    phase, offsets = args[0], [int(args[1]), int(args[2])]
    out, err, ex, _ = paths(phase)
    files = [None, None]
    while True:
        done = os.path.exists(ex)
        moved = 0
        for k, (path, fd) in enumerate(((out, 1), (err, 2))):
            if files[k] is None:
                if not os.path.exists(path):
                    continue
                files[k] = open(path, "rb")
                files[k].seek(offsets[k])
            while True:
                data = files[k].read(1 << 20)
                if not data:
                    break
                moved += len(data)
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
        if done and moved == 0:
            return 0
        if moved == 0:
            time.sleep(0.05)


def cmd_status(args):
    out, err, ex, pidf = paths(args[0])
    read = lambda p: open(p).read().strip() if os.path.exists(p) else None  # noqa: E731
    code = read(ex)
    print(json.dumps({"exit": int(code) if code is not None else None, "pid": int(read(pidf) or 0) or None,
                      "stdout": os.path.getsize(out) if os.path.exists(out) else 0, "stderr": os.path.getsize(err) if os.path.exists(err) else 0}))
    return 0


def cmd_stop(args):
    _, _, _, pidf = paths(args[0])
    if not os.path.exists(pidf):
        return 0
    pid = int(open(pidf).read())
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 2.0)):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return 0
        deadline = time.time() + wait
        while time.time() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return 0
            time.sleep(0.1)
    return 0


def cmd_probe(args):
    try:
        with urllib.request.urlopen(args[0], timeout=2) as r:
            return 0 if r.status == 200 else 1
    except Exception:
        return 1


def cmd_result(args):
    d = args[0]
    files = [os.path.join(d, f) for f in os.listdir(d) if f.endswith(".json")] if os.path.isdir(d) else []
    if not files:
        print(f"no result JSON in {d}", file=sys.stderr)
        return 3
    sys.stdout.write(open(max(files, key=os.path.getmtime)).read())
    return 0


def vllm_root():
    spec = importlib.util.find_spec("vllm")  # does not import vllm (which may be what is broken)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("bench-triage: vLLM is not installed in this image (no module named 'vllm')")
    return os.path.dirname(list(spec.submodule_search_locations)[0])


# Paths of a vLLM source tree that an installed package does not have, and why they matter.
NOT_IN_PACKAGE = (
    ("csrc/", "compiled kernels: the change needs a rebuild of vLLM's extensions"),
    ("cmake/", "build configuration: the change needs a rebuild"),
    ("CMakeLists.txt", "build configuration: the change needs a rebuild"),
    ("setup.py", "build configuration: the change needs a rebuild"),
    ("pyproject.toml", "packaging: the change needs a reinstall"),
    ("requirements", "dependencies: the change needs a reinstall"),
    ("benchmarks/", "the benchmark scripts: applying it elsewhere would change the measurement"),
)
# Changes a source tree only runs after rebuilding vLLM's compiled extensions.
NEEDS_REBUILD = ("csrc/", "cmake/", "CMakeLists.txt", "setup.py")
# Files that never run: leaving them out does not change what is measured.
NEVER_RUN = ("tests/", "docs/", "examples/", ".github/", ".buildkite/")


def patch_files(patch):
    """Paths a unified diff touches (b/ side, or a/ for deletions), in order, without duplicates."""
    out = []
    with open(patch, "rb") as f:
        for raw in f:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            path = None
            if line.startswith("diff --git "):
                parts = line.split(" b/", 1)
                path = parts[1] if len(parts) == 2 else None
            elif line.startswith("+++ ") or line.startswith("--- "):
                p = line[4:].split("\t", 1)[0]
                if p != "/dev/null":
                    path = p[2:] if p[:2] in ("a/", "b/") else p
            if path and path not in out:
                out.append(path)
    return out


def cmd_apply_patch(args):
    """Applies the whole agent patch, or refuses naming the file that cannot be applied."""
    patch = args[0]
    root = vllm_root()
    source_tree = any(os.path.exists(os.path.join(root, f)) for f in ("setup.py", "pyproject.toml", ".git"))
    files = patch_files(patch)
    where = "source tree" if source_tree else "installed package: the files live under vllm/"
    print(f"Applying agent patch in {root} ({where}); {len(files)} file(s): {', '.join(files)}", flush=True)
    excludes = []
    for f in files:
        if f.startswith("vllm/"):
            continue
        if source_tree and not f.startswith(NEEDS_REBUILD):
            continue
        if not source_tree and (f.startswith(NEVER_RUN) or f.endswith((".md", ".rst"))):
            excludes.append(f)
            print(f"not part of the installed package, never run, left out: {f}", flush=True)
            continue
        why = next((w for prefix, w in NOT_IN_PACKAGE if f.startswith(prefix)), "not part of the installed vllm package")
        target = "this image's vLLM source tree without a rebuild" if source_tree else "an installed vLLM"
        print(f"AGENT_PATCH_FAILED: {f} cannot be applied to {target} ({why}); the run is not measured "
              "because only part of the agent's change would run", file=sys.stderr, flush=True)
        return 1
    scope = [f"--exclude={f}" for f in excludes]
    check = subprocess.run(["git", "apply", "--check", "--verbose", *scope, patch], cwd=root)
    if check.returncode != 0:
        print("AGENT_PATCH_FAILED: git apply --check rejected the patch (hunks above)", file=sys.stderr, flush=True)
        return 1
    done = subprocess.run(["git", "apply", "--verbose", *scope, patch], cwd=root)
    print("AGENT_PATCH_APPLIED" if done.returncode == 0 else "AGENT_PATCH_FAILED", flush=True)
    return done.returncode


def cmd_copy_into_vllm(args):
    src, rel = args
    dest = os.path.join(vllm_root(), rel)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    shutil.copyfile(src, dest)
    print(f"bench-triage recipe: installed {dest}")
    return 0


def cmd_provide_benchmarks(args):
    dest = args[0]
    if os.path.isdir(dest):
        return 0
    for cand in ("/vllm-workspace/benchmarks", "/opt/vllm_baseline/benchmarks", "/opt/vllm-benchmarks/benchmarks", "/opt/vllm_bench/benchmarks"):
        if os.path.isdir(cand):
            shutil.copytree(cand, dest)
            print(f"bench-triage: benchmark scripts taken from the image ({cand})")
            return 0
    print("bench-triage: no vLLM checkout configured and the image has no benchmarks/ folder", file=sys.stderr)
    return 2


def cmd_takes_flag(args):
    """Exit 0 when the script defines the flag (its argparse source names it), else 1."""
    path, flag = args[0], args[1]
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read(4 << 20)
    except OSError:
        return 1
    return 0 if ('"%s"' % flag) in text or ("'%s'" % flag) in text else 1


def cmd_secret(args):
    """Prints one secret's value, for a runner that re-attaches and must mask it."""
    path = os.path.join(SECRETS, os.path.basename(args[0]))
    if not os.path.isfile(path):
        return 4
    with open(path, "rb") as f:
        sys.stdout.buffer.write(f.read())
    return 0


COMMANDS = {"idle": cmd_idle, "launch": cmd_launch, "launch-claimed": lambda a: cmd_launch(a, claimed=True), "follow": cmd_follow, "status": cmd_status, "stop": cmd_stop, "probe": cmd_probe,
            "result": cmd_result, "apply-patch": cmd_apply_patch, "copy-into-vllm": cmd_copy_into_vllm, "provide-benchmarks": cmd_provide_benchmarks, "secret": cmd_secret,
            "takes-flag": cmd_takes_flag}

if __name__ == "__main__":
    sys.exit(COMMANDS[sys.argv[1]](sys.argv[2:]))
