/* Runs one command and prints its figures: "wall_s maxrss_kb user_s system_s".
 *
 *   run-once STDERR_FILE CMD [ARG...]
 *
 * The clock (CLOCK_MONOTONIC) is read just before the command is spawned and just after it is
 * reaped, so the figure is the command's own, not also that of the tools that time it: the
 * benches once timed `date +%s%N` around GNU time, two more processes inside the measured span,
 * about 3.5 ms on the 2-core VM. CPU and peak memory are wait4's, as GNU time reports them (the
 * command and the children it waited for). This process is small (about 1 MB), as GNU time
 * is: a spawned child's peak memory counts its parent's until exec, so a harness in Python
 * would report 13 MB for `true`. The command's output goes to /dev/null, its errors to
 * STDERR_FILE; the exit status is 1 when the command failed or could not start. */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double seconds(struct timeval t) { return t.tv_sec + t.tv_usec / 1e6; }

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: run-once STDERR_FILE CMD [ARG...]\n");
        return 2;
    }
    int out = open("/dev/null", O_WRONLY), err = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0) { perror("run-once"); return 2; }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out, 1);
    posix_spawn_file_actions_adddup2(&actions, err, 2);
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t pid;
    int failed = posix_spawnp(&pid, argv[2], &actions, NULL, argv + 2, environ);
    if (failed) { fprintf(stderr, "run-once: %s: %s\n", argv[2], strerror(failed)); return 1; }
    int status;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) < 0) { perror("wait4"); return 1; }
    clock_gettime(CLOCK_MONOTONIC, &end);
    printf("%.6f %ld %.3f %.3f\n", (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9, usage.ru_maxrss,
           seconds(usage.ru_utime), seconds(usage.ru_stime));
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
