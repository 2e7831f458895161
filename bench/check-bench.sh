#!/usr/bin/env bash
# Benchmark of `flowspec check` against the embedded mock backend, next to its floors:
#   1. full check of flows/ (wall time, requests/s, time per token case), release build;
#   2. plain loopback HTTP load on the same mock server code (wrk against `flowspec mock`'s
#      provider JWKS endpoint), the floor for the HTTP part;
#   3. OpenSSL's own RS256 sign rate (`openssl speed -seconds 3 rsa2048`), the floor for minting.
# Prints a Markdown block to paste into docs/benchmarks.md ("check" section).
# Usage: bench/check-bench.sh [runs=3]        (FLOWSPEC=path/to/flowspec to skip the build)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"; [ -n "${mock_pid:-}" ] && kill "$mock_pid" 2>/dev/null || true' EXIT

command -v wrk >/dev/null || { echo "installing wrk (Debian)…" >&2; apt-get install -y wrk >/dev/null; }

# FLOWSPEC=path/to/flowspec uses that binary; otherwise a release build in .build/.
if [ -n "${FLOWSPEC:-}" ]; then
  bin=$FLOWSPEC
else
  swift build -c release --product flowspec >&2
  bin=".build/release/flowspec"
fi

echo "## check (measured $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m))"
echo
echo '```'
echo "\$ bench/check-bench.sh $runs"
best=""
for i in $(seq "$runs"); do
  start=$(date +%s.%N)
  "$bin" check flows/ --concurrency 8 --report "json:$out/check.json" > "$out/console.txt"
  end=$(date +%s.%N)
  wall=$(python3 -c "print(f'{$end - $start:.2f}')")
  line=$(grep -E 'requests to the backend' "$out/console.txt")
  echo "run $i: wall ${wall}s; $line"
  if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if $wall < $best else 1)"; then best=$wall; cp "$out/check.json" "$out/best.json"; fi
done
python3 - "$out/best.json" <<'PY'
import json, sys, statistics
r = json.load(open(sys.argv[1]))
cases = [x["durationMS"] for x in r["results"] if x["kind"] == "token-case"]
scen = [x["durationMS"] for x in r["results"] if x["kind"] == "scenario"]
s = r["summary"]
print(f"items: {s['total']} ({len(cases)} token cases, {len(scen)} scenarios): {s['pass']} pass, {s['fail']} fail, {s['notExecutable']} not-executable, {s['info']} info")
print(f"time per token case (each from a fresh sign-in, 8 at a time): median {statistics.median(cases):.0f} ms, p90 {sorted(cases)[int(len(cases)*0.9)]} ms")
print(f"check duration in report: {r['durationMS']} ms")
PY

# Start-up of a one-flow check, next to `lint` of the same flow (best of $runs, wall):
# a flow without a provider (no provider, no key) and one Apple flow (its keys on first use).
echo
echo "one flow, wall time (best of $runs): check next to lint of the same file"
for spec in "flows/password-login.md" "flows/apple-sign-in-native.md --case path-1" "flows/apple-sign-in-native.md"; do
  read -r flow extra <<< "$spec"
  best_check=""; best_lint=""
  for i in $(seq "$runs"); do
    s=$(date +%s.%N); "$bin" lint "$flow" > /dev/null; e=$(date +%s.%N)
    l=$(python3 -c "print(f'{$e - $s:.3f}')")
    # shellcheck disable=SC2086
    s=$(date +%s.%N); "$bin" check "$flow" $extra > "$out/one.txt"; e=$(date +%s.%N)
    c=$(python3 -c "print(f'{$e - $s:.3f}')")
    if [ -z "$best_check" ] || python3 -c "import sys; sys.exit(0 if $c < $best_check else 1)"; then best_check=$c; fi
    if [ -z "$best_lint" ] || python3 -c "import sys; sys.exit(0 if $l < $best_lint else 1)"; then best_lint=$l; fi
  done
  items=$(grep -E '^Total:' "$out/one.txt" | sed 's/^Total: //')
  echo "  check $spec: ${best_check}s ($items); lint: ${best_lint}s"
done

# Floor 1: plain loopback HTTP on the same mock HTTP server (the provider's JWKS endpoint).
port=$((20000 + RANDOM % 20000))
"$bin" mock --port "$port" > "$out/mock.txt" 2>&1 &
mock_pid=$!
up=""
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/auth/keys" >/dev/null 2>&1 && { up=1; break; }; sleep 0.1; done
echo
if [ -n "$up" ]; then
  echo "\$ wrk -t2 -c16 -d5s http://127.0.0.1:$port/auth/keys   # same mock HTTP server, no checker"
  wrk -t2 -c16 -d5s "http://127.0.0.1:$port/auth/keys" | grep -E 'Requests/sec|Latency'
else
  echo "(flowspec mock did not serve on :$port: $(head -c 200 "$out/mock.txt"))"
fi
kill "$mock_pid" 2>/dev/null || true; mock_pid=""

# Floor 2: OpenSSL's RS256 (RSA-2048 sign) rate.
echo
echo "\$ openssl speed -seconds 3 rsa2048"
openssl speed -seconds 3 rsa2048 2>/dev/null | grep -E '^rsa 2048|sign/s'
echo '```'
