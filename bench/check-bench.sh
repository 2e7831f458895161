#!/usr/bin/env bash
# Benchmark of `flowspec check` against the embedded mock backend, each figure next to an anchor
# measured in the same run (docs/benchmarks.md, "check"):
#   1. full check of flows/: wall time, backend requests/s, time per token case; then the same
#      with 1, one per core, one more than the cores (the default) and two per core items at a
#      time (what `--concurrency` trades);
#   2. start-up: one-flow checks next to `lint` of the same file;
#   3. shards: `--shard i/n` in n processes at once + `--merge`, n = 1, 2, 4 — wall time, and the
#      merged verdicts compared with the unsharded run's;
#   4. memory: peak RSS and anonymous memory of a check of flows/ and of 10, 30 and 100 copies of it;
#   5. instructions (callgrind, stable whatever the machine's load): per item of one flow's check
#      and per flow built (`flowspec build`), next to one RS256 signature by `openssl dgst`;
#   6. anchors: wrk against the same mock HTTP server, `openssl speed rsa2048`, RSA-2048 key
#      generation with two and three primes (`openssl genpkey`: CPU; and, in full mode, the
#      instructions of three 3-prime keys next to those of the keys flowspec made in step 5:
#      OpenSSL makes at most 3 primes for RSA-2048, flowspec's provider keys have 4).
# It reports; it never fails on a time.
#
#   bench/check-bench.sh [runs=3]   everything (a few minutes)
#   bench/check-bench.sh --ci       the small set for CI: instructions and wall times of 5
#   FLOWSPEC=path/to/flowspec ...    use that binary (otherwise a release build in .build/)
set -euo pipefail
cd "$(dirname "$0")/.."
mode=full
if [ "${1:-}" = "--ci" ]; then mode=ci; shift; fi
runs=${1:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"; [ -n "${mock_pid:-}" ] && kill "$mock_pid" 2>/dev/null || true' EXIT

need() { command -v "$1" >/dev/null || { echo "installing $2 (Debian)…" >&2; apt-get install -y "$2" >/dev/null; }; }
need wrk wrk; need valgrind valgrind; [ -x /usr/bin/time ] || need time time

if [ -n "${FLOWSPEC:-}" ]; then
  bin=$FLOWSPEC
else
  swift build -c release --static-swift-stdlib --product flowspec >&2
  bin=".build/release/flowspec"
fi
secs() { python3 -c "import sys; print(f'{(int(sys.argv[2]) - int(sys.argv[1])) / 1e9:.3f}')" "$1" "$2"; }
now() { date +%s%N; }

# verdicts JSON: "id verdict" lines of a report, in report order.
verdicts() { python3 -c "import json,sys; [print(r['id'], r['verdict']) for r in json.load(open(sys.argv[1]))['results']]" "$1"; }

. bench/valgrind/callgrind.sh
callgrind_setup "$out" "$bin"

echo "## check (measured $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m), $mode)"
echo
echo '```'
echo "\$ bench/check-bench.sh $([ "$mode" = ci ] && echo --ci) $runs"

# 5. Work per item and per flow, first: instructions (callgrind) when valgrind can run the binary,
# and CPU time (user + system, from GNU time), which a busy machine disturbs far less than wall
# time.
cpu() { /usr/bin/time -f "%U %S" -o "$out/cpu" "$@" > /dev/null 2>&1 || true; python3 -c "import sys; u, s = open(sys.argv[1]).read().split()[-2:]; print(f'{float(u) + float(s):.2f}')" "$out/cpu"; }
flow=flows/apple-sign-in-native.md
"$bin" check "$flow" --report "json:$out/flow.json" > /dev/null || true
items=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['results']))" "$out/flow.json")
nflows=$(ls flows/*.md | wc -l)
cpu_base=$(cpu "$bin" check "$flow" --case path-1); cpu_whole=$(cpu "$bin" check "$flow")
rm -rf "$out/site"; cpu_build=$(cpu "$bin" build flows/ --out "$out/site")
openssl genrsa -out "$out/key.pem" 2048 2>/dev/null
# Key generation, the anchor of start-up: CPU of 10 RSA-2048 keys with two primes (the usual key)
# and with three (what the mock providers make; docs/check.md, "Keys").
keygen() { cpu bash -c "for i in \$(seq 10); do openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -pkeyopt rsa_keygen_primes:$1 -out /dev/null; done"; }
keygen2=$(keygen 2); keygen3=$(keygen 3)
echo "RSA-2048 key generation, CPU per key (openssl genpkey, 10 keys): two primes $(python3 -c "print(f'{$keygen2 * 100:.0f}')") ms, three primes $(python3 -c "print(f'{$keygen3 * 100:.0f}')") ms"
cpu_sign=$(openssl speed -seconds 1 rsa2048 2>/dev/null | awk '/^rsa 2048/ {sub("s$", "", $4); print $4}')
base=$(instructions base "$vg_bin" check "$flow" --case path-1 --timeout 60)
if [ "${base:-0}" -gt 0 ] 2>/dev/null; then
  whole=$(instructions whole "$vg_bin" check "$flow" --timeout 60)
  rm -rf "$out/site"; build=$(instructions build "$vg_bin" build flows/ --out "$out/site")
else
  whole=0; build=0; base=0
fi
# The instruction anchor: RS256 signatures by OpenSSL through Python's `cryptography`, 21 in one
# process less 1 (`openssl dgst` signs one file per process; the difference leaves start-up out).
cat > "$out/sign.py" <<'PY'
import sys
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding
key = serialization.load_pem_private_key(open(sys.argv[1], "rb").read(), None)
for i in range(int(sys.argv[2])):
    key.sign(b"%d" % i, padding.PKCS1v15(), hashes.SHA256())
PY
python=$(python3 -c "import sys, cryptography; print(sys.executable)" 2>/dev/null || true)
if [ -n "$python" ]; then
  sign1=$(instructions sign1 "$python" "$out/sign.py" "$out/key.pem" 1)
  sign21=$(instructions sign21 "$python" "$out/sign.py" "$out/key.pem" 21)
else
  sign1=0; sign21=0
fi
python3 - "$base" "$whole" "$items" "$build" "$nflows" "$sign1" "$sign21" "$cpu_base" "$cpu_whole" "$cpu_build" "$cpu_sign" <<'PY'
import sys
base, whole, items, build, nflows, s1, s21 = map(int, sys.argv[1:8])
cb, cw, cbuild, csign = map(float, sys.argv[8:12])
sign_ms = max(csign * 1000, 1e-6)
print(f"CPU (user + system), RSA key generation included:")
print(f"  per item of `check flows/apple-sign-in-native.md` ({items} items): {(cw - cb) / (items - 1) * 1000:.1f} ms = {(cw - cb) / (items - 1) * 1000 / sign_ms:.0f} RS256 signatures")
print(f"  start-up + 1 scenario (`--case path-1`): {cb:.2f} s; the whole flow: {cw:.2f} s")
print(f"  per flow of `build flows/` ({nflows} flows): {cbuild / nflows * 1000:.1f} ms")
print(f"  anchor: one RS256 signature (`openssl speed -seconds 1 rsa2048`): {sign_ms:.2f} ms")
sign = (s21 - s1) / 20 if s21 > s1 else 0
if base > 0 and sign > 0:
    print(f"instructions (callgrind, RSA and EC key generation left out):")
    print(f"  per item: {(whole - base) / (items - 1) / 1e6:.1f} M = {(whole - base) / (items - 1) / sign:.0f} RS256 signatures")
    print(f"  per flow built: {build / nflows / 1e6:.1f} M; one RS256 signature: {sign / 1e6:.2f} M")
else:
    print("instructions: callgrind could not run flowspec here (see its log), CPU time above instead"
          + (f"; one RS256 signature: {sign / 1e6:.2f} M instructions" if sign > 0 else ""))
PY
# Key generation: the keys that check made (`PrimeSearch`, 4 primes, docs/check.md "Keys") next
# to OpenSSL's own 3-prime generation (its most for RSA-2048) (`openssl genpkey`, 3 keys, their prime search differs every
# run; full mode only: a few seconds each under valgrind).
if [ "${whole:-0}" -gt 0 ] 2>/dev/null; then
  read -r nkeys keyinstr < <(cg_keygen "$out/cg.whole") || true
  line="RSA-2048 key generation, instructions per key: flowspec $(python3 -c "print(f'{$keyinstr / max($nkeys, 1) / 1e6:.0f}')") M (4 primes, $nkeys keys of the check above)"
  if [ "$mode" = full ]; then
    gen=0
    for i in 1 2 3; do
      SWIFT_BACKTRACE=enable=no valgrind --tool=callgrind --callgrind-out-file="$out/cg.genpkey$i" openssl genpkey -algorithm RSA \
        -pkeyopt rsa_keygen_bits:2048 -pkeyopt rsa_keygen_primes:3 -out /dev/null >/dev/null 2>&1 || true
      n=$(callgrind_annotate --inclusive=yes --threshold=100 "$out/cg.genpkey$i" 2>/dev/null | awk '/EVP_PKEY_generate/ && !n {gsub(",", "", $1); n = $1} END {print n + 0}' || true)
      gen=$((gen + ${n:-0}))
    done
    line="$line; OpenSSL (openssl genpkey, 3 primes, 3 keys) $(python3 -c "print(f'{$gen / 3 / 1e6:.0f}')") M"
  fi
  echo "$line"
fi

# 1. The whole of flows/.
best=""
for i in $(seq "$runs"); do
  start=$(now)
  /usr/bin/time -f "%M" -o "$out/rss" "$bin" check flows/ --report "json:$out/check.json" > "$out/console.txt" || true
  wall=$(secs "$start" "$(now)")
  echo "run $i: wall ${wall}s, peak RSS $(( $(tail -1 "$out/rss") / 1024 )) MiB; $(grep -E 'requests to the backend' "$out/console.txt")"
  if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if $wall < $best else 1)"; then best=$wall; cp "$out/check.json" "$out/best.json"; fi
done
python3 - "$out/best.json" "the default, cores + 1: $(( $(nproc) + 1 ))" <<'PY'
import json, sys, statistics
r = json.load(open(sys.argv[1]))
cases = [x["durationMS"] for x in r["results"] if x["kind"] == "token-case"]
scen = [x["durationMS"] for x in r["results"] if x["kind"] == "scenario"]
s = r["summary"]
print(f"items: {s['total']} ({len(cases)} token cases, {len(scen)} scenarios): {s['pass']} pass, {s['fail']} fail, {s['notExecutable']} not-executable, {s['info']} info")
print(f"time per token case (each from a fresh sign-in, {sys.argv[2]} at a time): median {statistics.median(cases):.0f} ms, p90 {sorted(cases)[int(len(cases)*0.9)]} ms")
print(f"check duration in report: {r['durationMS']} ms")
PY

# 1b. Items at a time: every party of an embedded run is in this process, so many more items
# than cores only make each wait for the others; one run each.
if [ "$mode" = full ]; then
  for c in 1 "$(nproc)" $(( $(nproc) + 1 )) $(( 2 * $(nproc) )); do
    "$bin" check flows/ --concurrency "$c" --report "json:$out/c.json" > "$out/c.txt" || true
    python3 - "$out/c.json" "$c" "$(grep -E 'requests to the backend' "$out/c.txt")" <<'PY'
import json, re, sys, statistics
r = json.load(open(sys.argv[1]))
cases = [x["durationMS"] for x in r["results"] if x["kind"] == "token-case"]
rate = re.sub("\x1b\\[[0-9;]*m", "", sys.argv[3]).strip()
print(f"--concurrency {sys.argv[2]}: token case median {statistics.median(cases):.0f} ms, p90 {sorted(cases)[int(len(cases)*0.9)]} ms; {rate}")
PY
  done
fi

# 2. Start-up: one flow, next to lint of the same file.
echo
echo "one flow, wall time (best of $runs): check next to lint of the same file"
for spec in "flows/password-login.md" "flows/apple-sign-in-native.md --case path-1" "flows/apple-sign-in-native.md"; do
  read -r file extra <<< "$spec"
  best_check=""; best_lint=""
  for i in $(seq "$runs"); do
    s=$(now); "$bin" lint "$file" > /dev/null; l=$(secs "$s" "$(now)")
    # shellcheck disable=SC2086
    s=$(now); "$bin" check "$file" $extra > "$out/one.txt" || true; c=$(secs "$s" "$(now)")
    if [ -z "$best_check" ] || python3 -c "import sys; sys.exit(0 if $c < $best_check else 1)"; then best_check=$c; fi
    if [ -z "$best_lint" ] || python3 -c "import sys; sys.exit(0 if $l < $best_lint else 1)"; then best_lint=$l; fi
  done
  echo "  check $spec: ${best_check}s ($(grep -E '^Total:' "$out/one.txt" | sed 's/^Total: //')); lint: ${best_lint}s"
done
[ "$mode" = ci ] && { echo '```'; exit 0; }

# 3. Shards: n processes at once, then --merge; verdicts compared with the unsharded run.
echo
verdicts "$out/best.json" > "$out/single.txt"
for n in 1 2 4; do
  start=$(now)
  pids=()
  for i in $(seq "$n"); do
    "$bin" check flows/ --shard "$i/$n" --report "json:$out/shard-$n-$i.json" > /dev/null & pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || true; done
  "$bin" check --merge $(for i in $(seq "$n"); do echo "$out/shard-$n-$i.json"; done) --report "json:$out/merged-$n.json" > /dev/null || true
  wall=$(secs "$start" "$(now)")
  verdicts "$out/merged-$n.json" > "$out/merged-$n.txt"
  same=$(cmp -s "$out/single.txt" "$out/merged-$n.txt" && echo "same verdicts as the unsharded run" || echo "VERDICTS DIFFER from the unsharded run")
  echo "shards n=$n (n processes at once + merge): wall ${wall}s; $same"
done

# 4. Memory over a run 10, 30 and 100 times larger: flows/ copied (ids made unique).
# Peak RSS (GNU time) counts the pages of the binary and its libraries it has touched, which move
# by a few MiB from run to run; the anonymous memory (RssAnon: heap and stacks) is what a longer
# run could grow, sampled every 20 ms from /proc.
memory() {  # memory LOG ARGS…: "peakRSS peakAnon" in MiB of `flowspec ARGS…`
  local log=$1; shift
  /usr/bin/time -f "%M" -o "$out/rss.m" "$bin" "$@" > "$log" 2>&1 &
  local tpid=$! pid="" anon=0 a
  while kill -0 "$tpid" 2>/dev/null; do
    [ -n "$pid" ] || pid=$(pgrep -P "$tpid" | head -1 || true)
    if [ -n "$pid" ]; then
      a=$(awk '/^RssAnon/{print $2}' "/proc/$pid/status" 2>/dev/null || true)
      [ "${a:-0}" -gt "$anon" ] && anon=$a
    fi
    sleep 0.02
  done
  wait "$tpid" || true
  echo "$(( $(tail -1 "$out/rss.m") / 1024 )) $(python3 -c "print(f'{$anon / 1024:.1f}')")"
}
cp -r openapi "$out/openapi"  # the flows name ../openapi/*.yaml
copies=(1 10 30 100)
line="memory, peak RSS / anonymous:"
for k in "${copies[@]}"; do
  mkdir -p "$out/x$k"
  python3 - flows "$out/x$k" "$k" <<'PY2'
import os, re, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for k in range(n):
    for name in sorted(os.listdir(src)):
        if not name.endswith(".md"): continue
        t = open(os.path.join(src, name), encoding="utf-8").read()
        if n > 1:
            t = re.sub(r"^id: (\S+)", lambda m: f"id: {m.group(1)}-{k}", t, count=1, flags=re.M)
            t = re.sub(r"^translation-of: (\S+)", lambda m: f"translation-of: {m.group(1)}-{k}", t, count=1, flags=re.M)
        open(os.path.join(dst, f"{k}-{name}"), "w", encoding="utf-8").write(t)
PY2
  start=$(now)
  read -r rss anon < <(memory "$out/x$k.txt" check "$out/x$k")
  items=$(grep -aE '^Total:' "$out/x$k.txt" | sed 's/\x1b\[[0-9;]*m//g; s/^Total: //; s/ items.*//')
  line="$line flows/ ×$k (${items:-?} items, $(secs "$start" "$(now)") s) $rss / $anon MiB;"
done
echo "${line%;}"

# 6. Anchors: plain loopback HTTP on the same mock HTTP server (the provider's JWKS), OpenSSL's RS256.
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
echo
echo "\$ openssl speed -seconds 3 rsa2048"
openssl speed -seconds 3 rsa2048 2>/dev/null | grep -E '^rsa 2048|sign/s'
echo '```'
