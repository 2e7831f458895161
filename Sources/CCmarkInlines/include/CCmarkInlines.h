#ifndef FLOWSPEC_CCMARKINLINES_H
#define FLOWSPEC_CCMARKINLINES_H

/// 1 once `cmark_manage_extensions_special_characters` (CCmarkInlines.c) has replaced libcmark-gfm's (the
/// library calls it through its procedure linkage table, so the executable's definition wins)
/// and the extensions' special characters are set for good; 0 before, or when the library
/// binds its own definition (then every inline parse stays under the caller's lock).
int flowspec_cmark_special_characters_kept(void);

/// The calling thread's arena for cmark-gfm's documents (CmarkArena.c).
typedef struct flowspec_cmark_arena flowspec_cmark_arena;

/// The `cmark_mem` (as `void *`) whose blocks come from the calling thread's arena; its `free`
/// does nothing.
void *flowspec_cmark_arena_mem(void);

/// One more document open on the calling thread: its arena is not reused until it closes.
flowspec_cmark_arena *flowspec_cmark_arena_open(void);

/// The document opened with `arena` is done, on the thread that opened it; when no document of
/// the thread is open, the arena's memory is reused. On another thread it does nothing.
void flowspec_cmark_arena_close(flowspec_cmark_arena *arena);

#endif
