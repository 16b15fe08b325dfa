/* campaign_run.c: drawing a run's values and running runs on threads (campaign.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "campaign.h"
#include "output.h"
#include "stream.h"
#include "scene.h"
#include "sim.h"
#include "spatial.h"

#define HG_PI 3.14159265358979323846

/* ---- the values of a run ---- */

/* a normal draw truncated to [lo, hi] by rejection (bounded: the reader keeps mean inside) */
static double truncated_normal(hg_stream *r, const hg_dispersion *p) {
  for (int tries = 0; tries < 100000; tries++) {
    double x = p->mean + p->std * hg_stream_normal(r);
    if (x >= p->lo && x <= p->hi) return x;
  }
  return p->mean; /* unreachable in practice: the interval holds the mean */
}

void hg_campaign_draw(const hg_campaign *c, int k, double *values) {
  for (int j = 0; j < c->ndisp; j++) {
    const hg_dispersion *p = &c->disp[j];
    hg_stream r;
    hg_stream_init(&r, c->seed, (uint32_t)k, (uint32_t)j);
    switch (p->kind) {
    case HG_DIST_NORMAL: values[j] = truncated_normal(&r, p); break;
    case HG_DIST_UNIFORM: values[j] = p->lo + (p->hi - p->lo) * hg_stream_uniform(&r); break;
    case HG_DIST_ROTATION: /* the three components from the first one's stream */
      if (p->axis == 0)
        for (int a = 0; a < 3; a++) values[j + a] = p->std * hg_stream_normal(&r);
      break;
    case HG_DIST_LIST: {
      int i = (int)(hg_stream_uniform(&r) * p->nlist);
      values[j] = p->list[i < p->nlist ? i : p->nlist - 1];
      break;
    }
    }
  }
}

/* ---- one run ---- */

static double norm3(const double *x) { return sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]); }

/* 1 when a sampled metric's window is open: its 'after' event happened delay seconds ago */
static int window_open(hg_sim *sim, const hg_metric *mt) {
  if (!mt->after) return 1;
  for (int e = 0; e < hg_sim_nevents(sim); e++) {
    const hg_sim_event *ev = hg_sim_event_at(sim, e);
    if (ev->name && !strcmp(ev->name, mt->after)) return hg_sim_time(sim) >= ev->t + mt->delay;
  }
  return 0;
}

/* the earliest window opening after now and before t (a sampled metric starts exactly there) */
static double next_stop(const hg_campaign *c, hg_sim *sim, double t) {
  for (int k = 0; k < c->nmetric; k++) {
    const hg_metric *mt = &c->metric[k];
    if (!mt->after) continue;
    for (int e = 0; e < hg_sim_nevents(sim); e++) {
      const hg_sim_event *ev = hg_sim_event_at(sim, e);
      if (!ev->name || strcmp(ev->name, mt->after)) continue;
      if (ev->t + mt->delay > hg_sim_time(sim)) t = fmin(t, ev->t + mt->delay);
      break;
    }
  }
  return t;
}

/* the metrics sampled along the run (min distances, peak loads) at the current state */
static void sample(const hg_campaign *c, hg_sim *sim, double *metric) {
  const hg_model *m = hg_sim_model(sim);
  for (int k = 0; k < c->nmetric; k++) {
    const hg_metric *mt = &c->metric[k];
    if (!window_open(sim, mt)) continue;
    if (mt->kind == HG_METRIC_MIN_DISTANCE) {
      int a = hg_model_body(m, mt->a), b = hg_model_body(m, mt->b);
      if (a <= 0 || b <= 0) continue; /* a body not in the simulation now */
      hg_se3 Ta, Tb;
      double tw[6], d[3];
      hg_sim_body(sim, a, &Ta, tw);
      hg_sim_body(sim, b, &Tb, tw);
      for (int i = 0; i < 3; i++) d[i] = Ta.p[i] - Tb.p[i];
      if (isnan(metric[k]) || norm3(d) < metric[k]) metric[k] = norm3(d);
    } else if (mt->kind == HG_METRIC_MIN_CLEARANCE) {
      const char *a[1] = {mt->a}, *b[1] = {mt->b};
      hg_clearance cl;
      if (hg_sim_clearance(sim, a, 1, b, 1, &cl) || !isfinite(cl.distance)) continue;
      if (isnan(metric[k]) || cl.distance < metric[k]) metric[k] = cl.distance;
    } else if (mt->kind == HG_METRIC_RATE) {
      int a = hg_model_body(m, mt->a);
      if (a <= 0 || !isnan(metric[k])) continue; /* the first sample in the window only */
      hg_se3 T;
      double tw[6];
      hg_sim_body(sim, a, &T, tw);
      metric[k] = norm3(tw) * 180.0 / HG_PI;
    } else if (mt->kind == HG_METRIC_POINTING) {
      /* the controller's truth pointing error (its first telemetry value) */
      for (int j = 0; j < hg_sim_ncontroller(sim); j++) {
        hg_sim_controller_view cv;
        hg_sim_controller(sim, j, &cv);
        if (strcmp(cv.name, mt->a) || cv.type != HG_CTL_ATTITUDE_PD || cv.ntelemetry < 1) continue;
        if (isnan(metric[k]) || cv.telemetry[0] > metric[k]) metric[k] = cv.telemetry[0];
      }
    } else if (mt->kind == HG_METRIC_PEAK_LOAD) {
      int a = hg_model_body(m, mt->a);
      if (a <= 0) continue;
      hg_sim_joint_view jv;
      hg_sim_joint(sim, a, &jv);
      double f = norm3(jv.wrench + 3);
      if (isnan(metric[k]) || f > metric[k]) metric[k] = f;
    }
  }
}

/* the metrics read at the end of the run */
static void final_metrics(const hg_campaign *c, hg_sim *sim, double *metric) {
  const hg_model *m = hg_sim_model(sim);
  for (int k = 0; k < c->nmetric; k++) {
    const hg_metric *mt = &c->metric[k];
    int a = mt->a ? hg_model_body(m, mt->a) : -1;
    hg_se3 T;
    double tw[6];
    switch (mt->kind) {
    case HG_METRIC_FINAL_RATE:
    case HG_METRIC_FINAL_SPEED:
      if (a <= 0) break;
      hg_sim_body(sim, a, &T, tw);
      metric[k] = mt->kind == HG_METRIC_FINAL_RATE ? norm3(tw) * 180.0 / HG_PI : norm3(tw + 3);
      break;
    case HG_METRIC_EVENT_TIME:
    case HG_METRIC_EVENT_COUNT: {
      int count = 0;
      for (int e = 0; e < hg_sim_nevents(sim); e++) {
        const hg_sim_event *ev = hg_sim_event_at(sim, e);
        if (!ev->name || strcmp(ev->name, mt->a)) continue;
        if (count++ == 0 && mt->kind == HG_METRIC_EVENT_TIME) metric[k] = ev->t;
      }
      if (mt->kind == HG_METRIC_EVENT_COUNT) metric[k] = count;
      break;
    }
    case HG_METRIC_ENERGY_DRIFT: {
      hg_sim_budget b;
      hg_sim_get_budget(sim, &b);
      metric[k] = b.max_drift;
      break;
    }
    default: break;
    }
  }
}

int hg_campaign_overrides(const hg_campaign *c, const double *values, hg_scene_override *ov) {
  int n = 0;
  for (int j = 0; j < c->ndisp; j++) {
    const hg_dispersion *p = &c->disp[j];
    if (p->kind != HG_DIST_ROTATION) {
      ov[n].path = p->path, ov[n++].value = values[j];
      continue;
    }
    if (p->axis != 0) continue;
    double phi[3], E[9], R[9], q[4];
    for (int a = 0; a < 3; a++) phi[a] = values[j + a] * HG_PI / 180;
    hg_so3_exp(phi, E);
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++)
        R[3 * a + b] =
            p->R0[3 * a] * E[b] + p->R0[3 * a + 1] * E[3 + b] + p->R0[3 * a + 2] * E[6 + b];
    if (p->nopath == 4) hg_R_to_quat(R, q);
    else {
      hg_R_to_rpy(R, q);
      for (int a = 0; a < 3 && p->degrees; a++) q[a] *= 180 / HG_PI;
    }
    for (int i = 0; i < p->nopath; i++) ov[n].path = p->opath[i], ov[n++].value = q[i];
  }
  return n;
}

int hg_campaign_run_one(const hg_campaign *c, int k, const char *out_dir, hg_run_result *r) {
  hg_scene_override ov[2 * c->ndisp + 1];
  hg_error err;
  double t0 = hg_sim_clock();
  r->run = k;
  r->ok = 0;
  r->error[0] = 0;
  for (int j = 0; j < c->nmetric; j++) r->metric[j] = NAN;
  hg_campaign_draw(c, k, r->param);
  int nov = hg_campaign_overrides(c, r->param, ov);
  /* the scene's bytes as the campaign read them, not the file as it is now */
  hg_scene *s = hg_scene_load_text(c->scene, c->scene_text, c->scene_len, ov, nov, &err);
  if (!s) {
    snprintf(r->error, sizeof r->error, "%s", err.msg);
    r->wall = hg_sim_clock() - t0;
    return 0;
  }
  hg_sim_options opt;
  hg_sim_default_options(&opt);
  opt.t_end = c->t_end;
  opt.max_wall = c->max_wall; /* each run gets the limit: a stopped run is a failed one */
  opt.out_dir = out_dir;
  /* each run's own sensor noise: a key mixed from the campaign's seed and the run's number
   * (splitmix64's finalizer, Steele, Lea and Flood, "Fast splittable pseudorandom number
   * generators"), so that a run is reproducible alone */
  uint64_t z = c->seed + 0x9e3779b97f4a7c15ull * (uint64_t)(k + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  opt.has_seed = 1;
  opt.noise_seed = z ^ (z >> 31);
  hg_sim *sim = hg_sim_new(s, &opt, &err);
  hg_output_options oo;
  hg_output_default_options(&oo);
  oo.dir = out_dir; /* the run's files (with plots) only when a folder is given */
  oo.notices = NULL; /* runs on threads: each run's events.csv says what it refused */
  if (sim && out_dir && hg_output_attach(sim, &oo, &err)) hg_sim_free(sim), sim = NULL;
  if (!sim) {
    snprintf(r->error, sizeof r->error, "%s", err.msg);
  } else {
    /* step from output time to output time (and to the instants where a sampled metric's
     * window opens), sampling the running metrics at each */
    double dt = s->output.dt > 0 ? s->output.dt : 0.01, t_end = hg_sim_t_end(sim);
    int rc = HG_SIM_OK;
    long i = 1;
    sample(c, sim, r->metric);
    while (rc == HG_SIM_OK && hg_sim_time(sim) < t_end) {
      double grid = fmin(hg_sim_t_start(sim) + (double)i * dt, t_end), t = next_stop(c, sim, grid);
      rc = hg_sim_run(sim, t);
      if (rc == HG_SIM_OK) sample(c, sim, r->metric);
      if (t == grid) i++;
    }
    final_metrics(c, sim, r->metric);
    if (rc != HG_SIM_OK) snprintf(r->error, sizeof r->error, "%s", hg_sim_error(sim));
    if (hg_sim_finish(sim) && rc == HG_SIM_OK) {
      snprintf(r->error, sizeof r->error, "%s", hg_sim_error(sim)); /* the file, and why */
      rc = HG_SIM_ERR_OUTPUT;
    }
    r->ok = rc == HG_SIM_OK;
    hg_sim_free(sim);
  }
  hg_scene_free(s);
  r->wall = hg_sim_clock() - t0;
  return 0;
}

/* ---- many runs on threads ---- */

typedef struct pool {
  const hg_campaign *c;
  const unsigned char *done;
  int offset, stride;
  atomic_int next;     /* the next candidate run */
  atomic_int made;
  pthread_mutex_t lock; /* the journal */
  FILE *journal;
  FILE *progress;
  int failed_write;     /* errno of the journal's first failed write (0: none) */
} pool;

static void *worker(void *arg) {
  pool *p = arg;
  const hg_campaign *c = p->c;
  hg_run_result r;
  double *buf = malloc(sizeof(double) * (size_t)(c->ndisp + c->nmetric + 1));
  if (!buf) return NULL;
  r.param = buf, r.metric = buf + c->ndisp;
  for (;;) {
    int k = atomic_fetch_add(&p->next, 1);
    if (k >= c->runs) break;
    if (k % p->stride != p->offset || (p->done && p->done[k])) continue;
    hg_campaign_run_one(c, k, NULL, &r);
    pthread_mutex_lock(&p->lock);
    hg_campaign_format_row(c, &r, p->journal);
    /* a crash loses at most the runs in flight: each finished run is on disk */
    if ((fflush(p->journal) || fsync(fileno(p->journal))) && !p->failed_write)
      p->failed_write = errno ? errno : EIO; /* the first failure's reason */
    int made = atomic_fetch_add(&p->made, 1) + 1;
    if (p->progress)
      fprintf(p->progress, "run %d %s (%.3f s)%s%s [%d done]\n", k, r.ok ? "ok" : "FAILED",
              r.wall, r.ok ? "" : ": ", r.ok ? "" : r.error, made);
    pthread_mutex_unlock(&p->lock);
  }
  free(buf);
  return NULL;
}

int hg_campaign_run(const hg_campaign *c, const unsigned char *done, int offset, int stride,
                    int nthreads, const char *journal, FILE *progress) {
  pool p;
  memset(&p, 0, sizeof p);
  p.c = c, p.done = done, p.offset = offset, p.stride = stride > 0 ? stride : 1;
  p.progress = progress;
  atomic_init(&p.next, 0);
  atomic_init(&p.made, 0);
  /* appended to, never through a link planted under its name (O_NOFOLLOW) */
  int fd = open(journal, O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0 || !(p.journal = fdopen(fd, "a+"))) {
    if (fd >= 0) close(fd);
    return -1;
  }
  /* a line cut short by a crash is ended, so that it stays one unreadable line */
  if (fseek(p.journal, -1, SEEK_END) == 0 && fgetc(p.journal) != '\n') fputc('\n', p.journal);
  /* a new journal starts with the inputs' hashes (hg_campaign_check_journal) */
  if (fseek(p.journal, 0, SEEK_END) == 0 && ftell(p.journal) == 0) {
    for (int k = 0; k < c->ninput; k++)
      fprintf(p.journal, "# input %016llx %s\n", (unsigned long long)c->input[k].hash,
              c->input[k].path);
    if (fflush(p.journal)) p.failed_write = 1;
  }
  pthread_mutex_init(&p.lock, NULL);
  if (nthreads < 1) nthreads = 1;
  if (nthreads > HG_CAMPAIGN_MAX_THREADS) nthreads = HG_CAMPAIGN_MAX_THREADS;
  pthread_t *th = malloc((size_t)nthreads * sizeof *th); /* (not on the stack: it may be large) */
  int started = 0;
  for (; th && started < nthreads; started++)
    if (pthread_create(&th[started], NULL, worker, &p)) break;
  if (started == 0) worker(&p);
  for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
  free(th);
  pthread_mutex_destroy(&p.lock);
  if (fclose(p.journal) && !p.failed_write) p.failed_write = errno ? errno : EIO;
  if (p.failed_write) errno = p.failed_write;
  return p.failed_write ? -1 : atomic_load(&p.made);
}
