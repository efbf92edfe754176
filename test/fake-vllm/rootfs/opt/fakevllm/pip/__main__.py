"""Offline pip: records what a recipe installs (there is no index to reach in the tests)."""
import sys

args = sys.argv[1:]
if not args or args[0] != "install":
    print(f"ERROR: fake pip supports only 'install' (got {' '.join(args)})", file=sys.stderr)
    sys.exit(1)
specs = [a for a in args[1:] if not a.startswith("-")]
with open("/opt/fakevllm/pip-installed.txt", "a") as f:
    for s in specs:
        f.write(s + "\n")
print("Successfully installed " + " ".join(specs))
