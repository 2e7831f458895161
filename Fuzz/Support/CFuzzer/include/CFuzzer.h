#ifndef FLOWSPEC_CFUZZER_H
#define FLOWSPEC_CFUZZER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt FuzzerDriver.cpp, linked by -sanitize=fuzzer). SwiftPM renames
/// an executable's `main` (so tests can link it), which hides libFuzzer's own `main`; each fuzz
/// target therefore has top-level code that calls the driver itself.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
