/* Preloaded into flowspec when the benches run it under valgrind (bench/check-bench.sh).
 *
 * valgrind's rt_sigsuspend wrapper edits the caller's signal mask in place, to keep its own
 * signals deliverable; libdispatch's dispatch_main, which a Swift async main ends in, passes
 * sigsuspend a `static const` mask in read-only memory, and valgrind dies on the write (an
 * internal SIGSEGV, si_code 2, at the mask's address). This sigsuspend passes a copy on the
 * stack. Measurement only: nothing of flowspec links it. */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, sizeof(unsigned long));
}
