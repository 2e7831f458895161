# Instruction counts with callgrind, for the benches (sourced by bench/check-bench.sh and
# bench/site-bench.sh): a count of instructions is the same whatever else the machine is doing,
# so a regression shows where a wall time would drown in noise.
#
#   callgrind_setup DIR FLOWSPEC   prepares DIR; sets vg_bin (the flowspec to run under valgrind)
#   instructions LABEL CMD...      prints CMD's instructions, less RSA and EC key generation
#                                  (a random search for primes: a different count every run);
#                                  0 when valgrind could not run it (its log: DIR/cg.LABEL.log)
#   cg_keygen FILE                 "KEYS INSTRUCTIONS": the RSA keys a callgrind file made, and
#                                  their instructions (the part cg_total leaves out)
#   serve_instructions LABEL DIR   one warm rebuild by `flowspec serve` after an edit (below)
#
# valgrind runs the Swift binary with two arrangements: a copy without its DWARF (valgrind's
# debuginfo reader gives up on the toolchain's DWARF 5: "unhandled dwarf2 abbrev form code
# 0x25"), and sigsuspend-shim.c preloaded (valgrind's rt_sigsuspend wrapper writes into the
# read-only mask libdispatch's dispatch_main passes, and dies on it). Symbols stay, so callgrind
# still names functions. Swift's per-process random hashing is turned off (one cause of
# run-to-run difference less); threads still make counts differ by about 1 % (three builds of
# the same 10 flows: 859.8, 862.1 and 865.8 M).

callgrind_setup() {
  vg_dir=$1
  vg_bin=$vg_dir/flowspec-for-valgrind
  objcopy --strip-debug "$2" "$vg_bin" 2>/dev/null || cp "$2" "$vg_bin"
  vg_shim=$vg_dir/libsigsuspend-shim.so
  local cc
  cc=$(command -v cc || command -v gcc || command -v clang || true)
  if [ -z "$cc" ] || ! "$cc" -O2 -shared -fPIC -o "$vg_shim" "$(dirname "${BASH_SOURCE[0]}")/sigsuspend-shim.c" 2>/dev/null; then
    vg_shim=""
  fi
}

instructions() {
  local label=$1; shift
  SWIFT_BACKTRACE=enable=no SWIFT_DETERMINISTIC_HASHING=1 LD_PRELOAD="$vg_shim" \
    valgrind --tool=callgrind --callgrind-out-file="$vg_dir/cg.$label" "$@" >/dev/null 2>"$vg_dir/cg.$label.log" || true
  [ -s "$vg_dir/cg.$label" ] || { echo 0; return; }
  cg_total "$vg_dir/cg.$label"
}

# cg_keygen FILE: how many RSA keys the run made (calls of RSAKey.generate) and their
# instructions, e.g. "22 4400000000"; "0 0" when it made none.
cg_keygen() {
  callgrind_annotate --inclusive=yes --tree=caller --threshold=100 "$1" 2>/dev/null | python3 -c '
import re, sys
calls = total = 0
pending = 0
for line in sys.stdin:
    m = re.match(r"\s*[\d,]+ \(.*?\)\s+<\s+.*\((\d+)x\)", line)
    if m: pending += int(m.group(1)); continue
    m = re.match(r"\s*([\d,]+) \(.*?\)\s+\*\s+(\S.*)", line)
    if m:
        if re.search(r"RSAKeyC8generate", m.group(2)): calls += pending; total += int(m.group(1).replace(",", ""))
        pending = 0
    elif not line.strip(): pending = 0
print(calls, total)'
}

# cg_total FILE: a callgrind file's instructions, less RSA and EC key generation.
cg_total() {
  callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null | python3 -c '
import re, sys
total = keygen = 0
for line in sys.stdin:
    m = re.match(r"\s*([\d,]+) \(.*?\)\s+(\S.*)", line) or re.match(r"\s*([\d,]+)\s+(\S.*)", line)
    if not m: continue
    n, name = int(m.group(1).replace(",", "")), m.group(2)
    if "PROGRAM TOTALS" in name: total = n
    elif re.search(r"RSAKeyC8generate|ECKeyC8generate", name): keygen += n
print(total - keygen)'
}

#   serve_instructions LABEL DIR   one rebuild by `flowspec serve` after an edit of DIR/flows/
#                                  flow-00000.md, its second: callgrind's counters are zeroed
#                                  after the first edit's rebuild and dumped once the second is
#                                  logged (the server's polls in between count too); 0 when it
#                                  could not run
serve_instructions() {
  local label=$1 dir=$2 port pid out
  out=$vg_dir/cg.$label.out
  port=$(python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
  SWIFT_BACKTRACE=enable=no SWIFT_DETERMINISTIC_HASHING=1 LD_PRELOAD="$vg_shim" \
    valgrind --tool=callgrind --callgrind-out-file="$vg_dir/cg.$label" "$vg_bin" serve "$dir/flows" \
    --out "$dir/site" --config "$dir/site.yml" --port "$port" >"$out" 2>"$vg_dir/cg.$label.log" &
  pid=$!
  rebuilt() { # rebuilt COUNT: until serve has logged COUNT rebuilds (10 minutes at most)
    for _ in $(seq 3000); do
      [ "$(grep -c "^Rebuilt in" "$out" || true)" -ge "$1" ] && return 0
      kill -0 "$pid" 2>/dev/null || return 1
      sleep 0.2
    done
    return 1
  }
  local total=0
  # A first edit, not counted (it may still meet descriptions being decoded), then the one counted.
  if rebuilt 1 && sleep 1 && sed -i "0,/^title: /s/^title: \(.*\)$/title: \1 (serve edit)/" "$dir/flows/flow-00000.md" \
    && rebuilt 2 && sleep 2 && callgrind_control -z "$pid" >/dev/null 2>&1; then
    sed -i "0,/^title: /s/^title: \(.*\)$/title: \1 (serve edit 2)/" "$dir/flows/flow-00000.md"
    if rebuilt 3 && callgrind_control -d "$pid" >/dev/null 2>&1; then
      for _ in $(seq 50); do [ -s "$vg_dir/cg.$label.1" ] && break; sleep 0.2; done
      sleep 1
      [ -s "$vg_dir/cg.$label.1" ] && total=$(cg_total "$vg_dir/cg.$label.1")
    fi
  fi
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
  echo "$total"
}
