#!/usr/bin/env bash
# OpenAPI bench: what a description costs every command that lints a flow naming it (`lint`,
# `build`, `check`), by the description's size, next to Python's openapi-spec-validator on the
# same file and the YAML load alone (libyaml's C loader): the anchors of the same run.
#
#   bench/openapi-bench.sh              sizes 1 10 50 200 (copies of openapi/tvl-backend.yaml's
#                                       paths: 6.6 KB … 1 MB), best of 3
#   bench/openapi-bench.sh 50           one size
#   FLOWSPEC=path/to/flowspec bench/openapi-bench.sh
#   bench/openapi-bench.sh --ci         CI's figures: sizes 1 and 10, one run; reports, never fails
#
# Needs: a release build of flowspec (swift build -c release --static-swift-stdlib), python3 with PyYAML; the anchor
# columns need openapi-spec-validator (scripts/setup.sh --test installs both).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
FLOWSPEC=${FLOWSPEC:-$ROOT/.build/release/flowspec}
RUNS=${RUNS:-3}
if [ "${1:-}" = "--ci" ]; then shift; RUNS=1; set -- 1 10; fi
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(1 10 50 200)
command -v "$FLOWSPEC" >/dev/null || { echo "missing: $FLOWSPEC (swift build -c release --static-swift-stdlib)" >&2; exit 2; }
python3 -c 'import yaml' 2>/dev/null || { echo "missing: PyYAML (scripts/setup.sh --test)" >&2; exit 2; }
validator=0
python3 -c 'import openapi_spec_validator' 2>/dev/null && validator=1
WORK=$(mktemp -d "${TMPDIR:-/tmp}/flowspec-openapi-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/flows" "$WORK/openapi"
cp "$ROOT/flows/apple-refresh-revoke.md" "$WORK/flows/"

# describe N: openapi/tvl-N.yaml, tvl-backend.yaml with its paths repeated N times (ids kept unique).
describe() {
  python3 - "$ROOT/openapi/tvl-backend.yaml" "$1" "$WORK/openapi/tvl-$1.yaml" <<'PY'
import copy, sys, yaml
source, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
doc = yaml.safe_load(open(source, encoding="utf-8"))
paths = {}
for k in range(n):
    for path, item in doc["paths"].items():
        item = copy.deepcopy(item)
        for operation in item.values():
            if k and isinstance(operation, dict) and "operationId" in operation:
                operation["operationId"] += str(k)
        paths[path if k == 0 else "/copy%d%s" % (k, path)] = item
doc["paths"] = paths
open(out, "w", encoding="utf-8").write(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
PY
}

# best CMD...: the fastest of RUNS wall times, in seconds.
best() {
  local fastest="" start end elapsed
  for _ in $(seq "$RUNS"); do
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; return 1; }
    end=$(date +%s%N)
    elapsed=$(( (end - start) / 1000000 ))
    if [ -z "$fastest" ] || [ "$elapsed" -lt "$fastest" ]; then fastest=$elapsed; fi
  done
  printf '%d.%03d' $((fastest / 1000)) $((fastest % 1000))
}

echo "| description | size | flowspec lint (wall, best of $RUNS) | openapi-spec-validator | YAML load alone (libyaml) |"
echo "|---|---:|---:|---:|---:|"
for n in "${SIZES[@]}"; do
  describe "$n"
  file="$WORK/openapi/tvl-$n.yaml"
  sed -i "s#^openapi: .*#openapi: ../openapi/tvl-$n.yaml#" "$WORK/flows/apple-refresh-revoke.md"
  size=$(( $(wc -c <"$file") / 1024 ))
  lint=$(best "$FLOWSPEC" lint "$WORK/flows")
  load=$(best python3 -c 'import sys, yaml; yaml.load(open(sys.argv[1]), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))' "$file")
  if [ "$validator" = 1 ]; then
    validate=$(best python3 -c 'import sys, yaml; from openapi_spec_validator import validate; validate(yaml.load(open(sys.argv[1]), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))' "$file")
    validate="$validate s"
  else
    validate="(not installed)"
  fi
  echo "| tvl-backend paths ×$n | $size KB | $lint s | $validate | $load s |"
done
echo
echo "Each figure is a whole command: Python's include its interpreter's start and imports. flowspec lint decodes"
echo "the description with OpenAPIKit through Yams and validates it (docs/benchmarks.md, site)."
