// Declarations only (include/CFuzzer.h); SwiftPM needs one source file per C target.
#include "CFuzzer.h"
