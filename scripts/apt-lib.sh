# Sourced by the set-up scripts: apt that waits for another apt or dpkg instead of failing on its lock.
# apt-get prints "Could not get lock … held by process N" and exits 100 while another holds it; the
# wait is said once with the holder, and gives up after BENCH_TRIAGE_APT_WAIT seconds (default 900).
apt_retry() {
  local waited=0 limit="${BENCH_TRIAGE_APT_WAIT:-900}" out rc said="" holder
  while :; do
    out="$(mktemp)"
    rc=0
    "$@" -o DPkg::Lock::Timeout=5 2>"$out" || rc=$?
    grep -v 'Could not get lock\|Unable to acquire the dpkg frontend lock\|Unable to lock directory\|^E: Is another process using it' "$out" >&2 || true
    if [ "$rc" -ne 0 ] && grep -q 'Could not get lock\|Unable to acquire the dpkg frontend lock\|Unable to lock directory' "$out" && [ "$waited" -lt "$limit" ]; then
      if [ -z "$said" ]; then
        # Who holds it: apt names the process only without -qq; the kernel's lock table always does.
        holder="$(lslocks -n -o COMMAND,PID,PATH 2>/dev/null | awk '$3 ~ /^\/var\/lib\/(dpkg|apt)\// {print "held by " $1 ", pid " $2; exit}')"
        echo "waiting for the apt lock (${holder:-held by another apt or dpkg}); up to ${limit} s" >&2
        said=1
      fi
      rm -f "$out"
      sleep 5
      waited=$((waited + 5))
      continue
    fi
    rm -f "$out"
    return "$rc"
  done
}
