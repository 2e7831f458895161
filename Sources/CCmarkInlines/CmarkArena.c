// A bump allocator for cmark-gfm's documents, one per thread (CmarkDocument). cmark-gfm takes
// its allocator as a `cmark_mem` of three functions without a context, so the arena is the
// calling thread's. A document's nodes, buffers and parser come from it; `free` does nothing,
// and when the thread's last open document closes, the whole arena is reused at once: no
// tree walk to free the nodes one by one, no allocator call per node. The library is built to
// work so: it ships an arena of its own (`cmark_get_arena_mem_allocator`), process-wide and not
// thread-safe, hence this one.
//
// The one rule: a document is opened, used and closed on one thread (CmarkDocument lives inside
// one synchronous call). A document closed on another thread leaves its arena open for good:
// that thread's memory then grows, but none is reused under a live tree.
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmark-gfm.h>
#include "CCmarkInlines.h"

// Under AddressSanitizer (the fuzz targets' build) the arena poisons what no live block holds:
// block headers, the unused part of each chunk, and every chunk once it is reused, so a read
// past a block or of a document already closed is reported as it would be with malloc.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define ARENA_ASAN 1
#endif
#ifdef ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(start, size) ASAN_POISON_MEMORY_REGION((start), (size))
#define UNPOISON(start, size) ASAN_UNPOISON_MEMORY_REGION((start), (size))
#else
#define POISON(start, size) ((void)0)
#define UNPOISON(start, size) ((void)0)
#endif

enum {
    alignment = 16,
    // Each block starts with its capacity, in a header that keeps the block aligned.
    header_size = 16,
    chunk_size = 128 * 1024,
    // A block larger than this gets a chunk of its own, freed when the arena is reused.
    large_block = chunk_size / 4,
    // Chunks kept for the next documents of the thread (2 MiB).
    spare_limit = 16,
};

typedef struct chunk {
    struct chunk *next;
    size_t size;
    _Alignas(alignment) unsigned char data[];
} chunk;

struct flowspec_cmark_arena {
    chunk *current;  // where blocks are cut, from `cursor` up to `limit`
    chunk *done;     // full chunks and large blocks' chunks, since the arena was last reused
    chunk *spare;    // empty chunks of chunk_size
    int spare_count;
    int open;        // documents open on the thread
};

static pthread_key_t arena_key;
static pthread_once_t arena_key_once = PTHREAD_ONCE_INIT;
static _Thread_local flowspec_cmark_arena *thread_arena;
// The free part of the thread's current chunk (both NULL before its first block).
static _Thread_local unsigned char *cursor, *limit;

static void free_list(chunk *list) {
    while (list != NULL) {
        chunk *next = list->next;
        free(list);
        list = next;
    }
}

// At the thread's exit (the key's destructor runs on the exiting thread): its chunks are freed,
// and an allocation after this one, by a later destructor, would start a new arena.
static void destroy_arena(void *value) {
    flowspec_cmark_arena *arena = value;
    free_list(arena->current);
    free_list(arena->done);
    free_list(arena->spare);
    free(arena);
    if (thread_arena == arena) {
        thread_arena = NULL;
        cursor = limit = NULL;
    }
}

static void make_key(void) { pthread_key_create(&arena_key, destroy_arena); }

static void out_of_memory(void) {
    fputs("[cmark] arena allocation failed, aborting\n", stderr);
    abort();
}

static flowspec_cmark_arena *this_thread_arena(void) {
    if (thread_arena == NULL) {
        pthread_once(&arena_key_once, make_key);
        flowspec_cmark_arena *arena = calloc(1, sizeof *arena);
        if (arena == NULL) out_of_memory();
        pthread_setspecific(arena_key, arena);
        thread_arena = arena;
    }
    return thread_arena;
}

static chunk *new_chunk(size_t size) {
    chunk *made = malloc(sizeof(chunk) + size);
    if (made == NULL) out_of_memory();
    made->next = NULL;
    made->size = size;
    POISON(made->data, size);
    return made;
}

__attribute__((always_inline)) static inline size_t rounded(size_t size) {
    if (size > SIZE_MAX - header_size - alignment) out_of_memory();
    return (size + alignment - 1) & ~(size_t)(alignment - 1);
}

// Where a block of `needed` bytes (header included) is cut when the current chunk has no room
// for it: a chunk of its own for a large block, else the next chunk.
__attribute__((noinline)) static unsigned char *cut_elsewhere(size_t needed) {
    flowspec_cmark_arena *arena = this_thread_arena();
    if (needed > large_block) {
        chunk *own = new_chunk(needed);
        own->next = arena->done;
        arena->done = own;
        return own->data;
    }
    if (arena->current != NULL) {
        arena->current->next = arena->done;
        arena->done = arena->current;
    }
    chunk *next = arena->spare;
    if (next != NULL) {
        arena->spare = next->next;
        arena->spare_count -= 1;
        next->next = NULL;
    } else {
        next = new_chunk(chunk_size);
    }
    arena->current = next;
    cursor = next->data + needed;
    limit = next->data + chunk_size;
    return next->data;
}

// A block of at least `size` bytes, not cleared; its capacity is written before it. Inlined in
// the allocator's functions: most blocks are a bump of the cursor.
__attribute__((always_inline)) static inline void *cut(size_t size) {
    size_t capacity = rounded(size);
    size_t needed = header_size + capacity;
    unsigned char *block;
    if (needed <= (size_t)(limit - cursor)) {
        block = cursor;
        cursor += needed;
    } else {
        block = cut_elsewhere(needed);
    }
    UNPOISON(block, needed);
    *(size_t *)block = capacity;
    POISON(block, header_size);
    return block + header_size;
}

static size_t capacity_of(void *pointer) {
    unsigned char *header = (unsigned char *)pointer - header_size;
    UNPOISON(header, header_size);
    size_t capacity = *(size_t *)header;
    POISON(header, header_size);
    return capacity;
}

static void *arena_calloc(size_t count, size_t size) {
    size_t bytes;
    if (__builtin_mul_overflow(count, size, &bytes)) out_of_memory();
    void *block = cut(bytes);
    memset(block, 0, bytes);
    return block;
}

static void *arena_realloc(void *pointer, size_t size) {
    if (pointer == NULL) return cut(size);
    size_t capacity = capacity_of(pointer);
    if (size <= capacity) return pointer;
    // The last block cut from the current chunk grows where it is when the chunk has room.
    size_t more = rounded(size) - capacity;
    if ((unsigned char *)pointer + capacity == cursor && more <= (size_t)(limit - cursor)) {
        cursor += more;
        unsigned char *header = (unsigned char *)pointer - header_size;
        UNPOISON(header, header_size + capacity + more);
        *(size_t *)header = capacity + more;
        POISON(header, header_size);
        return pointer;
    }
    void *moved = cut(size);
    memcpy(moved, pointer, capacity);
    return moved;
}

static void arena_free(void *pointer) { (void)pointer; }

static cmark_mem arena_mem = {arena_calloc, arena_realloc, arena_free};

void *flowspec_cmark_arena_mem(void) { return &arena_mem; }

flowspec_cmark_arena *flowspec_cmark_arena_open(void) {
    flowspec_cmark_arena *arena = this_thread_arena();
    arena->open += 1;
    return arena;
}

void flowspec_cmark_arena_close(flowspec_cmark_arena *arena) {
    if (arena != thread_arena || arena->open <= 0) return; // another thread's: left open (above)
    arena->open -= 1;
    if (arena->open > 0) return;
    // Every document of the thread is closed: its chunks are reused, a few kept for the next.
    chunk *list = arena->done;
    arena->done = NULL;
    if (arena->current != NULL) {
        arena->current->next = list;
        list = arena->current;
        arena->current = NULL;
    }
    cursor = limit = NULL;
    while (list != NULL) {
        chunk *next = list->next;
        POISON(list->data, list->size);
        if (list->size == chunk_size && arena->spare_count < spare_limit) {
            list->next = arena->spare;
            arena->spare = list;
            arena->spare_count += 1;
        } else {
            free(list);
        }
        list = next;
    }
}
