/* controller_proc.c: an external process as a controller, in lockstep through pipes. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE  /* pipe2: pipes born close-on-exec, so no other thread's child inherits them */
#endif
#include "controller_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

typedef struct proc {
  pid_t pid;
  int to_child;    /* the child's stdin (hinge writes), -1 once closed */
  int from_child;  /* the child's stdout (hinge reads), -1 once closed */
  char *command;
  double timeout;
  double allow;    /* this step's limit: timeout, or before the first answer at least
                      HG_CTL_PROC_STARTUP (the child may still be starting) */
  int answered;    /* the child has answered a step */
  int nin, nout;
  int reaped;      /* the child has been waited for; status holds how it ended */
  int status;
  int killed;      /* hinge killed it */
  int failed;      /* a step failed: the child is gone */
  char *rbuf;      /* bytes read and not yet consumed */
  size_t rlen, rcap;
  char *wbuf;      /* the step line */
  size_t wcap;
} proc;

static void msg(char *err, size_t errlen, const char *fmt, ...)
{
  if (!err || errlen == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void nap(double s)
{
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* milliseconds left until deadline for poll, at least 0, rounded up */
static int ms_left(double deadline)
{
  double left = deadline - now();
  if (left <= 0) return 0;
  if (left > 1e6) return 1000000000;
  return (int)ceil(left * 1e3);
}

/* ---- the child's end ---- */

/* waits up to wait seconds for the child to exit; kills its group when it has not */
static void reap(proc *p, double wait)
{
  if (p->reaped || p->pid <= 0) return;
  double deadline = now() + wait;
  for (;;) {
    pid_t r = waitpid(p->pid, &p->status, WNOHANG);
    if (r == p->pid || (r < 0 && errno != EINTR)) {
      p->reaped = 1;
      if (r < 0) p->status = -1;
      return;
    }
    if (now() >= deadline) break;
    nap(0.005);
  }
  kill(-p->pid, SIGKILL);
  kill(p->pid, SIGKILL);
  p->killed = 1;
  while (waitpid(p->pid, &p->status, 0) < 0) {
    if (errno != EINTR) {
      p->status = -1;
      break;
    }
  }
  p->reaped = 1;
}

/* how the child ended, after reap */
static void ended(const proc *p, char *s, size_t n)
{
  if (p->killed)
    snprintf(s, n, "it was still running: hinge killed it");
  else if (p->status == -1)
    snprintf(s, n, "its exit status is unknown");
  else if (WIFEXITED(p->status))
    snprintf(s, n, "it exited with status %d", WEXITSTATUS(p->status));
  else if (WIFSIGNALED(p->status))
    snprintf(s, n, "it was killed by signal %d (%s)", WTERMSIG(p->status),
             strsignal(WTERMSIG(p->status)));
  else
    snprintf(s, n, "it ended with wait status %d", p->status);
}

/* a failure: the child is ended (wait seconds to exit on its own first) and the message says
 * what happened and how it ended */
static void fail(proc *p, double wait, char *err, size_t errlen, const char *fmt, ...)
{
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (p->to_child >= 0) close(p->to_child);
  p->to_child = -1;
  reap(p, wait);
  if (p->from_child >= 0) close(p->from_child);
  p->from_child = -1;
  p->failed = 1;
  char how[160];
  ended(p, how, sizeof how);
  msg(err, errlen, "external process '%s' %s (%s)", p->command, what, how);
}

/* ---- writing and reading with a deadline ---- */

/* writes n bytes before deadline: 0, or -1 (EPIPE: 1 in *closed; else a timeout or an error,
 * its text in why) */
static int put(proc *p, const char *s, size_t n, double deadline, int *closed, char *why,
               size_t whylen)
{
  *closed = 0;
  /* SIGPIPE stays blocked while hinge writes; one this write raises is consumed below */
  sigset_t pipe_set, old, pending;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  sigemptyset(&pending);
  sigpending(&pending);
  int was_pending = sigismember(&pending, SIGPIPE);
  int rc = 0;
  while (n > 0) {
    ssize_t w = write(p->to_child, s, n);
    if (w > 0) {
      s += w;
      n -= (size_t)w;
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EPIPE) {
      *closed = 1;
      rc = -1;
      break;
    }
    if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      snprintf(why, whylen, "could not be written to (%s)", strerror(errno));
      rc = -1;
      break;
    }
    struct pollfd pf = {p->to_child, POLLOUT, 0};
    int ms = ms_left(deadline);
    if (ms == 0) {
      snprintf(why, whylen, "did not read its input within %g s", p->allow);
      rc = -1;
      break;
    }
    int r = poll(&pf, 1, ms);
    if (r < 0 && errno != EINTR) {
      snprintf(why, whylen, "could not be written to (poll: %s)", strerror(errno));
      rc = -1;
      break;
    }
    if (r > 0 && (pf.revents & (POLLERR | POLLHUP)) && !(pf.revents & POLLOUT)) {
      *closed = 1;
      rc = -1;
      break;
    }
  }
  if (*closed && !was_pending) {
    struct timespec zero = {0, 0};
    while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc;
}

/* reads one line before deadline: 0 and *line (NUL-terminated, without its '\n'; valid until
 * the next read) and *used (bytes to consume), or -1: 1 in *closed at end of file, else a
 * timeout or an error with its text in why */
static int get_line(proc *p, double deadline, char **line, size_t *used, int *closed, char *why,
                    size_t whylen)
{
  *closed = 0;
  size_t scanned = 0;
  for (;;) {
    char *nl = memchr(p->rbuf + scanned, '\n', p->rlen - scanned);
    if (nl) {
      *nl = '\0';
      *line = p->rbuf;
      *used = (size_t)(nl - p->rbuf) + 1;
      return 0;
    }
    scanned = p->rlen;
    if (p->rlen >= HG_CTL_PROC_MAX_LINE) {
      snprintf(why, whylen, "wrote a line longer than %d bytes", HG_CTL_PROC_MAX_LINE);
      return -1;
    }
    if (p->rcap - p->rlen < 4096) {
      size_t cap = p->rcap * 2;
      if (cap > HG_CTL_PROC_MAX_LINE + 4096) cap = HG_CTL_PROC_MAX_LINE + 4096;
      char *b = realloc(p->rbuf, cap + 1);
      if (!b) {
        snprintf(why, whylen, "wrote more than hinge could hold (out of memory)");
        return -1;
      }
      p->rbuf = b;
      p->rcap = cap;
    }
    ssize_t r = read(p->from_child, p->rbuf + p->rlen, p->rcap - p->rlen);
    if (r > 0) {
      p->rlen += (size_t)r;
      continue;
    }
    if (r == 0) {
      *closed = 1;
      return -1;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      snprintf(why, whylen, "could not be read from (%s)", strerror(errno));
      return -1;
    }
    int ms = ms_left(deadline);
    if (ms == 0) {
      snprintf(why, whylen, "did not answer within %g s", p->allow);
      return -1;
    }
    struct pollfd pf = {p->from_child, POLLIN, 0};
    if (poll(&pf, 1, ms) < 0 && errno != EINTR) {
      snprintf(why, whylen, "could not be read from (poll: %s)", strerror(errno));
      return -1;
    }
  }
}

static void consume(proc *p, size_t used)
{
  memmove(p->rbuf, p->rbuf + used, p->rlen - used);
  p->rlen -= used;
}

/* ---- the controller's functions ---- */

/* a line's start, quoted for a message (at most 60 characters) */
static void quote(const char *line, char *s, size_t n)
{
  size_t len = strlen(line);
  snprintf(s, n, "'%.60s%s'", line, len > 60 ? "..." : "");
}

static int proc_step(void *state, double t, const double *in, double *out, char *err,
                     size_t errlen)
{
  proc *p = state;
  if (p->failed) {
    msg(err, errlen, "external process '%s' has stopped after an earlier failure", p->command);
    return -1;
  }
  p->allow = p->answered ? p->timeout : fmax(p->timeout, HG_CTL_PROC_STARTUP);
  double deadline = now() + p->allow;
  size_t len = (size_t)snprintf(p->wbuf, p->wcap, "step %.17g", t);
  for (int i = 0; i < p->nin; ++i)
    len += (size_t)snprintf(p->wbuf + len, p->wcap - len, " %.17g", in[i]);
  p->wbuf[len++] = '\n';
  int closed;
  char why[256] = "";
  if (put(p, p->wbuf, len, deadline, &closed, why, sizeof why) != 0) {
    if (closed)
      fail(p, 1.0, err, errlen, "closed its input");
    else
      fail(p, 0.0, err, errlen, "%s", why);
    return -1;
  }
  char *line;
  size_t used;
  if (get_line(p, deadline, &line, &used, &closed, why, sizeof why) != 0) {
    if (closed)
      fail(p, 1.0, err, errlen, "closed its output before answering the step");
    else
      fail(p, 0.0, err, errlen, "%s", why);
    return -1;
  }
  const char *s = line;
  while (*s == ' ' || *s == '\t' || *s == '\r') ++s;
  if (strncmp(s, "error", 5) == 0 && (s[5] == '\0' || s[5] == ' ' || s[5] == '\t')) {
    s += 5;
    while (*s == ' ' || *s == '\t') ++s;
    msg(err, errlen, "%s", *s ? s : "error (no message)");
    size_t m = strlen(err);
    while (m > 0 && err[m - 1] == '\r') err[--m] = '\0';
    consume(p, used);
    return -1;
  }
  int k = 0;
  for (;;) {
    while (*s == ' ' || *s == '\t' || *s == '\r') ++s;
    if (*s == '\0') break;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || (*end != '\0' && *end != ' ' && *end != '\t' && *end != '\r')) {
      char q[80];
      quote(line, q, sizeof q);
      fail(p, 0.0, err, errlen, "wrote %s where %d number%s expected", q, p->nout,
           p->nout == 1 ? " was" : "s were");
      return -1;
    }
    if (k < p->nout) out[k] = v;
    ++k;
    s = end;
  }
  if (k != p->nout) {
    char q[80];
    quote(line, q, sizeof q);
    fail(p, 0.0, err, errlen, "wrote %d number%s (%s) where %d %s expected", k,
         k == 1 ? "" : "s", q, p->nout, p->nout == 1 ? "was" : "were");
    return -1;
  }
  consume(p, used);
  p->answered = 1;
  return 0;
}

static void proc_free(proc *p)
{
  if (p->to_child >= 0) close(p->to_child);
  if (p->from_child >= 0) close(p->from_child);
  free(p->command);
  free(p->rbuf);
  free(p->wbuf);
  free(p);
}

static void proc_finish(void *state)
{
  proc *p = state;
  if (!p) return;
  if (!p->failed && p->to_child >= 0) {
    int closed;
    char why[256];
    put(p, "finish\n", 7, now() + 1.0, &closed, why, sizeof why);
  }
  if (p->to_child >= 0) close(p->to_child);
  p->to_child = -1;
  reap(p, HG_CTL_PROC_GRACE);
  proc_free(p);
}

static const hg_ctl_ops proc_ops = {NULL, proc_step, proc_finish, NULL, NULL, NULL};

/* ---- starting it ---- */

/* a name for the protocol: white space and control characters become '_' */
static void token(char *dst, size_t n, const char *src)
{
  if (!src || !*src) src = "-";
  size_t i = 0;
  for (; src[i] && i + 1 < n; ++i) {
    unsigned char c = (unsigned char)src[i];
    dst[i] = (c <= ' ' || c == 127) ? '_' : (char)c;
  }
  dst[i] = '\0';
}

/* appends to a growing buffer; -1 when out of memory */
static int add(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(*buf ? *buf + *len : NULL, *buf ? *cap - *len : 0, fmt, ap);
    va_end(ap);
    if (n < 0) return -1;
    if (*buf && *len + (size_t)n < *cap) {
      *len += (size_t)n;
      return 0;
    }
    size_t cap2 = (*cap ? *cap * 2 : 1024) + (size_t)n + 1;
    char *b = realloc(*buf, cap2);
    if (!b) return -1;
    *buf = b;
    *cap = cap2;
  }
}

/* the setup lines of the protocol (malloc'd) */
static char *setup_text(const hg_control_setup *s, size_t *len)
{
  char *b = NULL, nm[256], kd[256];
  size_t cap = 0;
  *len = 0;
  token(nm, sizeof nm, s->name);
  int bad = add(&b, len, &cap, "hinge-control %d %s %.17g %d %d\n", HG_CTL_PROC_PROTOCOL, nm,
                s->rate, s->nin, s->nout);
  for (int i = 0; i < s->nparam && !bad; ++i) {
    const hg_control_param *q = &s->param[i];
    token(nm, sizeof nm, q->name);
    if (q->n > 0) {
      bad |= add(&b, len, &cap, "param %s", nm);
      for (int j = 0; j < q->n && !bad; ++j) bad |= add(&b, len, &cap, " %.17g", q->value[j]);
      bad |= add(&b, len, &cap, "\n");
    } else {
      bad |= add(&b, len, &cap, "text %s ", nm);
      for (const char *c = q->text ? q->text : ""; *c && !bad; ++c)
        bad |= add(&b, len, &cap, "%c", (*c == '\n' || *c == '\r') ? ' ' : *c);
      bad |= add(&b, len, &cap, "\n");
    }
  }
  for (int i = 0; i < s->ninput && !bad; ++i) {
    token(nm, sizeof nm, s->input[i].name);
    token(kd, sizeof kd, s->input[i].kind);
    bad |= add(&b, len, &cap, "input %s %s %d\n", nm, kd, s->input[i].n);
  }
  for (int i = 0; i < s->noutput && !bad; ++i) {
    token(nm, sizeof nm, s->output[i].name);
    token(kd, sizeof kd, s->output[i].kind);
    bad |= add(&b, len, &cap, "output %s %s %d\n", nm, kd, s->output[i].n);
  }
  if (!bad) bad |= add(&b, len, &cap, "end\n");
  if (bad) {
    free(b);
    return NULL;
  }
  return b;
}

/* a pipe whose two ends are above stderr and close on exec */
static int make_pipe(int fd[2])
{
#if defined(__linux__)
  if (pipe2(fd, O_CLOEXEC) != 0) return -1;
#else
  if (pipe(fd) != 0) return -1;
#endif
  for (int i = 0; i < 2; ++i) {
    if (fd[i] <= 2) {
      int d = fcntl(fd[i], F_DUPFD_CLOEXEC, 3);
      if (d < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
      }
      close(fd[i]);
      fd[i] = d;
    } else {
      fcntl(fd[i], F_SETFD, FD_CLOEXEC);
    }
  }
  return 0;
}

/* the shell's command line: command, run in dir when one is given */
static char *shell_line(const char *command, const char *dir)
{
  if (!dir || !*dir) {
    size_t n = strlen(command) + 1;
    char *s = malloc(n);
    if (s) memcpy(s, command, n);
    return s;
  }
  /* cd 'DIR' || exit 127 <newline> COMMAND, with ' in DIR written as '\'' */
  size_t n = strlen(command) + 4 * strlen(dir) + 32;
  char *s = malloc(n), *o = s;
  if (!s) return NULL;
  o += sprintf(o, "cd '");
  for (const char *c = dir; *c; ++c) {
    if (*c == '\'') o += sprintf(o, "'\\''");
    else *o++ = *c;
  }
  sprintf(o, "' || exit 127\n%s", command);
  return s;
}

int hg_ctl_proc_new(const char *command, const char *dir, double timeout,
                    const hg_control_setup *setup, hg_ctl **out, char *err, size_t errlen)
{
  *out = NULL;
  const char *name = setup->name ? setup->name : "";
  if (!command || !*command) {
    msg(err, errlen, "controller '%s': no command for the external process (command:)", name);
    return -1;
  }
  if (setup->nin < 0 || setup->nout < 0) {
    msg(err, errlen, "controller '%s': bad vector lengths", name);
    return -1;
  }
  proc *p = calloc(1, sizeof *p);
  if (!p) {
    msg(err, errlen, "controller '%s': out of memory", name);
    return -1;
  }
  p->to_child = p->from_child = -1;
  p->timeout = timeout > 0 ? timeout : HG_CTL_PROC_TIMEOUT;
  p->allow = fmax(p->timeout, HG_CTL_PROC_STARTUP);
  p->nin = setup->nin;
  p->nout = setup->nout;
  p->command = malloc(strlen(command) + 1);
  p->wcap = 40 + 26 * ((size_t)setup->nin + 1);
  p->wbuf = malloc(p->wcap);
  p->rcap = 4096;
  p->rbuf = malloc(p->rcap + 1);
  size_t slen = 0;
  char *text = setup_text(setup, &slen);
  char *line = shell_line(command, dir);
  if (!p->command || !p->wbuf || !p->rbuf || !text || !line) {
    free(text);
    free(line);
    proc_free(p);
    msg(err, errlen, "controller '%s': out of memory", name);
    return -1;
  }
  memcpy(p->command, command, strlen(command) + 1);

  int in[2], outp[2];
  if (make_pipe(in) != 0) {
    msg(err, errlen, "controller '%s': cannot make a pipe (%s)", name, strerror(errno));
    free(text);
    free(line);
    proc_free(p);
    return -1;
  }
  if (make_pipe(outp) != 0) {
    msg(err, errlen, "controller '%s': cannot make a pipe (%s)", name, strerror(errno));
    close(in[0]);
    close(in[1]);
    free(text);
    free(line);
    proc_free(p);
    return -1;
  }
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
  posix_spawnattr_init(&at);
  sigset_t none, def;
  sigemptyset(&none);
  sigemptyset(&def);
  sigaddset(&def, SIGPIPE);
  posix_spawnattr_setsigmask(&at, &none);
  posix_spawnattr_setsigdefault(&at, &def);
  posix_spawnattr_setpgroup(&at, 0);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
                                    POSIX_SPAWN_SETPGROUP);
  char *argv[] = {"sh", "-c", line, NULL};
  int rc = posix_spawn(&p->pid, "/bin/sh", &fa, &at, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  close(in[0]);
  close(outp[1]);
  free(line);
  p->to_child = in[1];
  p->from_child = outp[0];
  if (rc != 0) {
    p->pid = 0;
    msg(err, errlen, "controller '%s': cannot start '%s' (%s)", name, command, strerror(rc));
    free(text);
    proc_free(p);
    return -1;
  }
  fcntl(p->to_child, F_SETFL, fcntl(p->to_child, F_GETFL) | O_NONBLOCK);
  fcntl(p->from_child, F_SETFL, fcntl(p->from_child, F_GETFL) | O_NONBLOCK);

  int closed;
  char why[256] = "";
  int wrc = put(p, text, slen, now() + p->allow, &closed, why, sizeof why);
  free(text);
  if (wrc != 0) {
    char m[1024];
    if (closed)
      fail(p, 1.0, m, sizeof m, "closed its input before reading its setup");
    else
      fail(p, 0.0, m, sizeof m, "%s", why);
    msg(err, errlen, "controller '%s': %s", name, m);
    proc_free(p);
    return -1;
  }
  return hg_ctl_adopt(&proc_ops, p, setup, out, err, errlen);
}
