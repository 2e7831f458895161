import CMimalloc

/// The process's allocator is mimalloc, linked through `CMimalloc` (docs/architecture.md: a
/// full build does 7 % fewer instructions than on glibc's). Its defaults suit a build. A check
/// runs longer, on more threads, and keeps less when the pages it frees go back to the system
/// at once rather than 25 ms later (flows/ ×100: 17.5–21.9 → 16.1–17.0 MiB of anonymous memory;
/// docs/benchmarks.md, "Issue 14, thirteenth step").
enum Allocator {
    static func returnFreedMemoryPromptly() {
        mi_option_set(mi_option_page_reset, 1)
        mi_option_set(mi_option_decommit_delay, 0)
    }
}
