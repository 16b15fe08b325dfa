/* video.c: MP4 videos through ffmpeg (video.h). */
#define _XOPEN_SOURCE 700 /* posix_spawn's process group, socketpair, MSG_NOSIGNAL */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "video.h"

extern char **environ;

int hg_video_available(void) { return system("command -v ffmpeg > /dev/null 2>&1") == 0; }

int hg_video_spawn(char *const input[], const char *output, int stdin_fd, pid_t *pid) {
  char *argv[32];
  int n = 0;
  argv[n++] = "ffmpeg", argv[n++] = "-y", argv[n++] = "-loglevel", argv[n++] = "error";
  for (int k = 0; input[k] && n < 20; k++) argv[n++] = input[k];
  argv[n++] = "-vf", argv[n++] = "scale=trunc(iw/2)*2:trunc(ih/2)*2";
  argv[n++] = "-pix_fmt", argv[n++] = "yuv420p", argv[n++] = "-c:v", argv[n++] = "libx264";
  argv[n++] = (char *)output, argv[n] = NULL;
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&attr);
  if (stdin_fd >= 0) posix_spawn_file_actions_adddup2(&fa, stdin_fd, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP); /* a group of its own (pgroup 0) */
  int rc = posix_spawnp(pid, "ffmpeg", &fa, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  return rc ? -1 : 0;
}

int hg_video_wait(pid_t pid) {
  int status = 0;
  pid_t r;
  while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR) continue;
  return r == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

struct hg_video {
  int fd;                /* ffmpeg's standard input (a socket: a write after ffmpeg is gone
                            fails with EPIPE instead of raising SIGPIPE in the viewer; closed on
                            exec, so ffmpeg sees the end of its input when this end closes) */
  pid_t pid;
  int w, h, broken;
  long frames;
  unsigned char *buf;    /* one w x h RGBA frame */
  char path[4096];
};

hg_video *hg_video_open(const char *path, int w, int h, double fps, char *err, size_t errlen) {
  if (!hg_video_available())
    return snprintf(err, errlen, "--video %s: ffmpeg is not on the PATH (install it: apt-get install ffmpeg)", path), NULL;
  hg_video *v = calloc(1, sizeof *v);
  int sv[2] = {-1, -1};
  if (!v || !(v->buf = calloc((size_t)w * (size_t)h, 4)) || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
    if (v) free(v->buf);
    free(v);
    return snprintf(err, errlen, "--video %s: %s", path, strerror(errno ? errno : ENOMEM)), NULL;
  }
  v->w = w, v->h = h, v->fd = sv[0];
  snprintf(v->path, sizeof v->path, "%s", path);
  char size[64], rate[32];
  snprintf(size, sizeof size, "%dx%d", w, h);
  snprintf(rate, sizeof rate, "%g", fps);
  char *input[] = {"-f", "rawvideo", "-pix_fmt", "rgba", "-s", size, "-framerate", rate, "-i", "-", NULL};
  int rc = hg_video_spawn(input, path, sv[1], &v->pid);
  close(sv[1]);
  if (rc) {
    close(v->fd), free(v->buf), free(v);
    return snprintf(err, errlen, "--video %s: cannot start ffmpeg", path), NULL;
  }
  shutdown(v->fd, SHUT_RD);
  return v;
}

int hg_video_frame(hg_video *v, const unsigned char *rgba, int fw, int fh) {
  if (v->broken) return -1;
  const unsigned char *src = rgba;
  if (fw != v->w || fh != v->h) { /* the overlap, from the top-left corner */
    memset(v->buf, 0, (size_t)v->w * (size_t)v->h * 4);
    int cw = fw < v->w ? fw : v->w, ch = fh < v->h ? fh : v->h;
    for (int y = 0; y < ch; y++) memcpy(v->buf + (size_t)y * v->w * 4, rgba + (size_t)y * fw * 4, (size_t)cw * 4);
    src = v->buf;
  }
  size_t n = (size_t)v->w * (size_t)v->h * 4, done = 0;
  while (done < n) {
    ssize_t k = send(v->fd, src + done, n - done, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return v->broken = 1, -1;
    done += (size_t)k;
  }
  v->frames++;
  return 0;
}

long hg_video_frames(const hg_video *v) { return v->frames; }

int hg_video_close(hg_video *v, char *err, size_t errlen) {
  close(v->fd); /* the end of the input: ffmpeg finishes the file */
  int rc = hg_video_wait(v->pid);
  if (rc || v->broken) {
    snprintf(err, errlen, "ffmpeg failed to write %s", v->path);
    rc = -1;
  }
  free(v->buf);
  free(v);
  return rc;
}
