#!/usr/bin/env bash
# Fuzzes flowspec's parsers with libFuzzer (issue 10): builds the targets in Fuzz/ with
# -sanitize=fuzzer,address, replays the committed seed corpus and regressions, then fuzzes
# each target for a while.
#
#   scripts/fuzz.sh                 # 10 minutes per target
#   scripts/fuzz.sh --minutes 3     # N minutes per target
#   scripts/fuzz.sh --ci            # short deterministic run (seed 1, a fixed number of inputs per
#                                   # target, from the committed seeds; ~1 min with a warm build)
#   scripts/fuzz.sh --seconds 30    # N seconds per target
#   scripts/fuzz.sh --replay        # build and replay corpus + regressions only
#   scripts/fuzz.sh --probe         # exit 0 if this toolchain can build fuzzers, else say why
#   scripts/fuzz.sh --targets "spec jws" ...   # a subset (spec legacy arazzo jws jwks json)
#
# Targets: spec (SpecParser + Linter + DiagnosticPrinter), legacy (LegacyImporter, SpecWriter,
# Linter), arazzo (ArazzoImporter, SpecWriter, Linter), jws (JWS.parse, JWTVerifier), jwks (JWKS/JWK decoding, RSAKey/ECKey import), json
# (StrictJSON round trip). Seeds: Fuzz/corpus/<target>/ (regenerate with Fuzz/make-corpus.py);
# known crashers: Fuzz/regressions/<target>/ (replayed on every run).
#
# Never builds into the repository's .build: the fuzz build goes to $FUZZ_BUILD_DIR
# (default /tmp/fuzz-build), the growing corpus to $FUZZ_WORK_DIR (default /tmp/flowspec-fuzz),
# logs and new crashes to test-artifacts/fuzz/ (crashes in test-artifacts/fuzz/crashes/<target>/).
# Exits non-zero when a build fails, a replayed input crashes, or fuzzing finds a crash,
# timeout (> 10 s), leak or out-of-memory (> 2048 MB).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

seconds=600
ci=0
mode=fuzz
targets="spec legacy arazzo jws jwks json"
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) seconds=$(( ${2:?--minutes needs a number} * 60 )); shift ;;
    --seconds) seconds=${2:?--seconds needs a number}; shift ;;
    --ci) seconds=30; ci=1 ;;
    --replay) mode=replay ;;
    --probe) mode=probe ;;
    --targets) targets=${2:?--targets needs a list}; shift ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "fuzz.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

BUILD=${FUZZ_BUILD_DIR:-/tmp/fuzz-build}
WORK=${FUZZ_WORK_DIR:-/tmp/flowspec-fuzz}
# CI starts from the committed seeds only (what a fresh clone has), so its run is reproducible.
[ "$ci" = 1 ] && WORK=$(mktemp -d /tmp/flowspec-fuzz-ci.XXXXXX)
OUT=$ROOT/test-artifacts/fuzz
case "$(cd "$(dirname "$BUILD")" 2>/dev/null && pwd)/$(basename "$BUILD")" in
  "$ROOT/.build"|"$ROOT/.build/"*) echo "fuzz.sh: refusing to build into $ROOT/.build" >&2; exit 2 ;;
esac

# Does this toolchain have libFuzzer and ASan for Swift? (Not on macOS's Xcode toolchain, for one.)
probe() {
  local dir
  dir=$(mktemp -d)
  cat > "$dir/probe.swift" <<'EOF'
@_cdecl("LLVMFuzzerTestOneInput") public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { 0 }
EOF
  if swiftc -sanitize=fuzzer,address -parse-as-library "$dir/probe.swift" -o "$dir/probe" > "$dir/log" 2>&1 \
     && "$dir/probe" -runs=1 > "$dir/run.log" 2>&1; then
    rm -rf "$dir"; return 0
  fi
  echo "fuzz.sh: this Swift toolchain cannot build libFuzzer targets (swiftc -sanitize=fuzzer,address):" >&2
  tail -3 "$dir/log" "$dir/run.log" 2>/dev/null | sed 's/^/  /' >&2
  rm -rf "$dir"; return 1
}
if [ "$mode" = probe ]; then probe; exit $?; fi
probe || exit 3

max_len() {
  case "$1" in spec|legacy|arazzo) echo 65536 ;; jws|jwks) echo 8192 ;; *) echo 4096 ;; esac
}
dict() {
  case "$1" in spec|legacy|arazzo) echo "Fuzz/dict/$1.dict" ;; *) echo "Fuzz/dict/jose.dict" ;; esac
}

mkdir -p "$OUT"
# An incremental release build of changed sources can link stale code: after a field was added
# to ProviderCatalog, FlowLint's objects were partly rebuilt, and a destroy function merged into
# an object that was not (DiagnosticPrinter.swift.o) freed the old layout; the legacy and arazzo
# targets crashed on their seeds, and a clean build of the same sources passed. So when the
# sources differ from the last build's, our modules are rebuilt whole (dependencies are kept).
sources_stamp=$( (cd "$ROOT" && find -L Fuzz/Core Fuzz/Support Fuzz/Targets Fuzz/Package.swift -type f \
  \( -name '*.swift' -o -name '*.c' -o -name '*.h' -o -name '*.modulemap' -o -name '*.mustache' -o -name '*.css' -o -name '*.js' \) \
  -print0 | sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-64)
if [ -d "$BUILD" ] && [ "$(cat "$BUILD/.flowspec-sources" 2>/dev/null)" != "$sources_stamp" ]; then
  for module in $(ls "$ROOT/Fuzz/Core") $(ls "$ROOT/Fuzz/Support") $(for target in $(ls "$ROOT/Fuzz/Targets"); do echo "fuzz_$target"; done); do
    rm -rf "$BUILD"/*/release/"$module".build
  done
fi
echo "== fuzz: building $targets into $BUILD (release, -sanitize=fuzzer,address)"
# CYaml (libyaml, vendored by Yams) is C: -Xcc instruments it too. cmark-gfm and OpenSSL are
# the system's libraries and are not instrumented.
nice -n 10 swift build --package-path Fuzz --scratch-path "$BUILD" -c release \
  -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address > "$OUT/build.log" 2>&1
status=$?
if [ $status -ne 0 ]; then
  grep -v "Cannot export local symbol" "$OUT/build.log" | grep -E "error|warning: " | sort -u | head -30
  echo "fuzz: build failed (log: $OUT/build.log)" >&2
  exit $status
fi
echo "$sources_stamp" >"$BUILD/.flowspec-sources"
BIN=$BUILD/release

# The allocation stacks of a LeakSanitizer report (the first frames of each leak), so a CI log
# says where a leak was made without the artifacts.
leak_frames() {
  awk '/^(Direct|Indirect) leak of/ { n = 0; print; next } /^ +#[0-9]+ / && n < 12 { n++; print }' "$1" \
    | head -40 | sed 's/^/    /'
}

failed=0
summary=()
for target in $targets; do
  exe=$BIN/fuzz-$target
  [ -x "$exe" ] || { echo "fuzz: no target $target" >&2; exit 2; }
  crashes=$OUT/crashes/$target
  mkdir -p "$crashes" "$WORK/corpus/$target" "$OUT/replay-artifacts"
  len=$(max_len "$target")

  # Replay the committed seeds in one run (files given one by one: libFuzzer runs each once and
  # writes nothing), then each known crasher in a run of its own, so every one is reported.
  seeds=()
  while IFS= read -r -d '' file; do seeds+=("$file"); done < <(find "Fuzz/corpus/$target" -type f -print0 | sort -z)
  log=$OUT/$target-replay.log
  if "$exe" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$OUT/replay-artifacts/$target-" "${seeds[@]}" > "$log" 2>&1; then
    replay="${#seeds[@]} seeds ok"
  else
    failed=1
    replay="seed replay FAILED"
    echo "fuzz: $target: replaying ${#seeds[@]} seeds FAILED (log: $log)"
    grep -E "^(==[0-9]+==ERROR|SUMMARY|Running:|Fatal error|.*: error:)" "$log" | tail -4 | sed 's/^/  /'
  fi
  regressions=0
  broken=()
  if [ -d "Fuzz/regressions/$target" ]; then
    while IFS= read -r -d '' file; do
      regressions=$((regressions + 1))
      log=$OUT/$target-regression-$(basename "$file").log
      if "$exe" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$OUT/replay-artifacts/$target-" "$file" > "$log" 2>&1; then
        rm -f "$log"
      else
        failed=1
        broken+=("$(basename "$file")")
        echo "fuzz: $target: regression $file FAILS again: $(grep -m1 -oE 'SUMMARY: .*|ERROR: libFuzzer: [a-z-]+|Fatal error: .*' "$log") (log: $log)"
      fi
    done < <(find "Fuzz/regressions/$target" -type f ! -name 'README*' -print0 | sort -z)
  fi
  if [ ${#broken[@]} -gt 0 ]; then
    replay="$replay, ${#broken[@]}/$regressions regressions FAIL"
  else
    replay="$replay, $regressions regressions ok"
  fi
  echo "fuzz: $target: replay: $replay"
  [ "$mode" = replay ] && { summary+=("$target: $replay"); continue; }

  # Fuzz: new interesting inputs go to $WORK/corpus/<target> (kept between runs); the committed
  # seeds are read only.
  log=$OUT/$target-fuzz.log
  stamp=$(mktemp)
  # In CI the run is deterministic: a fixed seed and a fixed number of inputs per target (the
  # time cap only guards a slow machine), so a green build stays green on a fresh clone; longer
  # runs (--minutes) explore freely.
  bounded=()
  if [ "$ci" = 1 ]; then
    case "$target" in
      spec) runs=1500 ;; legacy|arazzo) runs=400 ;; jws) runs=10000 ;; jwks) runs=1500 ;; *) runs=30000 ;;
    esac
    bounded=(-seed=1 -runs="$runs")
  fi
  # Swift seeds its hashing per process, so dictionaries are walked in another order each run and
  # coverage, and with it libFuzzer's choice of mutations, differs; in CI it is fixed, so the
  # same seed fuzzes the same inputs on every machine.
  fixed=()
  [ "$ci" = 1 ] && fixed=(SWIFT_DETERMINISTIC_HASHING=1)
  fuzz_once() {
    env "${fixed[@]}" nice -n 10 "$exe" "${bounded[@]}" -max_total_time="$seconds" -max_len="$len" -timeout=10 -rss_limit_mb=2048 \
      -dict="$(dict "$target")" -print_final_stats=1 -artifact_prefix="$crashes/" \
      "$1" "Fuzz/corpus/$target" > "$log" 2>&1
  }
  fuzz_once "$WORK/corpus/$target"
  status=$?
  # A leak LeakSanitizer finds at exit names no input (libFuzzer writes the empty unit,
  # crash-da39a3ee…): libFuzzer's own check after each input, which names the input, did not see
  # it. In CI the run is repeated once, same seed and inputs, from the committed seeds: a leak an
  # input causes comes back (and fails the build, with its stack in test-artifacts); one that
  # does not is reported with its stack as not reproduced, not as a failure.
  exit_leak="$crashes/crash-da39a3ee5e6b4b0d3255bfef95601890afd80709"
  unreproduced=""
  if [ $status -ne 0 ] && [ "$ci" = 1 ] && grep -q "LeakSanitizer: detected memory leaks" "$log" \
     && [ "$exit_leak" -nt "$stamp" ] && ! grep -qE "ERROR: (AddressSanitizer|libFuzzer)|Fatal error" "$log"; then
    cp "$log" "$OUT/$target-exit-leak.log"
    echo "fuzz: $target: a leak found at exit, with no input named (log: $OUT/$target-exit-leak.log):"
    leak_frames "$log"
    echo "fuzz: $target: running the same seed and inputs again"
    rm -f "$exit_leak"
    again=$(mktemp -d /tmp/flowspec-fuzz-again.XXXXXX)
    fuzz_once "$again"
    status=$?
    rm -rf "$again"
    if [ $status -eq 0 ]; then
      unreproduced="; a leak at exit did not come back in a second run (log: $OUT/$target-exit-leak.log)"
    fi
  fi
  # (libFuzzer may print its final stats twice: take the last.)
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$')
  rate=$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$')
  rss=$(grep -oE 'stat::peak_rss_mb: *[0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$')
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -1)
  if [ $status -ne 0 ]; then
    failed=1
    echo "fuzz: $target: FOUND A PROBLEM after ${seconds}s (exit $status, log: $log)"
    grep -E "^(==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written|Fatal error|.*: error:)|ALARM|out-of-memory" "$log" | head -8 | sed 's/^/  /'
    leak_frames "$log"
    find "$crashes" -type f -newer "$stamp" | sed 's/^/  new: /'
    summary+=("$target: fuzzing FAILED (exit $status), ${rate:-?} exec/s, artifacts in $crashes; replay: $replay")
  else
    if [ "$ci" = 1 ]; then span="seed 1, ${runs} inputs"; else span="${seconds}s"; fi
    echo "fuzz: $target: $span, ${execs:-?} runs, ${rate:-?} exec/s, peak RSS ${rss:-?} MB, $cov, no crash$unreproduced"
    summary+=("$target: ${rate:-?} exec/s, ${execs:-?} runs, $cov, no new crash; replay: $replay$unreproduced")
  fi
  rm -f "$stamp"
done

echo "== fuzz summary (${seconds}s per target; logs in $OUT)"
printf '  %s\n' "${summary[@]}"
if [ $failed -ne 0 ]; then
  echo "fuzz: failures above. Minimise a crasher with:  $BIN/fuzz-<target> -minimize_crash=1 -runs=10000 <file>" >&2
  echo "      then save it under Fuzz/regressions/<target>/ and add a regression test." >&2
fi
exit $failed
