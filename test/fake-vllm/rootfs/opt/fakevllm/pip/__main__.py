"""Offline pip (there is no index to reach in the tests). `install SPEC…` records what a recipe
installs; `install -e DIR` builds DIR the way pip's build backend does, by running its setup.py,
and prints pip's own lines (its error block when the build fails); `uninstall` has nothing to remove."""
import os
import subprocess
import sys

args = sys.argv[1:]
cmd = args[0] if args else ""

if cmd == "uninstall":
    for name in [a for a in args[1:] if not a.startswith("-")]:
        print(f"WARNING: Skipping {name} as it is not installed.")
    sys.exit(0)

if cmd != "install":
    print(f"ERROR: fake pip supports only 'install' and 'uninstall' (got {' '.join(args)})", file=sys.stderr)
    sys.exit(1)

rest = args[1:]
editable = None
if "-e" in rest:
    i = rest.index("-e")
    editable = rest[i + 1] if i + 1 < len(rest) else None
    rest = rest[:i] + rest[i + 2 :]

if editable is not None:
    src = os.path.abspath(editable)
    print(f"Obtaining file://{src}", flush=True)
    step = "Building editable for vllm (pyproject.toml)"
    for what in ("Checking if build backend supports build_editable", "Preparing editable metadata (pyproject.toml)"):
        print(f"  {what}: started\n  {what}: finished with status 'done'", flush=True)
    print("Building wheels for collected packages: vllm", flush=True)
    print(f"  {step}: started", flush=True)
    setup = os.path.join(src, "setup.py")
    proc = subprocess.run([sys.executable, setup, "build_ext"], cwd=src, capture_output=True, text=True) if os.path.exists(setup) else None
    if proc is not None and proc.returncode != 0:
        out = (proc.stdout + proc.stderr).splitlines()
        print(f"  {step}: finished with status 'error'")
        print("  error: subprocess-exited-with-error\n")
        print(f"  \u00d7 {step} did not run successfully.\n  \u2502 exit code: {proc.returncode}\n  \u2570\u2500> [{len(out)} lines of output]")
        for line in out:
            print(f"      {line}")
        print("      [end of output]\n")
        print("  note: This error originates from a subprocess, and is likely not a problem with pip.")
        print("  ERROR: Failed building editable for vllm")
        print("Failed to build vllm")
        print("ERROR: Could not build wheels for vllm, which is required to install pyproject.toml-based projects", flush=True)
        sys.exit(1)
    print(f"  {step}: finished with status 'done'")
    print("Successfully built vllm\nInstalling collected packages: vllm\nSuccessfully installed vllm-0.0.0+editable", flush=True)
    with open("/opt/fakevllm/pip-installed.txt", "a") as f:
        f.write(f"-e {src}\n")
    sys.exit(0)

specs = [a for a in rest if not a.startswith("-")]
with open("/opt/fakevllm/pip-installed.txt", "a") as f:
    for s in specs:
        f.write(s + "\n")
print("Successfully installed " + " ".join(specs))
