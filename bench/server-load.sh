#!/usr/bin/env bash
# The mock servers under load and abuse (issue 10): `flowspec mock` (provider) and
# `flowspec mock --backend` (the embedded mock backend), release build.
#   1. wrk -c 64 -t 2 against the provider's JWKS (/auth/keys) and discovery document, and
#      against the mock backend (a GET route and a POST that starts a conversation, from
#      Tests/FlowCheckTests/Fixtures/rest-corpus): requests/s, latency, non-2xx, socket errors,
#      the server's RSS before and after.
#   2. slow loris: 200 connections each sending one header byte per second; how many the server
#      has closed at the end, whether a normal request still gets through meanwhile, RSS.
#   3. a 100 MB request body (Content-Length, then chunked) to each server: what it answers,
#      how many bytes it took before answering or closing, RSS.
# Prints the figures; paste them into docs/benchmarks.md by hand.
#
#   bench/server-load.sh            # wrk 30 s per run, slow loris 30 s
#   bench/server-load.sh --quick    # wrk 5 s, slow loris 5 s (a smoke test, ~1 min)
#   FLOWSPEC=path/to/flowspec bench/server-load.sh   # that binary (default: the release build
#                                   # in /tmp/release-build, built there if missing; never .build)
set -uo pipefail
cd "$(dirname "$0")/.."

duration=30
loris=30
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) duration=5; loris=5 ;;
    --duration) duration=${2:?}; shift ;;
    --loris) loris=${2:?}; shift ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "server-load.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

command -v wrk >/dev/null || { echo "installing wrk (Debian)…" >&2; apt-get install -y wrk >/dev/null || exit 1; }
command -v python3 >/dev/null || { echo "server-load.sh needs python3" >&2; exit 1; }

if [ -n "${FLOWSPEC:-}" ]; then
  bin=$FLOWSPEC
else
  bin=/tmp/release-build/release/flowspec
  if [ ! -x "$bin" ]; then
    echo "building flowspec (release) into /tmp/release-build…" >&2
    nice -n 10 swift build -c release --static-swift-stdlib --product flowspec --scratch-path /tmp/release-build >&2 || exit 1
  fi
fi

out=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$out"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
rss() { ps -o rss= -p "$1" 2>/dev/null | tr -d ' '; }
mb() { python3 -c "print(f'{${1:-0}/1024:.1f}')"; }

# Starts `flowspec mock --backend` on the specs in $1 (ports chosen by the server: providers take
# consecutive ports); sets provider_port (the first provider's, if any), backend_port, pid.
start_mock() {
  local specs=$1 log=$out/mock-$RANDOM.log
  "$bin" mock --backend --quiet "$specs" > "$log" 2>&1 &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 150); do
    if grep -q '^Ctrl-C stops' "$log"; then
      provider_port=$(grep -m1 -oE '^mock provider .* listening on http://127.0.0.1:[0-9]+' "$log" | grep -oE '[0-9]+$')
      backend_port=$(grep -m1 -oE '^mock backend .*http://127.0.0.1:[0-9]+' "$log" | grep -oE '[0-9]+$')
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  echo "flowspec mock did not start on $specs:"; head -20 "$log"; exit 1
}

# wrk_run LABEL PID URL [wrk options: -s script.lua, -H header…]
wrk_run() {
  local label=$1 server=$2 url=$3
  shift 3
  local before after result
  before=$(rss "$server")
  result=$(wrk -c 64 -t 2 -d "${duration}s" --latency "$@" "$url" 2>&1)
  sleep 1
  after=$(rss "$server")
  local rps p50 p99 total non2xx sockerr
  rps=$(grep -oE 'Requests/sec: *[0-9.]+' <<< "$result" | grep -oE '[0-9.]+$')
  total=$(grep -oE '[0-9]+ requests in' <<< "$result" | grep -oE '^[0-9]+')
  p50=$(awk '$1=="50%"{print $2}' <<< "$result")
  p99=$(awk '$1=="99%"{print $2}' <<< "$result")
  non2xx=$(grep -oE 'Non-2xx or 3xx responses: *[0-9]+' <<< "$result" | grep -oE '[0-9]+$')
  sockerr=$(grep -oE 'Socket errors:.*' <<< "$result" | sed 's/Socket errors: //')
  printf '%-44s %8s req/s  %8s requests  p50 %-8s p99 %-8s non-2xx %-7s socket errors: %-40s RSS %s → %s MB\n' \
    "$label" "${rps:-?}" "${total:-?}" "${p50:-?}" "${p99:-?}" "${non2xx:-0}" "${sockerr:-none}" "$(mb "$before")" "$(mb "$after")"
}

cat > "$out/abuse.py" <<'PY'
import os, select, socket, subprocess, sys, threading, time, urllib.request

# Headers for the normal request sent during the slow loris (e.g. "X-Api-Key: …").
HEADERS = dict(h.split(": ", 1) for h in os.environ.get("PROBE_HEADERS", "").split("\n") if ": " in h)

def rss_mb(pid):
    try:
        return int(subprocess.check_output(["ps", "-o", "rss=", "-p", str(pid)]).strip()) / 1024
    except Exception:
        return float("nan")

class PeakRSS(threading.Thread):
    def __init__(self, pid):
        super().__init__(daemon=True); self.pid = pid; self.peak = rss_mb(pid); self.running = True
    def run(self):
        while self.running:
            self.peak = max(self.peak, rss_mb(self.pid)); time.sleep(0.1)

def probe(port, path):
    start = time.time()
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=HEADERS)
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            r.read(); return f"{r.status} in {1000 * (time.time() - start):.0f} ms"
    except Exception as e:
        return f"failed after {1000 * (time.time() - start):.0f} ms ({e.__class__.__name__}: {e})"

def slow_loris(port, pid, seconds, path, count=200):
    before = rss_mb(pid)
    conns, refused = [], 0
    for _ in range(count):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".encode())
            s.setblocking(False)
            conns.append(s)
        except OSError:
            refused += 1
    closed, answered, first_close = set(), set(), None
    start = time.time()
    mid_probe = None
    while time.time() - start < seconds:
        for i, s in enumerate(conns):
            if i in closed:
                continue
            try:
                data = s.recv(4096)
                if data == b"":
                    closed.add(i); first_close = first_close or time.time() - start
                    continue
                answered.add(i)
            except BlockingIOError:
                pass
            except OSError:
                closed.add(i); first_close = first_close or time.time() - start
                continue
            try:
                s.send(b"a")
            except OSError:
                closed.add(i); first_close = first_close or time.time() - start
        if mid_probe is None and time.time() - start > seconds / 2:
            mid_probe = probe(port, path)
        time.sleep(1)
    after = rss_mb(pid)
    for s in conns:
        s.close()
    close_note = f", first closed after {first_close:.0f} s" if first_close else ""
    print(f"  slow loris, {count} connections x {seconds} s, 1 header byte/s: {len(conns)} opened ({refused} refused), "
          f"{len(closed)} closed by the server{close_note}, {len(answered - closed)} answered but open, "
          f"{len(conns) - len(closed)} still open at the end; a normal GET meanwhile: {mid_probe}; "
          f"RSS {before:.1f} → {after:.1f} MB")

def big_body(port, pid, path, size=100 << 20, chunked=False):
    before = rss_mb(pid)
    peak = PeakRSS(pid); peak.start()
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    framing = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {size}"
    s.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n{framing}\r\n\r\n".encode())
    block = b"x" * 65536
    payload = block if not chunked else (b"%x\r\n" % len(block)) + block + b"\r\n"
    sent, response, ended, start = 0, b"", "", time.time()
    while sent < size:
        readable, _, _ = select.select([s], [], [], 0)
        if readable:
            try:
                data = s.recv(65536)
            except OSError as e:
                ended = ended or f"reset while sending ({e.__class__.__name__})"; break
            if not data:
                ended = ended or "closed by the server while sending"; break
            response += data
            if b"\r\n\r\n" in response and not ended:
                ended = "answered while sending"   # go on sending: does it close or drain?
        try:
            s.sendall(payload)
        except socket.timeout:
            ended = ended or "stalled: the server stopped reading for 10 s"; break
        except OSError as e:
            ended = ended or f"send failed ({e.__class__.__name__})"; break
        sent += len(block)
        if time.time() - start > 60:
            ended = ended or "still accepting after 60 s"; break
    if sent >= size:
        ended = "answered early, then read the whole body (connection kept)" if ended == "answered while sending" else ended or "whole body accepted"
        if chunked:
            try: s.send(b"0\r\n\r\n")
            except OSError: pass
    s.settimeout(5)
    try:
        while b"\r\n\r\n" not in response:
            data = s.recv(65536)
            if not data: break
            response += data
    except OSError:
        pass
    status = response.split(b"\r\n", 1)[0].decode(errors="replace") if response else "no response"
    peak.running = False; time.sleep(0.15)
    print(f"  100 MB body, {'chunked' if chunked else 'Content-Length'}, POST {path}: {status!r}; {ended} after "
          f"{sent / 1048576:.1f} MB sent in {time.time() - start:.1f} s; RSS {before:.1f} → peak {peak.peak:.1f} → {rss_mb(pid):.1f} MB")
    s.close()

if __name__ == "__main__":
    what, port, pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if what == "loris":
        slow_loris(port, pid, int(sys.argv[4]), sys.argv[5])
    else:
        big_body(port, pid, sys.argv[4], chunked=(what == "chunked"))
PY

cat > "$out/post.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"name": "To read"}'
wrk.headers["Content-Type"] = "application/json"
LUA

echo "## mock servers under load (measured $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m); wrk -c 64 -t 2 -d ${duration}s)"
echo "binary: $bin"
echo

# Provider (from flows/: the first provider listed is on --port) and backend (rest corpus).
start_mock flows
provider=$pid; pport=$provider_port
echo "mock provider (flowspec mock --backend flows/): http://127.0.0.1:$pport, RSS at start $(mb "$(rss "$provider")") MB"
wrk_run "provider GET /auth/keys" "$provider" "http://127.0.0.1:$pport/auth/keys"
wrk_run "provider GET /.well-known/openid-configuration" "$provider" "http://127.0.0.1:$pport/.well-known/openid-configuration"

start_mock Tests/FlowCheckTests/Fixtures/rest-corpus
backend=$pid; bport=$backend_port
echo "mock backend (flowspec mock --backend rest-corpus/): http://127.0.0.1:$bport, RSS at start $(mb "$(rss "$backend")") MB"
# rate-limit-retry-after.md: a key from POST /api/keys, then GET /api/quotes answers 200 each time.
key=$(curl -s -X POST -H 'Content-Type: application/json' -d '{"plan": "sandbox"}' "http://127.0.0.1:$bport/api/keys" \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["key"])')
curl -s -o /dev/null -w '' -H "X-Api-Key: $key" "http://127.0.0.1:$bport/api/quotes?symbols=ACME"
wrk_run "backend GET /api/quotes?symbols=ACME" "$backend" "http://127.0.0.1:$bport/api/quotes?symbols=ACME" \
  -H "X-Api-Key: $key" -H "Accept: application/json"
# crud-conflicts.md step 1: each POST starts a new conversation (201 and a new shelf id).
wrk_run "backend POST /api/shelves (new conversation)" "$backend" "http://127.0.0.1:$bport/api/shelves" -s "$out/post.lua"
# Memory flat: the backend forgets its oldest sessions past 100 000 and its conversations past
# 20 000, so RSS must level off once those caps are reached (the provider's request log is
# capped at 100 000 likewise). Two more runs of each growing route show the plateau.
for run in 2 3; do
  wrk_run "backend POST /api/shelves, run $run" "$backend" "http://127.0.0.1:$bport/api/shelves" -s "$out/post.lua"
done
wrk_run "provider GET /auth/keys, run 2" "$provider" "http://127.0.0.1:$pport/auth/keys"

echo
echo "abuse:"
echo " provider:"
python3 "$out/abuse.py" loris "$pport" "$provider" "$loris" /auth/keys
python3 "$out/abuse.py" length "$pport" "$provider" /auth/token
python3 "$out/abuse.py" chunked "$pport" "$provider" /auth/token
echo " backend:"
PROBE_HEADERS="X-Api-Key: $key" python3 "$out/abuse.py" loris "$bport" "$backend" "$loris" "/api/quotes?symbols=ACME"
python3 "$out/abuse.py" length "$bport" "$backend" /api/shelves
python3 "$out/abuse.py" chunked "$bport" "$backend" /api/shelves
for p in "$provider" "$backend"; do kill -0 "$p" 2>/dev/null || echo "server $p DIED during the run"; done
