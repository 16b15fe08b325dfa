/* reader_proc.c: finding and starting the reader programs (reader_proc.h) */
#define _GNU_SOURCE /* dladdr: the file this code was loaded from; pipe2 */
#include "reader_proc.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* 1 when dir or one of the four folders above it holds libexec/hinge/NAME, written into buf */
static int reader_near(const char *dir, const char *name, char *buf, size_t len) {
  char d[PATH_MAX];
  snprintf(d, sizeof d, "%s", dir);
  for (int up = 0; up <= 4; up++) {
    int n = snprintf(buf, len, "%s/libexec/hinge/%s", d, name);
    if (n > 0 && (size_t)n < len && access(buf, X_OK) == 0) return 1;
    char *slash = strrchr(d, '/');
    if (!slash || slash == d) break;
    *slash = '\0';
  }
  return 0;
}

int hg_reader_locate(const char *name, const char *env_var, char *buf, size_t len) {
  const char *env = getenv(env_var);
  if (env && *env) {
    snprintf(buf, len, "%s", env);
    return access(env, X_OK) ? -1 : 0;
  }
  static const char anchor = 0; /* an object of this file, for dladdr */
  char dir[PATH_MAX];
  Dl_info info;
  if (dladdr(&anchor, &info) && info.dli_fname && realpath(info.dli_fname, dir)) {
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    if (reader_near(dir, name, buf, len)) return 0;
  }
  ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
  if (n > 0) {
    dir[n] = '\0';
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    if (reader_near(dir, name, buf, len)) return 0;
  }
  snprintf(buf, len, "libexec/hinge/%s", name);
  return -1;
}

int hg_reader_start(const char *program, char *const argv[], int *out_fd, pid_t *pid) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC)) return errno;
  /* the reader's standard output is the pipe; its input and error output are /dev/null (the
   * libraries it runs may print there) */
  posix_spawn_file_actions_t fa;
  int rc = posix_spawn_file_actions_init(&fa);
  if (!rc) {
    if (!(rc = posix_spawn_file_actions_adddup2(&fa, fds[1], 1)) &&
        !(rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0)) &&
        !(rc = posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0)))
      rc = posix_spawn(pid, program, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
  }
  close(fds[1]);
  if (rc) {
    close(fds[0]);
    return rc;
  }
  *out_fd = fds[0];
  return 0;
}

double hg_reader_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
