/* cli_model.c: what the subcommands share: loading a model file (the reader chosen by extension),
 * the usage-error path, reading a number option, creating output folders and catching the
 * signals that ask a command to stop. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "mjcf.h"
#include "scene.h"
#include "urdf.h"

/* a scene's bodies present at the start, with the scene's gravity (its joints are as written, so
 * --floating does not apply) */
static hg_model *scene_model(const char *path, const hg_urdf_options *opt, hg_error *err) {
  hg_scene *s = hg_scene_load(path, err);
  if (!s) return NULL;
  if (opt->floating && opt->notes)
    fprintf(opt->notes, "hinge: note: %s: --floating is ignored for a scene (its joints are as written)\n",
            path);
  hg_model *m = hg_builder_compile(s->builder, err);
  if (m) memcpy(m->gravity, s->gravity, sizeof m->gravity);
  hg_scene_free(s);
  return m;
}

/* a xacro macro file (robot.urdf.xacro, robot.xacro) is a program that writes a URDF, not one */
static hg_model *xacro_model(const char *path, const hg_urdf_options *opt, hg_error *err) {
  (void)opt;
  hg_error_set(err, "%s: a xacro file, not a URDF: run 'xacro %s > robot.urdf' (ROS's xacro "
               "tool, with the package's arguments if it takes any) and load robot.urdf",
               path, path);
  return NULL;
}

/* an .xml file: MJCF when its first element is <mujoco> (read by MuJoCo's compiler), else URDF */
static hg_model *xml_model(const char *path, const hg_urdf_options *opt, hg_error *err) {
  if (!hg_mjcf_is_mjcf(path)) return hg_urdf_load_opt(path, opt, err);
  if (opt->floating && opt->notes)
    fprintf(opt->notes, "hinge: note: %s: --floating is ignored for MJCF (its joints are as written)\n",
            path);
  hg_mjcf_options mo = {opt->verbose, opt->notes};
  return hg_mjcf_load(path, &mo, err);
}

/* the readers, by file extension */
static const struct {
  const char *ext;
  hg_model *(*load)(const char *path, const hg_urdf_options *opt, hg_error *err);
} hg_model_readers[] = {
    {".urdf", hg_urdf_load_opt},
    {".xml", xml_model},
    {".yaml", scene_model},
    {".yml", scene_model},
    {".xacro", xacro_model},
};
#define HG_NREADERS ((int)(sizeof hg_model_readers / sizeof hg_model_readers[0]))

/* 1 when path ends in ext (ASCII case-insensitive) */
static int has_extension(const char *path, const char *ext) {
  size_t n = strlen(path), k = strlen(ext);
  if (n < k) return 0;
  for (size_t i = 0; i < k; i++) {
    char a = path[n - k + i], b = ext[i];
    if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
    if (a != b) return 0;
  }
  return 1;
}

hg_model *hg_cli_load_model(const char *path, const hg_urdf_options *opt, hg_error *err) {
  char known[128] = "";
  for (int k = 0; k < HG_NREADERS; k++) {
    if (has_extension(path, hg_model_readers[k].ext))
      return hg_model_readers[k].load(path, opt, err);
    strncat(known, k ? ", " : "", sizeof known - strlen(known) - 1);
    strncat(known, hg_model_readers[k].ext, sizeof known - strlen(known) - 1);
  }
  hg_error_set(err, "%s: unknown model format (known: %s)", path, known);
  return NULL;
}

int hg_cli_usage_error(const char *cmd, void (*usage)(FILE *), const char *fmt, const char *arg) {
  fprintf(stderr, "hinge %s: ", cmd);
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n");
  usage(stderr);
  return HG_EXIT_USAGE;
}

int hg_cli_number(const char *s, double *x) {
  char *end;
  *x = strtod(s, &end);
  return *s && !*end && isfinite(*x) ? 0 : -1;
}

/* mkdir -p; 0 or -1 with errno */
int hg_cli_make_dirs(const char *path) {
  char buf[4096];
  size_t n = strlen(path);
  if (n == 0 || n >= sizeof buf) return errno = ENAMETOOLONG, -1;
  memcpy(buf, path, n + 1);
  for (size_t k = 1; k <= n; k++) {
    if (buf[k] != '/' && buf[k] != 0) continue;
    char c = buf[k];
    buf[k] = 0;
    if (mkdir(buf, 0777) && errno != EEXIST) return -1;
    buf[k] = c;
  }
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : (errno = ENOTDIR, -1);
}

void hg_cli_default_out(const char *path, char *out, size_t len) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strlen(base);
  const char *dot = strrchr(base, '.');
  if (dot && dot != base) n = (size_t)(dot - base);
  snprintf(out, len, "out/%.*s", (int)n, base);
}

volatile sig_atomic_t hg_cli_stop_signal;

static void on_stop_signal(int sig) { hg_cli_stop_signal = sig; }

void hg_cli_catch_stop_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sa.sa_flags = SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}
