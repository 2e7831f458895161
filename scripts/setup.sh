#!/usr/bin/env bash
# Installs what flowspec needs on a Debian machine, only when missing. Idempotent.
#   scripts/setup.sh            build + run needs: libcmark-gfm(-extensions)-dev, libssl-dev, libmimalloc-dev
#                               (the allocator the binary links: docs/architecture.md), pkg-config
#   scripts/setup.sh --test     also what the tests drive: chromium, libxml2-utils (xmllint), graphviz,
#                               poppler-utils (pdftotext: the print test reads the PDF)
#   scripts/setup.sh --bench    also the benchmark anchors: hugo, cmark-gfm, time, wrk
#   scripts/setup.sh --bench-ci the anchors of the benches' CI mode: cmark-gfm, time, wrk, valgrind
set -euo pipefail

want=(libcmark-gfm-dev libcmark-gfm-extensions-dev libssl-dev libmimalloc-dev pkg-config)
for arg in "$@"; do
  case "$arg" in
    --test) want+=(chromium libxml2-utils graphviz fonts-dejavu-core poppler-utils) ;;
    --bench) want+=(hugo cmark-gfm time wrk valgrind) ;;
    --bench-ci) want+=(cmark-gfm time wrk valgrind) ;;
    *) echo "setup.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

missing=()
for package in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install ${missing[*]}" >&2; exit 2; }
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The report and export tests validate JSON against their schemas with Python's jsonschema.
if printf '%s\n' "$@" | grep -qx -- --test; then
  command -v python3 >/dev/null || { echo "setup: python3 is needed by the tests" >&2; exit 2; }
  python3 -c 'import jsonschema' 2>/dev/null || python3 -m pip install -q jsonschema
  # The OpenAPI lint tests validate openapi/*.yaml with an independent validator.
  if ! python3 -c 'import openapi_spec_validator' 2>/dev/null; then
    if ! pip_out=$(python3 -m pip install -q openapi-spec-validator 2>&1); then
      grep -q externally-managed <<<"$pip_out" || { printf '%s\n' "$pip_out" >&2; exit 2; }
      python3 -m pip install -q --break-system-packages openapi-spec-validator
    fi
  fi
  # The interop test runs an independent reference backend (Tests/FlowCheckTests/Fixtures/interop/):
  # Flask + PyJWT, with cryptography for RS256. Fall back to --break-system-packages only when pip
  # refuses an externally-managed environment.
  if ! python3 -c 'import flask, jwt, cryptography' 2>/dev/null; then
    if ! pip_out=$(python3 -m pip install -q flask pyjwt cryptography 2>&1); then
      grep -q externally-managed <<<"$pip_out" || { printf '%s\n' "$pip_out" >&2; exit 2; }
      python3 -m pip install -q --break-system-packages flask pyjwt cryptography
    fi
  fi
  # The Arazzo tests (Tests/FlowExportTests) validate exports with openapi-spec-validator and run
  # them with arazzo-runner, the PyPI Arazzo runner.
  if ! python3 -c 'import arazzo_runner, openapi_spec_validator, yaml' 2>/dev/null; then
    if ! pip_out=$(python3 -m pip install -q arazzo-runner openapi-spec-validator pyyaml 2>&1); then
      grep -q externally-managed <<<"$pip_out" || { printf '%s\n' "$pip_out" >&2; exit 2; }
      python3 -m pip install -q --break-system-packages arazzo-runner openapi-spec-validator pyyaml
    fi
  fi
fi

command -v swift >/dev/null || { echo "setup: swift is not on PATH (Swift 6.x toolchain required)" >&2; exit 2; }
pkg-config --exists libcmark-gfm || { echo "setup: pkg-config cannot find libcmark-gfm" >&2; exit 2; }
