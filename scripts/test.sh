#!/usr/bin/env bash
# The whole test suite, set-up included: installs the system packages the tests need when
# missing (cmark-gfm, OpenSSL, Chromium for the browser test, xmllint for the JUnit schema),
# builds, and runs every test. Exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh --test || exit $?
mkdir -p test-artifacts
echo "== swift build --build-tests"
swift build --build-tests > test-artifacts/swift-build.log 2>&1
build=$?
grep -E 'error|warning: ' test-artifacts/swift-build.log | grep -v "unhandled; explicitly declare" | sort -u | head -50
if [ "$build" -ne 0 ]; then
  tail -40 test-artifacts/swift-build.log
  echo "build failed" >&2
  exit "$build"
fi
echo "== swift test"
swift test --skip-build 2>&1 | tee test-artifacts/swift-test.log | grep -E '^(✘|✔ Test run|✘ Test run)|recorded an issue|Fatal error|error:' 
status=${PIPESTATUS[0]}
passed=$(grep -cE '^✔ Test .* passed' test-artifacts/swift-test.log)
failed=$(grep -cE '^✘ Test .* failed' test-artifacts/swift-test.log)
# Suite and run summary lines are not tests.
passed=$((passed - $(grep -cE '^✔ Test run with' test-artifacts/swift-test.log)))
failed=$((failed - $(grep -cE '^✘ Test run with' test-artifacts/swift-test.log)))
echo "$passed passed, $failed failed"
exit "$status"
