/* controller_lib.c: users' controller libraries through dlopen, and controller instances. */
#include "controller_lib.h"

#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct hg_ctl_lib {
  void *handle;
  char *path;
  hg_ctl_ops ops;
};

struct hg_ctl {
  hg_ctl_ops ops;
  void *state;
  char *name;
  int nin, nout;
  int noutput;
  hg_control_port *output;  /* names point into names */
  char *names;
  double *held;             /* the commands in force before a step (nout) */
  hg_ctl_timing timing;
};

static void msg(char *err, size_t errlen, const char *fmt, ...)
{
  if (!err || errlen == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

static char *dup_str(const char *s)
{
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* dlerror's text, or a placeholder when it has none */
static const char *dl_text(void)
{
  const char *e = dlerror();
  return e ? e : "no error text";
}

/* stores an address dlsym found into a function pointer (POSIX: they have the same size) */
static void set_fn(void *slot, void *addr) { memcpy(slot, &addr, sizeof addr); }

/* finds symbol base+suffix: NULL when absent (dlerror's text in why) */
static void *find(void *handle, const char *base, const char *suffix, char *name, size_t len,
                  char *why, size_t whylen)
{
  snprintf(name, len, "%s%s", base, suffix);
  dlerror();
  void *p = dlsym(handle, name);
  if (!p) snprintf(why, whylen, "%s", dl_text());
  return p;
}

int hg_ctl_lib_open(const char *path, const char *step_symbol, const char *init_symbol,
                    const char *finish_symbol, hg_ctl_lib **out, char *err, size_t errlen)
{
  *out = NULL;
  if (!path || !*path) {
    msg(err, errlen, "no controller library named (library:)");
    return -1;
  }
  if (!step_symbol || !*step_symbol) {
    msg(err, errlen, "controller library '%s': no step function named (symbol:)", path);
    return -1;
  }
  dlerror();
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    msg(err, errlen, "cannot open controller library '%s': %s", path, dl_text());
    return -1;
  }
  char why[512], name[272];  /* name: base (< 256) and a suffix */
  const int *abi = find(h, "hg_control_abi", "", name, sizeof name, why, sizeof why);
  if (!abi) {
    msg(err, errlen,
        "'%s': not a hinge controller library (no hg_control_abi: build it with "
        "HG_CONTROL_DECLARE_ABI)",
        path);
    dlclose(h);
    return -1;
  }
  if (*abi != HG_CONTROL_ABI) {
    msg(err, errlen,
        "'%s' was built for hinge controller ABI %d; this hinge loads ABI %d (rebuild it "
        "against this hinge's <hinge/control.h>)",
        path, *abi, HG_CONTROL_ABI);
    dlclose(h);
    return -1;
  }
  hg_ctl_ops ops = {0};
  /* the names of the other functions: step_symbol's trailing "step" replaced, or "_" appended */
  char base[256];
  size_t sl = strlen(step_symbol);
  if (sl + 8 > sizeof base) {
    msg(err, errlen, "'%s': symbol name '%s' too long", path, step_symbol);
    dlclose(h);
    return -1;
  }
  if (sl > 4 && strcmp(step_symbol + sl - 4, "step") == 0)
    snprintf(base, sizeof base, "%.*s", (int)(sl - 4), step_symbol);
  else
    snprintf(base, sizeof base, "%s_", step_symbol);

  set_fn(&ops.step, find(h, step_symbol, "", name, sizeof name, why, sizeof why));
  if (!ops.step) {
    msg(err, errlen, "'%s' has no function '%s' (%s)", path, step_symbol, why);
    dlclose(h);
    return -1;
  }
  struct {
    const char *named, *suffix;
    void *slot;
  } opt[2] = {{init_symbol, "init", &ops.init}, {finish_symbol, "finish", &ops.finish}};
  for (int i = 0; i < 2; ++i) {
    if (opt[i].named && *opt[i].named) {
      void *a = find(h, opt[i].named, "", name, sizeof name, why, sizeof why);
      set_fn(opt[i].slot, a);
      if (!a) {
        msg(err, errlen, "'%s' has no function '%s' (%s)", path, opt[i].named, why);
        dlclose(h);
        return -1;
      }
    } else {
      set_fn(opt[i].slot, find(h, base, opt[i].suffix, name, sizeof name, why, sizeof why));
    }
  }
  set_fn(&ops.set, find(h, base, "set", name, sizeof name, why, sizeof why));
  set_fn(&ops.save, find(h, base, "save", name, sizeof name, why, sizeof why));
  set_fn(&ops.load, find(h, base, "load", name, sizeof name, why, sizeof why));
  if (!ops.save != !ops.load) {
    msg(err, errlen, "'%s' has '%s%s' but no '%s%s' (a checkpoint needs both)", path, base,
        ops.save ? "save" : "load", base, ops.save ? "load" : "save");
    dlclose(h);
    return -1;
  }
  hg_ctl_lib *lib = calloc(1, sizeof *lib);
  if (lib) lib->path = dup_str(path);
  if (!lib || !lib->path) {
    free(lib);
    dlclose(h);
    msg(err, errlen, "out of memory");
    return -1;
  }
  lib->handle = h;
  lib->ops = ops;
  *out = lib;
  return 0;
}

const hg_ctl_ops *hg_ctl_lib_ops(const hg_ctl_lib *lib) { return &lib->ops; }

const char *hg_ctl_lib_path(const hg_ctl_lib *lib) { return lib->path; }

void hg_ctl_lib_close(hg_ctl_lib *lib)
{
  if (!lib) return;
  dlclose(lib->handle);
  free(lib->path);
  free(lib);
}

/* ---- instances ---- */

static int check_ports(const char *what, int nport, const hg_control_port *port, int nvec,
                       const char *name, char *err, size_t errlen)
{
  if (nvec < 0 || nport < 0 || (nport > 0 && !port)) {
    msg(err, errlen, "controller '%s': bad %s ports (%d ports, %d numbers)", name, what, nport,
        nvec);
    return -1;
  }
  for (int k = 0; k < nport; ++k) {
    if (port[k].n < 0 || port[k].offset < 0 || port[k].offset > nvec - port[k].n) {
      msg(err, errlen, "controller '%s': %s '%s' (offset %d, %d numbers) lies outside the %d "
          "numbers of the %s vector", name, what, port[k].name ? port[k].name : "?",
          port[k].offset, port[k].n, nvec, what);
      return -1;
    }
  }
  return 0;
}

static hg_ctl *make(const hg_ctl_ops *ops, const hg_control_setup *s, char *err, size_t errlen)
{
  const char *name = s->name ? s->name : "";
  if (!ops || !ops->step) {
    msg(err, errlen, "controller '%s': no step function", name);
    return NULL;
  }
  if (!ops->save != !ops->load) {
    msg(err, errlen, "controller '%s': save and load come as a pair", name);
    return NULL;
  }
  if (!(s->rate > 0) || !isfinite(s->rate) || !isfinite(s->t0)) {
    msg(err, errlen, "controller '%s': rate %g Hz and first sample t0 = %g s (the rate must be "
        "positive and finite)", name, s->rate, s->t0);
    return NULL;
  }
  if (check_ports("input", s->ninput, s->input, s->nin, name, err, errlen) ||
      check_ports("output", s->noutput, s->output, s->nout, name, err, errlen))
    return NULL;
  size_t chars = strlen(name) + 1;
  for (int k = 0; k < s->noutput; ++k)
    chars += strlen(s->output[k].name ? s->output[k].name : "?") + 1;
  hg_ctl *c = calloc(1, sizeof *c);
  if (!c) goto oom;
  c->names = malloc(chars);
  c->output = calloc((size_t)s->noutput + 1, sizeof *c->output);
  c->held = calloc((size_t)s->nout + 1, sizeof *c->held);
  if (!c->names || !c->output || !c->held) goto oom;
  char *p = c->names;
  c->name = p;
  memcpy(p, name, strlen(name) + 1);
  p += strlen(name) + 1;
  for (int k = 0; k < s->noutput; ++k) {
    const char *pn = s->output[k].name ? s->output[k].name : "?";
    c->output[k] = s->output[k];
    c->output[k].kind = NULL;
    c->output[k].name = p;
    memcpy(p, pn, strlen(pn) + 1);
    p += strlen(pn) + 1;
  }
  c->ops = *ops;
  c->nin = s->nin;
  c->nout = s->nout;
  c->noutput = s->noutput;
  return c;
oom:
  if (c) {
    free(c->names);
    free(c->output);
    free(c->held);
    free(c);
  }
  msg(err, errlen, "controller '%s': out of memory", name);
  return NULL;
}

static void release(hg_ctl *c)
{
  free(c->names);
  free(c->output);
  free(c->held);
  free(c);
}

int hg_ctl_new(const hg_ctl_ops *ops, const hg_control_setup *setup, hg_ctl **out, char *err,
               size_t errlen)
{
  *out = NULL;
  hg_ctl *c = make(ops, setup, err, errlen);
  if (!c) return -1;
  if (c->ops.init) {
    hg_control_setup s = *setup;
    s.abi = HG_CONTROL_ABI;
    char m[1024] = "";
    void *state = NULL;
    if (c->ops.init(&s, &state, m, sizeof m) != 0) {
      m[sizeof m - 1] = '\0';
      msg(err, errlen, "controller '%s': %s", c->name, *m ? m : "its init failed");
      release(c);
      return -1;
    }
    c->state = state;
  }
  *out = c;
  return 0;
}

int hg_ctl_adopt(const hg_ctl_ops *ops, void *state, const hg_control_setup *setup, hg_ctl **out,
                 char *err, size_t errlen)
{
  *out = NULL;
  hg_ctl *c = make(ops, setup, err, errlen);
  if (!c) {
    if (ops && ops->finish) ops->finish(state);
    return -1;
  }
  c->state = state;
  *out = c;
  return 0;
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int hg_ctl_step(hg_ctl *c, double t, const double *in, double *out, char *err, size_t errlen)
{
  if (c->nout > 0) memcpy(c->held, out, (size_t)c->nout * sizeof *out);
  char m[1024] = "";
  double t_start = now();
  int rc = c->ops.step(c->state, t, in, out, m, sizeof m);
  double dt = now() - t_start;
  c->timing.count++;
  c->timing.total += dt;
  if (dt > c->timing.max) c->timing.max = dt;
  if (rc != 0) {
    m[sizeof m - 1] = '\0';
    msg(err, errlen, "controller '%s' at t = %.9g: %s", c->name, t, *m ? m : "its step failed");
    return -1;
  }
  for (int k = 0; k < c->noutput; ++k) {
    const hg_control_port *p = &c->output[k];
    for (int i = 0; i < p->n; ++i) {
      double *v = &out[p->offset + i];
      if (isnan(*v)) {
        *v = c->held[p->offset + i];
      } else if (isinf(*v)) {
        msg(err, errlen, "controller '%s' at t = %.9g: output '%s'[%d] is %s", c->name, t,
            p->name, i, *v > 0 ? "inf" : "-inf");
        return -1;
      }
    }
  }
  /* numbers no port covers (gaps): the same rules */
  for (int i = 0; i < c->nout; ++i) {
    if (isnan(out[i])) out[i] = c->held[i];
    else if (isinf(out[i])) {
      msg(err, errlen, "controller '%s' at t = %.9g: out[%d] is %s", c->name, t, i,
          out[i] > 0 ? "inf" : "-inf");
      return -1;
    }
  }
  return 0;
}

int hg_ctl_set(hg_ctl *c, const char *param, int n, const double *value, char *err,
               size_t errlen)
{
  if (!c->ops.set) {
    msg(err, errlen, "controller '%s' takes no parameter changes during a run (it has no set "
        "function): '%s' cannot change", c->name, param);
    return -1;
  }
  char m[1024] = "";
  if (c->ops.set(c->state, param, n, value, m, sizeof m) != 0) {
    m[sizeof m - 1] = '\0';
    msg(err, errlen, "controller '%s': setting '%s': %s", c->name, param,
        *m ? m : "refused");
    return -1;
  }
  return 0;
}

int hg_ctl_save(hg_ctl *c, double *buf, int cap, char *err, size_t errlen)
{
  if (!c->ops.save) return 0;
  int n = c->ops.save(c->state, cap > 0 ? buf : NULL, cap > 0 ? cap : 0);
  if (n < 0) {
    msg(err, errlen, "controller '%s' cannot save its state for a checkpoint", c->name);
    return -1;
  }
  return n;
}

int hg_ctl_load(hg_ctl *c, const double *buf, int n, char *err, size_t errlen)
{
  if (!c->ops.load) {
    if (n == 0) return 0;
    msg(err, errlen, "controller '%s': the checkpoint holds %d numbers of its state but it has "
        "no load function", c->name, n);
    return -1;
  }
  char m[1024] = "";
  if (c->ops.load(c->state, buf, n, m, sizeof m) != 0) {
    m[sizeof m - 1] = '\0';
    msg(err, errlen, "controller '%s': loading its checkpointed state: %s", c->name,
        *m ? m : "refused");
    return -1;
  }
  return 0;
}

const char *hg_ctl_name(const hg_ctl *c) { return c->name; }
int hg_ctl_nin(const hg_ctl *c) { return c->nin; }
int hg_ctl_nout(const hg_ctl *c) { return c->nout; }
hg_ctl_timing hg_ctl_get_timing(const hg_ctl *c) { return c->timing; }

void hg_ctl_timing_line(const hg_ctl *c, char *buf, size_t len)
{
  const hg_ctl_timing *t = &c->timing;
  double mean = t->count > 0 ? t->total / (double)t->count : 0.0;
  snprintf(buf, len, "controller '%s': %ld steps, mean %.1f us, max %.1f us", c->name, t->count,
           1e6 * mean, 1e6 * t->max);
}

void hg_ctl_free(hg_ctl *c)
{
  if (!c) return;
  if (c->ops.finish) c->ops.finish(c->state);
  release(c);
}
