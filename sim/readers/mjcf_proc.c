/* mjcf_proc.c: MJCF compiled by MuJoCo in a process of its own (the program hinge-mjcf-reader,
 * mjcf_child.c). MuJoCo 2.2.2's compiler frees memory it never allocated, reads past a buffer or
 * never returns on some mutated files; here any of that, or a swelling, becomes an error of the
 * one file: the reader runs under an address-space, a CPU-time and a no-write limit (it sets them
 * on itself before reading), this side bounds its wall time and its answer, kills it past either,
 * reaps it in every case, and decodes its answer without trusting it (mjcf_frame.c). The process
 * is started as the mesh reader's is (reader_proc.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mjcf.h"
#include "reader_proc.h"

int hg_mjcf_reader_path(char *buf, size_t len) {
  return hg_reader_locate("hinge-mjcf-reader", "HINGE_MJCF_READER", buf, len);
}

/* ---- running it ---- */

/* The whole of fd's stream (to its end) into *buf, *len bytes, before the deadline and within
 * cap bytes. 0; -1 on a read error or out of memory; -2 past the deadline; -3 past the cap. */
static int read_all(int fd, double deadline, size_t cap, unsigned char **buf, size_t *len) {
  size_t size = 0, room = 0;
  unsigned char *b = NULL;
  if (cap > SIZE_MAX / 2) cap = SIZE_MAX / 2; /* cap + 1 below stays representable */
  for (;;) {
    if (size == room) {
      if (room >= cap + 1) {
        free(b);
        return -3;
      }
      size_t grown = room ? 2 * room : 1 << 16;
      if (grown > cap + 1) grown = cap + 1; /* one byte past the cap tells that it is exceeded */
      unsigned char *g = realloc(b, grown);
      if (!g) {
        free(b);
        return -1;
      }
      b = g, room = grown;
    }
    double left = deadline - hg_reader_now();
    if (left <= 0) {
      free(b);
      return -2;
    }
    struct pollfd pfd = {fd, POLLIN, 0};
    int k = poll(&pfd, 1, (int)ceil(left * 1000));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) {
      free(b);
      return -1;
    }
    if (k == 0) continue; /* the deadline check above ends it */
    ssize_t m = read(fd, b + size, room - size);
    if (m < 0 && errno == EINTR) continue;
    if (m < 0) {
      free(b);
      return -1;
    }
    if (m == 0) break;
    size += (size_t)m;
    if (size > cap) {
      free(b);
      return -3;
    }
  }
  *buf = b, *len = size;
  return 0;
}

/* Reaps pid, waiting until the deadline (it has closed its output: it is ending), then kills it.
 * Returns its status through *status; 0, or -1 when it had to be killed. */
static int reap(pid_t pid, double deadline, int *status) {
  for (;;) {
    pid_t w = waitpid(pid, status, WNOHANG);
    if (w == pid) return 0;
    if (w < 0 && errno != EINTR) return 0; /* not our child any more: nothing to reap */
    if (hg_reader_now() >= deadline) break;
    struct timespec pause = {0, 1000000}; /* 1 ms */
    nanosleep(&pause, NULL);
  }
  kill(pid, SIGKILL);
  while (waitpid(pid, status, 0) < 0 && errno == EINTR) continue;
  return -1;
}

void hg_mjcf_error_text(const char *path, const char *msg, hg_error *err) {
  int line = 0;
  const char *s = strstr(msg, "line ");
  char text[400];
  size_t n = strcspn(msg, "\n");
  if (s) {
    s += 5;
    if (*s == '=') s++;
    while (*s == ' ') s++;
    long v = strtol(s, NULL, 10); /* the reader's text: any number, bounded here */
    line = v > 0 && v < INT_MAX ? (int)v : 0;
  }
  if (n >= sizeof text) n = sizeof text - 1;
  memcpy(text, msg, n);
  text[n] = 0;
  if (line > 0)
    hg_error_set(err, "%s:%d: %s", path, line, text);
  else
    hg_error_set(err, "%s: %s", path, text);
}

int hg_mjcf_compile(const char *path, const hg_mjcf_isolation *given, hg_mjcf_compiled *out,
                    hg_error *err) {
  hg_mjcf_isolation iso = {NULL, HG_MJCF_READER_MEMORY, HG_MJCF_READER_CPU, HG_MJCF_READER_WALL,
                           HG_MJCF_READER_OUTPUT};
  char helper[PATH_MAX], why[HG_MJCF_FRAME_MSG + 64] = "";
  memset(out, 0, sizeof *out);
  if (given) iso = *given;
  if (iso.helper)
    snprintf(helper, sizeof helper, "%s", iso.helper);
  else if (hg_mjcf_reader_path(helper, sizeof helper))
    return hg_error_fail(err,
                         "%s: cannot read MJCF (the MJCF reader %s is not installed beside "
                         "hinge; HINGE_MJCF_READER may name it)",
                         path, helper);
  char mem[32], cpu[32];
  snprintf(mem, sizeof mem, "%zu", iso.memory_bytes);
  snprintf(cpu, sizeof cpu, "%.0f", ceil(iso.cpu_seconds));
  char *argv[] = {helper, mem, cpu, (char *)path, NULL};

  int fd;
  pid_t pid = -1;
  int rc = hg_reader_start(helper, argv, &fd, &pid);
  if (rc)
    return hg_error_fail(err, "%s: cannot read MJCF (cannot start %s: %s)", path, helper,
                         strerror(rc));

  double deadline = hg_reader_now() + iso.wall_seconds;
  unsigned char *buf = NULL;
  size_t len = 0;
  int got = read_all(fd, deadline, iso.output_bytes, &buf, &len), read_errno = errno;
  close(fd);
  /* a reader that has not ended by now is killed: past its time or its output, or it closed its
   * output and did not end */
  int status = 0;
  if (got < 0) kill(pid, SIGKILL);
  int killed = reap(pid, got < 0 ? hg_reader_now() : deadline, &status) != 0;
  if (got == -2 || (got == 0 && killed)) {
    free(buf);
    return hg_error_fail(err, "%s: MuJoCo's MJCF compiler timed out (more than %g s)", path,
                         iso.wall_seconds);
  }
  if (got == -3)
    return hg_error_fail(err, "%s: MuJoCo's compiled model is larger than hinge's limit of %zu MiB",
                         path, iso.output_bytes >> 20);
  if (WIFSIGNALED(status) && got == 0) {
    int sig = WTERMSIG(status);
    free(buf);
    /* SIGXCPU at the soft CPU limit, SIGKILL at the hard one a second later */
    if (sig == SIGXCPU)
      return hg_error_fail(err, "%s: MuJoCo's MJCF compiler timed out (more than %g s of CPU time)",
                           path, ceil(iso.cpu_seconds));
    if (sig == SIGKILL)
      return hg_error_fail(err, "%s: MuJoCo's MJCF compiler was killed (signal %d: past its CPU-time "
                           "limit of %g s, or by the system)", path, sig, ceil(iso.cpu_seconds));
    return hg_error_fail(err, "%s: MuJoCo's MJCF compiler crashed (signal %d)", path, sig);
  }
  if (got < 0)
    return hg_error_fail(err, "%s: cannot read MJCF (reading the reader's answer: %s)", path,
                         strerror(read_errno));
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  int kind = hg_mjcf_frame_decode(buf, len, out, why, sizeof why);
  free(buf);
  if (kind == 1 && code == 1) {
    hg_mjcf_error_text(path, why[0] ? why : "MuJoCo could not read the file", err);
    return -1;
  }
  if (kind == 0 && code == 0) return 0;
  hg_mjcf_compiled_free(out);
  if (kind < 0)
    return hg_error_fail(err, "%s: cannot read MJCF (the reader's answer is malformed: %s; it "
                         "exited with status %d)", path, why, code);
  return hg_error_fail(err, "%s: cannot read MJCF (the reader exited with status %d after its "
                       "answer)", path, code);
}
