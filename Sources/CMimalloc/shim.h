#ifndef FLOWSPEC_CMIMALLOC_SHIM_H
#define FLOWSPEC_CMIMALLOC_SHIM_H
// mimalloc (Debian's libmimalloc-dev): linked, it is the whole process's malloc; its options
// are set through this module.
#include <mimalloc.h>
#endif
