// cmark-gfm 0.29 (Debian's) keeps the inline parser's special characters in process-wide
// arrays. `cmark_parser_finish` calls `cmark_manage_extensions_special_characters(parser, 1)`
// to mark the attached extensions' characters (`~`, `:`, `w`...) before it parses inlines, and
// `(parser, 0)` to clear them after: two parsers finishing at once let one clear them under the
// other. flowspec attaches the same extensions to every parser (CmarkDocument), so the marks can
// be set once and kept: this definition replaces the library's (which it reaches through
// dlsym(RTLD_NEXT)), marks on the first call and never clears. The first parse runs under the
// caller's lock; once `flowspec_cmark_special_characters_kept` says so, the others need none.
// A parser with another set of inline extensions has its characters marked too (they then
// stay marked, which a parser without those extensions reads as plain text: cmark joins the
// split text nodes back). Later cmark-gfm keeps the table per parser and needs none of this.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmark-gfm.h>
#include <cmark-gfm-extension_api.h>
#include "CCmarkInlines.h"

typedef void (*manage_function)(cmark_parser *parser, int add);

enum { marked_capacity = 16 };
// The extensions whose characters are marked: appended under `marking`, each entry written
// before the count that publishes it, so a reader needs no lock.
static void *marked[marked_capacity];
static atomic_int marked_count = 0;
static atomic_flag marking = ATOMIC_FLAG_INIT;

int flowspec_cmark_special_characters_kept(void) { return atomic_load(&marked_count) > 0; }

static int is_marked(void *extension) {
    int count = atomic_load_explicit(&marked_count, memory_order_acquire);
    for (int index = 0; index < count; index++) {
        if (marked[index] == extension) return 1;
    }
    return 0;
}

// Whether the characters of every extension `parser` has are marked.
static int all_marked(cmark_parser *parser) {
    for (cmark_llist *item = cmark_parser_get_syntax_extensions(parser); item != NULL; item = item->next) {
        if (!is_marked(item->data)) return 0;
    }
    return 1;
}

void cmark_manage_extensions_special_characters(cmark_parser *parser, int add) {
    if (!add || all_marked(parser)) return;
    while (atomic_flag_test_and_set_explicit(&marking, memory_order_acquire)) {}
    manage_function original = (manage_function)dlsym(RTLD_NEXT, "cmark_manage_extensions_special_characters");
    if (original == NULL) {
        // cmark calls this definition, yet its own cannot be found: no character could be
        // marked, and every autolink and strikethrough would silently go. Never seen with the
        // shared library this is built against; stop rather than render wrong pages.
        fputs("flowspec: cmark-gfm's cmark_manage_extensions_special_characters not found\n", stderr);
        abort();
    }
    original(parser, 1);
    for (cmark_llist *item = cmark_parser_get_syntax_extensions(parser); item != NULL; item = item->next) {
        int count = atomic_load_explicit(&marked_count, memory_order_relaxed);
        if (count == marked_capacity) break;
        if (is_marked(item->data)) continue;
        marked[count] = item->data;
        atomic_store_explicit(&marked_count, count + 1, memory_order_release);
    }
    atomic_flag_clear_explicit(&marking, memory_order_release);
}
