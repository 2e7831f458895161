#!/usr/bin/env bash
# Rewrites Tests/FlowSiteTests/Golden/site and Tests/FlowCheckTests/GoldenVerdicts from the current code: run it only when a change to
# the site's output is intended, and review `git diff Tests/FlowSiteTests/Golden` before committing.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests
FLOWSPEC_UPDATE_GOLDEN=1 swift test --skip-build --filter "GoldenSiteTests|verdictsMatchTheCommittedList"
git status --short Tests/FlowSiteTests/Golden Tests/FlowCheckTests/GoldenVerdicts | head
