#!/usr/bin/env bash
# The main job on the embedded default: lint the flows, build the documentation site, and
# check every flow against the embedded mock backend (flowspec playing each flow's identity
# provider: Apple, Google, Microsoft…), then overlay the
# check results on the site. Sets the machine up first when something is missing.
#
#   scripts/run.sh                 everything in flows/, site into site/_build/
#   FLOWSPEC_CONFIG=release scripts/run.sh   optimised build (slower to compile, faster to run)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
config="${FLOWSPEC_CONFIG:-debug}"
echo "== building flowspec ($config)"
# A release binary links the Swift runtime statically (it starts in half the time).
static=(); [ "$config" = release ] && static=(--static-swift-stdlib)
swift build -c "$config" "${static[@]}" --product flowspec 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' || true
bin="$(swift build -c "$config" "${static[@]}" --show-bin-path)/flowspec"
[ -x "$bin" ] || { echo "run: build failed" >&2; exit 2; }

mkdir -p .flowspec
echo "== flowspec lint flows/"
"$bin" lint flows
echo "== flowspec check flows/ (embedded mock backend)"
status=0
"$bin" check flows --report json:.flowspec/check-report.json --report junit:.flowspec/check-report.xml || status=$?
echo "== flowspec build flows/ (with the check results)"
"$bin" build flows --results .flowspec/check-report.json
echo "check reports: .flowspec/check-report.json, .flowspec/check-report.xml"
exit "$status"
