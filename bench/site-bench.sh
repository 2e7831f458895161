#!/usr/bin/env bash
# Site benchmark: flowspec build vs the cmark-gfm CLI (the floor) vs hugo, on N flows
# generated from the real flows/ (ids, titles and prose made unique per copy, translations kept in groups).
#
#   bench/site-bench.sh                 N = 100 500 2000 10000
#   bench/site-bench.sh 2000            one size
#   FLOWSPEC=path/to/flowspec bench/site-bench.sh
#   bench/site-bench.sh --ci            CI's figures: 200 flows, one run, hugo only when installed;
#                                       reports, never fails on a time
#
# Needs: a release build of flowspec (swift build -c release --static-swift-stdlib), cmark-gfm and hugo
# (apt-get install cmark-gfm hugo), a C compiler for the timer (the Swift toolchain's clang will do).
# Prints a Markdown table for docs/benchmarks.md.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
FLOWSPEC=${FLOWSPEC:-$ROOT/.build/release/flowspec}
CI=0
if [ "${1:-}" = "--ci" ]; then CI=1; shift; RUNS=${RUNS:-1}; fi
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || { [ "$CI" = 1 ] && SIZES=(200); } || SIZES=(100 500 2000 10000)
HUGO=1
command -v hugo >/dev/null || { [ "$CI" = 1 ] && HUGO=0; }
for tool in "$FLOWSPEC" cmark-gfm python3 $([ "$HUGO" = 1 ] && echo hugo); do
  command -v "$tool" >/dev/null || { echo "missing: $tool" >&2; exit 2; }
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/flowspec-bench.XXXXXX")
mkdir -p "$WORK/trash"
trap 'if [ -n "${serve_pid:-}" ]; then kill "$serve_pid" 2>/dev/null || true; fi; rm -rf "$WORK"' EXIT

# generate N DIR: N specs in DIR/flows (flowspec), DIR/md (plain Markdown for cmark), DIR/hugo (hugo site).
generate() {
  python3 - "$ROOT/flows" "$1" "$2" <<'PY'
import os, re, shutil, sys
src, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
# The OpenAPI descriptions the flows name (`openapi: ../openapi/…`), beside the generated flows.
if os.path.isdir(os.path.join(src, "..", "openapi")):
    shutil.copytree(os.path.join(src, "..", "openapi"), os.path.join(out, "openapi"))
specs = []
for name in sorted(os.listdir(src)):
    if name.endswith(".md"):
        specs.append(open(os.path.join(src, name), encoding="utf-8").read())
# Originals before translations, so a partial last set never holds a translation without its original.
specs.sort(key=lambda t: ("\ntranslation-of:" in t))
for d in ("flows", "md", "hugo/content", "hugo/layouts/_default"):
    os.makedirs(os.path.join(out, d), exist_ok=True)
open(os.path.join(out, "site.yml"), "w").write("title: Bench\n")
open(os.path.join(out, "hugo/config.toml"), "w").write(
    'baseURL = "/"\ntitle = "Bench"\ndisableKinds = ["taxonomy", "term", "RSS", "sitemap"]\n'
    '[markup.goldmark.renderer]\nunsafe = false\n')
open(os.path.join(out, "hugo/layouts/_default/single.html"), "w").write(
    '<!doctype html><html><head><title>{{ .Title }}</title></head><body>{{ .Content }}</body></html>\n')
open(os.path.join(out, "hugo/layouts/_default/list.html"), "w").write(
    '<!doctype html><html><body>{{ range .Pages }}<a href="{{ .RelPermalink }}">{{ .Title }}</a>{{ end }}</body></html>\n')
def unique_prose(text, k):
    """Copy k's own prose: every prose line and step heading of the body ends in its number, so
    no page repeats another's text (a renderer that remembers prose across pages would otherwise
    find 8 specs' text 250 times over at 2 000 flows). Code blocks, tables, actor lines and
    alternates (`→`) are left as they are, so every copy means what its spec means."""
    head, sep, body = text.partition("\n---\n") if text.startswith("---\n") else ("", "", text)
    lines, fenced = [], False
    for line in body.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (line.startswith("### ") or (re.match(r"[^\W\d_]", line) and "→" not in line and "|" not in line)):
            line += " %d" % k
        lines.append(line)
    return head + sep + "\n".join(lines)

count = 0
k = 0
while count < n:
    k += 1
    for text in specs:
        if count >= n:
            break
        t = re.sub(r"^id: (\S+)", lambda m: "id: %s-%d" % (m.group(1), k), text, count=1, flags=re.M)
        t = re.sub(r"^translation-of: (\S+)", lambda m: "translation-of: %s-%d" % (m.group(1), k), t, count=1, flags=re.M)
        t = re.sub(r"^title: (.*)$", lambda m: "title: %s %d" % (m.group(1), k), t, count=1, flags=re.M)
        t = unique_prose(t, k)
        name = "flow-%05d.md" % count
        open(os.path.join(out, "flows", name), "w", encoding="utf-8").write(t)
        body = t.split("\n---\n", 1)[1] if t.startswith("---\n") else t
        title = re.search(r"^title: (.*)$", t, re.M).group(1).replace('"', "'")
        open(os.path.join(out, "md", name), "w", encoding="utf-8").write(body)
        open(os.path.join(out, "hugo/content", name), "w", encoding="utf-8").write('---\ntitle: "%s"\n---\n%s' % (title, body))
        count += 1
PY
}

RUNS=${RUNS:-3}

# The timer (bench/run-once.c): reads the clock around the command alone, and reports its
# wait4 figures as GNU time does.
CC=$(command -v cc || command -v gcc || command -v clang || true)
[ -n "$CC" ] || { echo "missing: a C compiler (cc, gcc or clang) for bench/run-once.c" >&2; exit 2; }
"$CC" -O2 -o "$WORK/run-once" "$ROOT/bench/run-once.c"
# Its own floor, the anchor of the small figures: spawning and reaping `true` (best of 5).
for _ in 1 2 3 4 5; do "$WORK/run-once" /dev/null true; done \
  | sort -n | head -1 | awk '{ printf "the timer floor, spawning and reaping true: %.1f ms (best of 5)\n", $1 * 1000 }' >"$WORK/cpu-notes"

# measure LABEL CMD...: appends "label wall_s rss_kb user_s system_s" to $WORK/results
measure() {
  local label=$1; shift
  local figures
  figures=$("$WORK/run-once" "$WORK/stderr" "$@") || { cat "$WORK/stderr" >&2; echo "failed: $label" >&2; exit 1; }
  echo "$label $figures" >>"$WORK/results"
}

# once LABEL OUTPUT CMD...: one run from the same state as every other: OUTPUT absent and the
# file system synced. Earlier outputs are moved aside, not deleted, until the script ends: on
# ext4 a file created within ~30 s of many deletions pays for them (inode allocation skips
# recently deleted inodes one by one), which made any run after a deletion up to 2x slower,
# whichever tool it was.
once() {
  local label=$1 output=$2; shift 2
  [ -e "$output" ] && mv "$output" "$WORK/trash/$label-$RANDOM-$RANDOM"
  sync; sleep 1
  measure "$label" "$@"
  [ -e "$output" ] && mv "$output" "$WORK/trash/$label-$RANDOM-$RANDOM"
  true
}

# settle N: before a size's rounds, waits until the file system has forgotten earlier deletions.
# This VM's root is ext4 without a journal: there, creating a file skips, one by one, every inode
# of its allocation group freed in the last 60 s, or 360 s while its inode table block is not yet
# written back (`recently_deleted`, fs/ext4/ialloc.c). A build in a new work folder a minute
# after 30 000 files were deleted beside it (as a run's cleanup does) spent an eighth of its CPU
# there, and 2 000 empty files took 0.78 s to create instead of 0.05 s: a cost the tools that
# write a file per page pay (flowspec, hugo, the per-file cmark-gfm) and the batch does not.
# So: `sync`, then create 2 000 empty files in a new folder (kept until the script ends:
# deleting them would start the clock again), and while that takes over 0.1 s (50 µs a file),
# wait 30 s and try again, six minutes at most. --ci only reports; it does not wait. The notes
# give the last probe and the wait.
settle() {
  local n=$1 attempt ms waited=0
  for attempt in $(seq 13); do
    sync
    mkdir -p "$WORK/probe-$n-$attempt"
    ms=$("$WORK/run-once" /dev/null bash -c 'cd "$1" && touch f{1..2000}' bash "$WORK/probe-$n-$attempt" | awk '{ printf "%.0f", $1 * 1000 }')
    { [ "$CI" = 1 ] || [ "$ms" -le 100 ] || [ "$attempt" = 13 ]; } && break
    sleep 30
    waited=$((waited + 30))
  done
  echo "$n flows: the file system before the rounds: 2 000 empty files created in $ms ms, after waiting $waited s for it" >>"$WORK/cpu-notes"
}

echo "| flows | tool | wall (s) | peak RSS (MiB) | pages/s | × cmark-gfm (per file) | × cmark-gfm-batch | × hugo |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|"
for n in "${SIZES[@]}"; do
  dir="$WORK/n$n"
  generate "$n" "$dir"
  : >"$WORK/results"
  settle "$n"
  sync; sleep 2
  # The tools take turns, round after round: a machine whose speed drifts from minute to minute
  # (a shared VM) slows every tool of a round alike. The table keeps each tool's fastest run;
  # the line under it gives the median of the rounds' own ratios.
  for run in $(seq "$RUNS"); do
    once "flowspec" "$dir/site" "$FLOWSPEC" build "$dir/flows" --out "$dir/site" --config "$dir/site.yml" --clean
    # The floor: the cmark-gfm CLI rendering every file to its own page (one process per page,
    # as a Makefile would), and in one batch (all files, one process: pure parse+render).
    once "cmark-gfm" "$dir/cmark" sh -c 'mkdir -p "$1/cmark" && for f in "$1"/md/*.md; do cmark-gfm -e table -e strikethrough -e autolink "$f" >"$1/cmark/$(basename "$f" .md).html"; done' sh "$dir"
    once "cmark-gfm-batch" "$dir/cmark" sh -c 'mkdir -p "$1/cmark" && cat "$1"/md/*.md | cmark-gfm -e table -e strikethrough -e autolink >"$1/cmark/all.html"' sh "$dir"
    [ "$HUGO" = 1 ] && once "hugo" "$dir/hugo-out" hugo --quiet -s "$dir/hugo" -d "$dir/hugo-out"
  done
  # Incremental: build once, then change one flow's title and rebuild. The first rebuild after
  # a build into an empty folder has no previous tree to start from (docs/site.md, "The
  # replaced folder is kept"): it is shown on its own row; the next ones are a writer's
  # repeated builds (best and median of 3).
  "$FLOWSPEC" build "$dir/flows" --out "$dir/site" --config "$dir/site.yml" >/dev/null 2>&1; sync; sleep 1
  for attempt in 0 1 2 3; do
    sed -i "0,/^title: /s/^title: \(.*\)$/title: \1 (edit $attempt)/" "$dir/flows/flow-00000.md"
    label="flowspec-incremental"; [ "$attempt" = 0 ] && label="flowspec-incremental-first"
    measure "$label" "$FLOWSPEC" build "$dir/flows" --out "$dir/site" --config "$dir/site.yml"
  done
  # The edit-preview loop as a writer runs it: `flowspec serve` rebuilds in its own process,
  # with the runtime and the decoded descriptions warm, and logs each rebuild's time.
  port=$(python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
  "$FLOWSPEC" serve "$dir/flows" --out "$dir/site" --config "$dir/site.yml" --port "$port" >"$WORK/serve.log" 2>&1 &
  serve_pid=$!
  waitfor() { # waitfor PATTERN COUNT: until the log holds COUNT lines matching PATTERN (60 s at most)
    for _ in $(seq 600); do
      [ "$(grep -c "$1" "$WORK/serve.log" || true)" -ge "$2" ] && return 0
      kill -0 "$serve_pid" 2>/dev/null || return 1
      sleep 0.1
    done
    return 1
  }
  # Its first build, before "Serving", is logged as a rebuild too: only the edits' rebuilds count.
  first=0
  if waitfor "^Serving" 1; then
    first=$(grep -c "^Rebuilt in" "$WORK/serve.log" || true)
    for attempt in 1 2 3; do
      sleep 1.1  # past the modification time's resolution and the 0.5 s poll
      sed -i "0,/^title: /s/^title: \(.*\)$/title: \1 (serve $attempt)/" "$dir/flows/flow-00000.md"
      waitfor "^Rebuilt in" $((first + attempt)) || break
    done
  fi
  kill "$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null || true
  serve_pid=""
  grep -oE "^Rebuilt in [0-9]+ ms" "$WORK/serve.log" | tail -n +$((first + 1)) | grep -oE "[0-9]+" >"$WORK/serve-ms" || true
  python3 - "$n" "$WORK/results" "$WORK/cpu-notes" "$WORK/serve-ms" <<'PY'
import sys
n = int(sys.argv[1])
rows = {}
incremental = []
cpu = {}
rounds = {}
for line in open(sys.argv[2]):
    label, wall, rss, user, system = line.split()
    rounds.setdefault(label, []).append(float(wall))
    if label == "flowspec-incremental":
        incremental.append((float(wall), int(rss)))
    elif label == "flowspec-incremental-first":
        first_rebuild = (float(wall), int(rss))
    elif label not in rows or float(wall) < rows[label][0]:
        rows[label] = (float(wall), int(rss))
        cpu[label] = float(user) + float(system)
floor = rows["cmark-gfm"][0]
batch = rows["cmark-gfm-batch"][0]
hugo = rows["hugo"][0] if "hugo" in rows else 0
for label in ("flowspec", "cmark-gfm", "cmark-gfm-batch", "hugo"):
    if label not in rows:
        print("| %d | %s | not installed | | | | | |" % (n, label))
        continue
    wall, rss = rows[label]
    pps = n / wall if wall > 0 else float("inf")
    print("| %d | %s | %.2f | %.0f | %.0f | %.2f | %.2f | %s |" % (n, label, wall, rss / 1024, pps, wall / floor if floor else 0,
          wall / batch if batch else 0, "%.2f" % (wall / hugo) if hugo else "—"))
walls = sorted(w for w, _ in incremental)
rss = max(r for _, r in incremental)
print("| %d | flowspec, 1 flow changed, first rebuild after a build into an empty folder | %.3f | %.0f | | | | |" % (n, first_rebuild[0], first_rebuild[1] / 1024))
print("| %d | flowspec, 1 flow changed (best / median of %d) | %.3f / %.3f | %.0f | | | | |" % (n, len(walls), walls[0], walls[len(walls) // 2], rss / 1024))
served = sorted(int(line) / 1000 for line in open(sys.argv[4]) if line.strip())
if served:
    print("| %d | flowspec serve, 1 flow changed (best / median of %d; its log) | %.3f / %.3f | | | | | |" % (n, len(served), served[0], served[len(served) // 2]))
else:
    print("| %d | flowspec serve, 1 flow changed | did not rebuild | | | | | |" % n)
with open(sys.argv[3], "a") as notes:
    notes.write("%d flows: CPU (user + system) per flow built: flowspec %.2f ms, cmark-gfm-batch %.2f ms\n"
                % (n, cpu["flowspec"] / n * 1000, cpu["cmark-gfm-batch"] / n * 1000))
    def median(values):
        values = sorted(values)
        return values[len(values) // 2] if len(values) % 2 else (values[len(values) // 2 - 1] + values[len(values) // 2]) / 2
    for anchor in ("cmark-gfm-batch", "hugo"):
        pairs = list(zip(rounds.get("flowspec", []), rounds.get(anchor, [])))
        if pairs:
            notes.write("%d flows: flowspec / %s, round by round: %s (median %.2f)\n"
                        % (n, anchor, ", ".join("%.2f" % (a / b) for a, b in pairs), median([a / b for a, b in pairs])))
PY
  mv "$dir" "$WORK/trash/n$n"
done
echo
cat "$WORK/cpu-notes"

# Instructions (callgrind): stable whatever the machine's load. Per flow built is the difference
# between builds of 30 and 10 generated flows, over 20 (start-up left out), next to the cmark-gfm
# batch over the same Markdown; then one changed flow rebuilt among the 30.
if command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null; then
  . "$ROOT/bench/valgrind/callgrind.sh"
  mkdir -p "$WORK/cg"
  callgrind_setup "$WORK/cg" "$FLOWSPEC"
  declare -A ins
  for n in 10 30; do
    generate "$n" "$WORK/i$n"
    ins[build$n]=$(instructions "build$n" "$vg_bin" build "$WORK/i$n/flows" --out "$WORK/i$n/site" --config "$WORK/i$n/site.yml" --clean)
    cat "$WORK/i$n"/md/*.md > "$WORK/i$n/all.md"
    ins[cmark$n]=$(instructions "cmark$n" cmark-gfm -e table -e strikethrough -e autolink "$WORK/i$n/all.md")
  done
  sed -i "0,/^title: /s/^title: \(.*\)$/title: \1 (edit)/" "$WORK/i30/flows/flow-00000.md"
  rebuild=$(instructions rebuild "$vg_bin" build "$WORK/i30/flows" --out "$WORK/i30/site" --config "$WORK/i30/site.yml")
  served=$(serve_instructions serve "$WORK/i30")
  python3 - "${ins[build10]}" "${ins[build30]}" "${ins[cmark10]}" "${ins[cmark30]}" "$rebuild" "$served" <<'PY'
import sys
b10, b30, c10, c30, rebuild, served = map(int, sys.argv[1:])
if b10 <= 0 or b30 <= 0:
    print("instructions: callgrind could not run flowspec here")
    sys.exit(0)
flow, cmark = (b30 - b10) / 20, (c30 - c10) / 20
print("instructions (callgrind), per flow built (30 flows less 10, over 20): flowspec %.1f M, cmark-gfm batch %.2f M (%.0fx);"
      % (flow / 1e6, cmark / 1e6, flow / cmark if cmark > 0 else 0))
print("  a build of 30: %.0f M; one changed flow of 30 rebuilt: %.0f M (%.1f flows' worth)" % (b30 / 1e6, rebuild / 1e6, rebuild / flow if flow > 0 else 0))
if served > 0:
    print("  the same edit rebuilt by serve (warm, in place): %.0f M (%.1f flows' worth)" % (served / 1e6, served / flow if flow > 0 else 0))
else:
    print("  the same edit rebuilt by serve: callgrind could not run it")
PY
else
  echo "instructions: valgrind is not installed (scripts/setup.sh --bench)"
fi
