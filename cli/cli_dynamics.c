/* cli_dynamics.c: `hinge dynamics MODEL ACTION`: a model's layout (info), its dynamics on
 * states read line by line from standard input (fd, id, mass, bias, hybrid, lock), one line of
 * results per state, numbers printed with %.17g; and the constrained inverse dynamics of a
 * scene's closed mechanism at its initial state (cid). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_loops.h"
#include "derivatives.h"
#include "derivatives2.h"
#include "forces.h"
#include "dynamics.h"
#include "merge.h"
#include "mimic.h"
#include "readfile.h"
#include "sim.h"

/* the command line */
typedef struct dyn_args {
  const char *model, *action, *prescribed;
  const char *active, *qdd; /* cid: --active, --qdd */
  int floating, has_gravity, help, min_force;
  hg_urdf_options urdf; /* --fix-inertia, --package-path, --verbose */
  double gravity[3];
} dyn_args;

/* one model, its workspace and the numbers of one line: in (q, then the vectors of the action)
 * and out (the results) */
typedef struct dyn_ctx {
  hg_model *m;
  hg_data *d;
  hg_deriv *w; /* the derivative actions' workspace */
  hg_deriv2 *w2; /* the second-order actions' workspace (d2id, d2fd, d2id-sum, d2fd-sum only) */
  hg_mimic_ws *mimic; /* mimic couplings (fd enforces them) */
  double *in, *out;
} dyn_ctx;

/* ---- the actions on one state ---- */

/* fd: q v tau -> vdot (mimic followers take their leaders' q and v first) */
static int eval_fd(dyn_ctx *c) {
  const hg_model *m = c->m;
  hg_mimic_project(m, c->in, c->in + m->nq);
  return hg_mimic_aba(m, c->d, c->mimic, c->in, c->in + m->nq, c->in + m->nq + m->nv, NULL,
                      c->out, NULL);
}

/* id: q v vdot -> tau */
static int eval_id(dyn_ctx *c) {
  const hg_model *m = c->m;
  hg_rnea(m, c->d, c->in, c->in + m->nq, c->in + m->nq + m->nv, NULL, c->out);
  return 0;
}

/* mass: q -> M, row-major */
static int eval_mass(dyn_ctx *c) {
  hg_crba(c->m, c->d, c->in, c->out);
  return 0;
}

/* bias: q v -> b */
static int eval_bias(dyn_ctx *c) {
  hg_bias(c->m, c->d, c->in, c->in + c->m->nq, NULL, c->out);
  return 0;
}

/* hybrid: q v x -> vdot tau, where x[k] is vdot[k] at prescribed DoFs and tau[k] at free ones */
static int eval_hybrid(dyn_ctx *c) {
  const hg_model *m = c->m;
  const double *x = c->in + m->nq + m->nv;
  double *qdd = c->out, *tau = c->out + m->nv;
  for (int k = 0; k < m->nv; k++) {
    int prescribed = c->d->mode[m->dof_body[k]] != HG_MODE_FREE;
    qdd[k] = prescribed ? x[k] : 0;
    tau[k] = prescribed ? 0 : x[k];
  }
  return hg_hybrid(m, c->d, c->in, c->in + m->nq, qdd, tau, NULL);
}

/* lock: q v -> v_after impulse energy_removed */
static int eval_lock(dyn_ctx *c) {
  const hg_model *m = c->m;
  return hg_plastic_lock(m, c->d, c->in, c->in + m->nq, c->out, c->out + m->nv,
                         c->out + 2 * m->nv);
}

/* the derivative actions (cli_derivatives.c) */
static int eval_did(dyn_ctx *c) { return hg_cli_did(c->m, c->d, c->w, c->in, c->out); }
static int eval_dfd(dyn_ctx *c) { return hg_cli_dfd(c->m, c->d, c->w, c->in, c->out); }
static int eval_minv(dyn_ctx *c) { return hg_cli_minv(c->m, c->d, c->w, c->in, c->out); }
static int eval_dhybrid(dyn_ctx *c) { return hg_cli_dhybrid(c->m, c->d, c->w, c->in, c->out); }
static int eval_d2id(dyn_ctx *c) { return hg_cli_d2id(c->m, c->d, c->w2, c->in, c->out); }
static int eval_d2fd(dyn_ctx *c) { return hg_cli_d2fd(c->m, c->d, c->w2, c->in, c->out); }
static int eval_d2id_sum(dyn_ctx *c) { return hg_cli_d2id_sum(c->m, c->d, c->w2, c->in, c->out); }
static int eval_d2fd_sum(dyn_ctx *c) { return hg_cli_d2fd_sum(c->m, c->d, c->w2, c->in, c->out); }

/* what each action reads after q (nv numbers each) and how many numbers it prints */
static const struct dyn_action {
  const char *name;
  int nvec;
  const char *vec[3];
  int (*eval)(dyn_ctx *c);
  int out_nv2, out_nv, out_1; /* results: out_nv2 nv^2 + out_nv nv + out_1 */
  int modes;                  /* takes --prescribed */
  int out_nv3;                /* and out_nv3 nv^3 numbers (second-order tensors) */
  int second;                 /* needs the second-order workspace */
} dyn_actions[] = {
    {"fd", 2, {"v", "tau"}, eval_fd, 0, 1, 0, 0, 0, 0},
    {"id", 2, {"v", "vdot"}, eval_id, 0, 1, 0, 0, 0, 0},
    {"mass", 0, {NULL, NULL}, eval_mass, 1, 0, 0, 0, 0, 0},
    {"bias", 1, {"v", NULL}, eval_bias, 0, 1, 0, 0, 0, 0},
    {"hybrid", 2, {"v", "vdot|tau"}, eval_hybrid, 0, 2, 0, 1, 0, 0},
    {"lock", 1, {"v", NULL}, eval_lock, 0, 2, 1, 1, 0, 0},
    {"did", 2, {"v", "vdot"}, eval_did, 2, 0, 0, 0, 0, 0},
    {"dfd", 2, {"v", "tau"}, eval_dfd, 3, 0, 0, 0, 0, 0},
    {"minv", 0, {NULL, NULL}, eval_minv, 1, 0, 0, 0, 0, 0},
    {"dhybrid", 2, {"v", "vdot|tau"}, eval_dhybrid, 3, 0, 0, 1, 0, 0},
    {"d2id", 2, {"v", "vdot"}, eval_d2id, 0, 0, 0, 0, 4, 1},
    {"d2fd", 2, {"v", "tau"}, eval_d2fd, 0, 0, 0, 0, 4, 1},
    {"d2id-sum", 3, {"v", "vdot", "lam"}, eval_d2id_sum, 4, 0, 0, 0, 0, 1},
    {"d2fd-sum", 3, {"v", "tau", "lam"}, eval_d2fd_sum, 4, 0, 0, 0, 0, 1},
};
#define DYN_NACTIONS ((int)(sizeof dyn_actions / sizeof dyn_actions[0]))

typedef struct dyn_action dyn_action;

static int action_inputs(const dyn_action *a, const hg_model *m) { return m->nq + a->nvec * m->nv; }

static int action_outputs(const dyn_action *a, const hg_model *m) {
  return a->out_nv3 * m->nv * m->nv * m->nv + a->out_nv2 * m->nv * m->nv + a->out_nv * m->nv +
         a->out_1;
}

/* ---- usage and arguments ---- */

void hg_cli_dynamics_usage(FILE *f) {
  fprintf(f,
          "usage: hinge dynamics MODEL info [--floating] [URDF options]\n"
          "       hinge dynamics MODEL fd|id|mass|bias [--floating] [--gravity GX GY GZ]\n"
          "       hinge dynamics MODEL did|dfd|minv [--floating] [--gravity GX GY GZ]\n"
          "       hinge dynamics MODEL d2id|d2fd|d2id-sum|d2fd-sum [--floating]\n"
          "                                        [--gravity GX GY GZ]\n"
          "       hinge dynamics MODEL hybrid|lock|dhybrid [--prescribed NAME[,NAME...]]\n"
          "                                        [--floating] [--gravity GX GY GZ]\n"
          "       hinge dynamics SCENE cid --active NAME[,NAME...] [--min-force]\n"
          "                                [--qdd NAME=VALUE[,NAME=VALUE...]]\n"
          "\n"
          "MODEL is a URDF file (.urdf or .xml), a MuJoCo MJCF file (.xml whose root is\n"
          "<mujoco>; q is MuJoCo's qpos, see docs/mjcf.md) or a scene (.yaml or .yml: its\n"
          "bodies at the start). info prints nq, nv and one line per joint:\n"
          "  joint NAME type TYPE parent BODY child BODY q OFFSET SIZE v OFFSET SIZE\n"
          "The other actions read states from standard input, one per line of numbers separated\n"
          "by white space (blank lines and lines starting with # are skipped), and print one\n"
          "line of results per state, numbers with %%.17g separated by single spaces:\n"
          "  fd      q v tau   ->  vdot                  forward dynamics\n"
          "  id      q v vdot  ->  tau                   inverse dynamics\n"
          "  mass    q         ->  M (nv*nv, row-major)  joint-space mass matrix\n"
          "  bias    q v       ->  b                     Coriolis, centrifugal and gravity forces\n"
          "  hybrid  q v x     ->  vdot tau              x: DoF by DoF, vdot of prescribed joints\n"
          "                                              and tau of the others\n"
          "  lock    q v       ->  v_after impulse energy_removed   plastic lock of the\n"
          "                                              prescribed joints (2*nv+1 numbers)\n");
  hg_cli_derivatives_usage(f);
  fprintf(f,
          "cid: constrained inverse dynamics of a scene's closed mechanism at its initial state\n"
          "(projected onto the closed loops, as a run starts): the accelerations of --qdd are\n"
          "given (NAME=VALUE for a 1-DoF joint, NAME.K=VALUE for DoF K of a joint; none: every\n"
          "DoF), the others follow from the loops (G qdd = gamma, least squares of minimum norm);\n"
          "prints the torques of the --active joints' DoFs and each closed loop's wrench that\n"
          "produce them with gravity and the scene's force elements (M qdd + b - Q = S_a tau +\n"
          "G^T lambda), the ranks, and the residual of constrained forward dynamics run with\n"
          "those torques. More actuators than the mechanism's DoFs: the torques of least norm,\n"
          "or with --min-force the loop forces of least norm. Fewer (rank(N^T S_a) < DoFs):\n"
          "refused (status 2). The scene's joint modes are not used (every DoF is active or\n"
          "passive). See docs/commands.md.\n");
  fprintf(f,
          "q holds each joint's configuration (a free joint: x y z qw qx qy qz), v the tangent\n"
          "velocities (a free joint: the body twist wx wy wz vx vy vz in its own frame).\n"
          "URDF <mimic> joints keep their q and v entries: fd sets them from their leaders and\n"
          "enforces the coupling; hybrid and lock refuse such models.\n"
          "options:\n"
          "  --floating          hang the model's root link on a free joint (<root>_root)\n"
          "  --gravity GX GY GZ  gravity in world axes (default 0 0 -9.81)\n"
          "  --prescribed NAMES  comma-separated joints whose accelerations are given\n"
          "                      (hybrid, dhybrid) or that lock (lock)\n"
          "  --fix-inertia       repair invalid URDF inertias (a note per link) instead of failing\n"
          "  --package-path DIRS folders holding the packages of package:// meshes (':'-separated,\n"
          "                      searched before ROS_PACKAGE_PATH)\n"
          "  --verbose           a note for every skipped URDF element, not one summary line\n"
          "exit status: 0 success, 1 output error, 2 bad usage, model or input line,\n"
          "             3 singular articulated inertia, 130 and 143 stopped by SIGINT and\n"
          "             SIGTERM (at the end of an input line: every line written is whole)\n");
}

/* x = the number in s, which must hold exactly one finite number; 0 or -1 */
static int parse_number(const char *s, size_t len, double *x) {
  char *end;
  if (len == 0) return -1;
  *x = strtod(s, &end);
  return end == s + len && isfinite(*x) ? 0 : -1;
}

/* "hinge dynamics: " message, the usage, and the usage exit status */
static int usage_error(const char *fmt, const char *arg) {
  return hg_cli_usage_error("dynamics", hg_cli_dynamics_usage, fmt, arg);
}

/* fills a from argv (argv[0] is "dynamics"); returns 0 or an exit status */
static int parse_args(int argc, char **argv, dyn_args *a) {
  int npos = 0;
  memset(a, 0, sizeof *a);
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
      a->help = 1;
    } else if (strcmp(s, "--floating") == 0) {
      a->floating = 1;
    } else if (strcmp(s, "--gravity") == 0) {
      if (i + 3 >= argc) return usage_error("%s needs three numbers", s);
      for (int k = 0; k < 3; k++)
        if (parse_number(argv[i + 1 + k], strlen(argv[i + 1 + k]), &a->gravity[k]))
          return usage_error("--gravity: '%s' is not a number", argv[i + 1 + k]);
      a->has_gravity = 1;
      i += 3;
    } else if (strcmp(s, "--fix-inertia") == 0) {
      a->urdf.fix_inertia = 1;
    } else if (strcmp(s, "--verbose") == 0) {
      a->urdf.verbose = 1;
    } else if (strcmp(s, "--package-path") == 0) {
      if (i + 1 >= argc) return usage_error("%s needs a list of folders", s);
      a->urdf.package_path = argv[++i];
    } else if (strcmp(s, "--active") == 0 || strcmp(s, "--qdd") == 0) {
      if (i + 1 >= argc) return usage_error("%s needs a list", s);
      *(s[2] == 'a' ? &a->active : &a->qdd) = argv[++i];
    } else if (strcmp(s, "--min-force") == 0) {
      a->min_force = 1;
    } else if (strcmp(s, "--prescribed") == 0) {
      if (i + 1 >= argc) return usage_error("%s needs a list of joint names", s);
      a->prescribed = argv[++i];
    } else if (s[0] == '-' && s[1] == '-') {
      return usage_error("unknown option '%s'", s);
    } else if (npos < 2) {
      *(npos++ == 0 ? &a->model : &a->action) = s;
    } else {
      return usage_error("unexpected argument '%s'", s);
    }
  }
  if (a->help) return 0;
  if (npos < 2) return usage_error("%s", npos ? "missing ACTION" : "missing MODEL and ACTION");
  return 0;
}

/* ---- info ---- */

/* nq, nv and the layout of q and v, joint by joint */
static void print_info(const hg_model *m) {
  printf("nq %d\nnv %d\n", m->nq, m->nv);
  for (int i = 1; i < m->nbody; i++)
    printf("joint %s type %s parent %s child %s q %d %d v %d %d\n", m->jnt_name[i],
           hg_joint_type_name(m->jnt[i].type), m->body_name[m->parent[i]], m->body_name[i],
           m->q_adr[i], m->jnt_nq[i], m->v_adr[i], m->jnt_nv[i]);
  for (int k = 0; k < m->nmimic; k++)
    printf("mimic %s leader %s multiplier %.17g offset %.17g\n", m->jnt_name[m->mimic_follower[k]],
           m->jnt_name[m->mimic_leader[k]], m->mimic_mult[k], m->mimic_offset[k]);
}

/* ---- prescribed joints ---- */

/* marks the joints of a comma-separated list prescribed; an unknown name is an error that lists
 * the joints */
static int set_prescribed(const hg_model *m, const hg_model *run, hg_data *d, const char *list) {
  const char *p = list;
  while (p && *p) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    int j = -1;
    for (int i = 1; i < m->nbody && j < 0; i++)
      if (strlen(m->jnt_name[i]) == len && strncmp(m->jnt_name[i], p, len) == 0) j = i;
    if (len > 0 && j < 0) {
      fprintf(stderr, "hinge: --prescribed: unknown joint '%.*s'; the joints are:", (int)len, p);
      for (int i = 1; i < m->nbody; i++) fprintf(stderr, "%s %s", i > 1 ? "," : "", m->jnt_name[i]);
      fprintf(stderr, "\n");
      return HG_EXIT_USAGE;
    }
    if (j > 0 && m->jnt[j].type != HG_JOINT_FIXED) { /* a fixed joint has nothing to prescribe */
      char name[256];
      snprintf(name, sizeof name, "%.*s", (int)len, p);
      d->mode[hg_model_joint(run, name)] = HG_MODE_PRESCRIBED;
    }
    p = comma ? comma + 1 : NULL;
  }
  return HG_EXIT_OK;
}

/* ---- states from standard input ---- */

/* 1 for a blank line or a comment (first non-blank character '#') */
static int skip_line(const char *line) {
  while (isspace((unsigned char)*line)) line++;
  return *line == 0 || *line == '#';
}

/* the expected input of an action, as "q[nq] v[nv] tau[nv]" */
static void describe_input(const dyn_action *a, const hg_model *m, char *s, size_t len) {
  int n = snprintf(s, len, "q[%d]", m->nq);
  for (int k = 0; k < a->nvec && n > 0 && (size_t)n < len; k++)
    n += snprintf(s + n, len - (size_t)n, " %s[%d]", a->vec[k], m->nv);
}

/* reads the numbers of one line into x (need of them); returns 0, or -1 after printing what
 * was wrong */
static int parse_line(const char *line, long lineno, double *x, int need, const char *expect) {
  const char *p = line;
  int count = 0;
  for (;;) {
    const char *start;
    double v;
    while (isspace((unsigned char)*p)) p++;
    if (!*p) break;
    start = p;
    while (*p && !isspace((unsigned char)*p)) p++;
    if (parse_number(start, (size_t)(p - start), &v)) {
      fprintf(stderr, "hinge: <stdin>:%ld: number %d, '%.*s', is not a finite number\n", lineno,
              count + 1, (int)(p - start > 40 ? 40 : p - start), start);
      return -1;
    }
    if (count < need) x[count] = v;
    count++;
  }
  if (count != need) {
    fprintf(stderr, "hinge: <stdin>:%ld: expected %d numbers (%s), got %d\n", lineno, need, expect,
            count);
    return -1;
  }
  return 0;
}

static void print_numbers(const double *x, int n) {
  for (int k = 0; k < n; k++) printf(k ? " %.17g" : "%.17g", x[k]);
  putchar('\n');
}

/* evaluates the action on every state of standard input; returns the exit status */
static int run_states(dyn_ctx *c, const dyn_action *a) {
  char expect[128], *line = NULL;
  size_t cap = 0;
  long lineno = 0;
  int status = HG_EXIT_OK, need = action_inputs(a, c->m), nout = action_outputs(a, c->m);
  describe_input(a, c->m, expect, sizeof expect);
  long got;
  /* a signal stops the loop between lines (cli.h), so that every output line is whole */
  hg_cli_catch_stop_signals();
  /* lines are bounded (readfile.h): an endless line must not grow this process */
  while (status == HG_EXIT_OK && !hg_cli_stop_signal &&
         (got = hg_file_getline(&line, &cap, stdin, HG_LINE_MAX)) != -1) {
    if (hg_cli_stop_signal) break; /* (the read it cut short may hold part of a line) */
    lineno++;
    if (got < -1) {
      if (got == -3)
        fprintf(stderr, "hinge: <stdin>:%ld: line longer than %zu bytes\n", lineno, HG_LINE_MAX);
      else
        fprintf(stderr, "hinge: <stdin>:%ld: out of memory\n", lineno);
      status = got == -3 ? HG_EXIT_USAGE : HG_EXIT_FAILURE;
      break;
    }
    if (skip_line(line)) continue;
    if (parse_line(line, lineno, c->in, need, expect)) {
      status = HG_EXIT_USAGE;
    } else if (a->eval(c)) {
      fprintf(stderr, "hinge: <stdin>:%ld: %s\n", lineno, c->d->err);
      status = HG_EXIT_SINGULAR;
    } else {
      print_numbers(c->out, nout);
    }
  }
  if (status == HG_EXIT_OK && hg_cli_stop_signal) {
    int sig = hg_cli_stop_signal;
    fprintf(stderr, "hinge: stopped by %s after %ld input lines; every output line is whole\n",
            sig == SIGINT ? "SIGINT" : "SIGTERM", lineno);
    status = 128 + sig;
  } else if (status == HG_EXIT_OK && ferror(stdin)) {
    fprintf(stderr, "hinge: <stdin>: read error\n");
    status = HG_EXIT_FAILURE;
  }
  free(line);
  return status;
}


/* ---- cid: constrained inverse dynamics of a scene ---- */

/* the DoF named by name (len chars): "JOINT" (all its DoFs: first, count) or "JOINT.K"; the
 * joint's body, or -1 */
static int find_dofs(const hg_model *m, const char *name, size_t len, int *first, int *count) {
  for (int i = 1; i < m->nbody; i++) {
    size_t n = strlen(m->jnt_name[i]);
    if (n > len || strncmp(m->jnt_name[i], name, n) != 0) continue;
    if (n == len) {
      *first = m->v_adr[i], *count = m->jnt_nv[i];
      return i;
    }
    if (name[n] == '.') {
      char *end;
      long k = strtol(name + n + 1, &end, 10);
      if (end == name + len && n + 1 < len && k >= 0 && k < m->jnt_nv[i]) {
        *first = m->v_adr[i] + (int)k, *count = 1;
        return i;
      }
    }
  }
  return -1;
}

/* the name of DoF k: the joint's, or JOINT.K for a multi-DoF joint */
static void dof_name(const hg_model *m, int k, char *s, size_t n) {
  int i = m->dof_body[k];
  if (m->jnt_nv[i] == 1) snprintf(s, n, "%s", m->jnt_name[i]);
  else snprintf(s, n, "%s.%d", m->jnt_name[i], k - m->v_adr[i]);
}

static void list_joints(const hg_model *m) {
  fprintf(stderr, "; the joints are:");
  for (int i = 1, c = 0; i < m->nbody; i++)
    if (m->jnt_nv[i] > 0) fprintf(stderr, "%s %s", c++ ? "," : "", m->jnt_name[i]);
  fprintf(stderr, "\n");
}

/* --active: the actuated DoFs into act (na of them); 0 or an exit status */
static int parse_active(const hg_model *m, const char *list, int *act, int *na) {
  unsigned char *seen = calloc((size_t)m->nv + 1, 1);
  if (!seen) return HG_EXIT_FAILURE;
  *na = 0;
  for (const char *p = list; p && *p;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    int first, count;
    if (len && find_dofs(m, p, len, &first, &count) < 0) {
      fprintf(stderr, "hinge: --active: unknown joint or DoF '%.*s'", (int)len, p);
      list_joints(m);
      return free(seen), HG_EXIT_USAGE;
    }
    for (int k = 0; len && k < count; k++)
      if (!seen[first + k]) seen[first + k] = 1, act[(*na)++] = first + k;
    p = comma ? comma + 1 : NULL;
  }
  free(seen);
  if (*na == 0) {
    fprintf(stderr, "hinge: --active names no DoF (fixed joints have none)\n");
    return HG_EXIT_USAGE;
  }
  return 0;
}

/* --qdd: the given accelerations; 0 or an exit status */
static int parse_qdd(const hg_model *m, const char *list, unsigned char *given, double *qdd) {
  for (const char *p = list; p && *p;) {
    const char *comma = strchr(p, ','), *eq;
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    double x;
    int first, count;
    eq = memchr(p, '=', len);
    if (!eq || parse_number(eq + 1, len - (size_t)(eq + 1 - p), &x)) {
      fprintf(stderr, "hinge: --qdd: '%.*s' is not NAME=VALUE with a finite VALUE\n", (int)len, p);
      return HG_EXIT_USAGE;
    }
    if (find_dofs(m, p, (size_t)(eq - p), &first, &count) < 0 || count != 1) {
      fprintf(stderr, "hinge: --qdd: '%.*s' names no single DoF (a multi-DoF joint: NAME.K)",
              (int)(eq - p), p);
      list_joints(m);
      return HG_EXIT_USAGE;
    }
    given[first] = 1, qdd[first] = x;
    p = comma ? comma + 1 : NULL;
  }
  return 0;
}

static double norm2(const double *x, int n) {
  double s = 0;
  for (int k = 0; k < n; k++) s += x[k] * x[k];
  return sqrt(s);
}

/* the whole of cid; returns the exit status */
static int run_cid(const dyn_args *a) {
  hg_error err;
  hg_sim_options opt;
  hg_cli_loops cl;
  hg_scene *sc = NULL;
  hg_sim *sim = NULL;
  hg_forces *forces = NULL;
  hg_data *d = NULL;
  hg_loops *L0 = NULL;
  int status = HG_EXIT_FAILURE;
  double *buf = NULL;
  int *act = NULL;
  unsigned char *given = NULL;
  memset(&cl, 0, sizeof cl);
  const char *ext = strrchr(a->model, '.');
  if (!ext || (strcmp(ext, ".yaml") && strcmp(ext, ".yml")))
    return usage_error("cid needs a scene (.yaml or .yml), not '%s'", a->model);
  if (!(sc = hg_scene_load(a->model, &err))) {
    fprintf(stderr, "hinge: %s\n", err.msg);
    return HG_EXIT_USAGE;
  }
  hg_sim_default_options(&opt);
  if (!(sim = hg_sim_new(sc, &opt, &err))) {
    fprintf(stderr, "hinge: %s\n", err.msg);
    hg_scene_free(sc);
    return HG_EXIT_USAGE;
  }
  const hg_model *m = hg_sim_model(sim);
  int nv = m->nv, nq = m->nq;
  if (hg_cli_loops_build(sc, m, &cl, &err)) {
    fprintf(stderr, "hinge: %s\n", err.msg);
    status = HG_EXIT_USAGE;
    goto out;
  }
  hg_loops *L = cl.L ? cl.L : (L0 = hg_loops_new(m, NULL, 0, &err));
  int mr = L ? hg_loops_maxrows(L) : 0;
  size_t nb = 6 * (size_t)m->nbody;
  d = hg_data_new(m);
  buf = calloc((size_t)nq + 6 * (size_t)nv + 2 * nb + 2 * (size_t)mr + 8, sizeof(double));
  act = calloc((size_t)nv + 1, sizeof(int));
  given = calloc((size_t)nv + 1, 1);
  if (!L || !d || !buf || !act || !given) {
    fprintf(stderr, "hinge: %s\n", L ? "out of memory" : err.msg);
    goto out;
  }
  double *q = buf, *v = q + nq, *qdd = v + nv, *tau_ext = qdd + nv, *tau = tau_ext + nv,
         *qdd_fd = tau + nv, *tau_a = qdd_fd + nv, *fext = tau_a + nv, *fext2 = fext + nb,
         *lam = fext2 + nb, *lam_fd = lam + mr;
  memcpy(q, hg_sim_q(sim), (size_t)nq * sizeof(double));
  memcpy(v, hg_sim_v(sim), (size_t)nv * sizeof(double));
  int na;
  if ((status = parse_active(m, a->active, act, &na)) || (status = parse_qdd(m, a->qdd, given, qdd)))
    goto out;
  status = HG_EXIT_SINGULAR;
  /* the accelerations: the given ones, the rest from the loops */
  double res_qdd;
  int undetermined;
  if (hg_loops_complete_qdd(m, L, d, q, v, cl.active, given, qdd, &res_qdd, &undetermined)) {
    fprintf(stderr, "hinge: %s\n", d->err);
    goto out;
  }
  double scale = 1;
  for (int k = 0; k < nv; k++) scale = fmax(scale, fabs(qdd[k]));
  if (res_qdd > 1e-9 * scale) {
    fprintf(stderr, "hinge: the given accelerations are not ones the closed loops allow: "
            "max|G qdd - gamma| = %.3g after the others were fitted\n", res_qdd);
    status = HG_EXIT_USAGE;
    goto out;
  }
  /* the applied forces at the start: gravity (in the model) and the enabled force elements */
  hg_force_input in;
  hg_forces_input_of(sc, &in);
  in.lenient = 1;
  if (!(forces = hg_forces_build(&in, NULL, m, &err))) {
    fprintf(stderr, "hinge: %s\n", err.msg);
    status = HG_EXIT_USAGE;
    goto out;
  }
  for (int k = 0; k < hg_sim_nforce(sim); k++) {
    hg_force_view fv;
    hg_sim_force(sim, k, &fv);
    int e = hg_forces_find(forces, fv.name);
    if (e >= 0) hg_forces_set_enabled(forces, e, fv.enabled);
  }
  double t = hg_sim_time(sim);
  hg_kinematics(m, d, q, v);
  hg_forces_apply(forces, m, d, t, q, v, fext, tau_ext);
  hg_loops_id_info info;
  int rc = hg_loops_inverse(m, L, d, q, v, qdd, cl.active, act, na, a->min_force, fext, tau_ext,
                            tau_a, lam, &info);
  if (rc == 1) {
    fprintf(stderr, "hinge: under-actuated: the %d active DoFs drive rank(N^T S_a) = %d of the "
            "mechanism's %d DoFs (nv %d, rank G %d); actuate more joints\n",
            na, info.rank_act, info.dof, nv, info.rank_G);
    status = HG_EXIT_USAGE;
    goto out;
  }
  if (rc) {
    fprintf(stderr, "hinge: %s\n", d->err);
    goto out;
  }
  /* the check: constrained forward dynamics with these torques */
  memcpy(tau, tau_ext, (size_t)nv * sizeof(double));
  for (int j = 0; j < na; j++) tau[act[j]] += tau_a[j];
  memcpy(fext2, fext, nb * sizeof(double));
  hg_kinematics(m, d, q, v);
  if (hg_loops_hybrid(L, d, q, v, cl.active, qdd_fd, tau, fext2, lam_fd)) {
    fprintf(stderr, "hinge: forward dynamics: %s\n", d->err);
    goto out;
  }
  double fd_res = 0;
  for (int k = 0; k < nv; k++) fd_res = fmax(fd_res, fabs(qdd_fd[k] - qdd[k]));
  /* the report */
  char name[300];
  printf("scene %s at t = %.9g (its initial state, projected onto the closed loops)\n", a->model,
         t);
  printf("loops %d closed, rows %d, rank G %d; mechanism DoFs %d (nv %d)\n", cl.nactive,
         info.nc, info.rank_G, info.dof, nv);
  printf("actuation %d active DoFs, rank(N^T S_a) %d of %d DoFs: %s", na, info.rank_act,
         info.dof, info.redundant ? "redundant" : "exact");
  if (info.redundant)
    printf(" (%d extra), %s", info.redundant,
           a->min_force ? "minimum loop force (--min-force)" : "minimum-norm torques");
  printf("\napplied gravity %g %g %g", m->gravity[0], m->gravity[1], m->gravity[2]);
  int nel = hg_forces_count(forces), shown = 0;
  for (int k = 0; k < nel; k++)
    if (hg_forces_enabled(forces, k) && !hg_forces_inert(forces, k))
      printf("%s%s", shown++ ? ", " : "; force elements ", hg_forces_name(forces, k));
  printf("\nqdd max|G qdd - gamma| %.3g\n", res_qdd);
  if (undetermined)
    printf("note %d DoFs of qdd are fixed neither by --qdd nor by the loops: minimum norm\n",
           undetermined);
  for (int k = 0; k < nv; k++) {
    dof_name(m, k, name, sizeof name);
    printf("qdd %s %.17g%s\n", name, qdd[k], given[k] ? " given" : "");
  }
  for (int j = 0; j < na; j++) {
    dof_name(m, act[j], name, sizeof name);
    printf("tau %s %.17g\n", name, tau_a[j]);
  }
  printf("norm tau %.17g\n", norm2(tau_a, na));
  hg_kinematics(m, d, q, v);
  if (cl.nactive)
    printf("# wrench LOOP mx my mz fx fy fz: what marker A's side applies to B's side, moment\n"
           "# about A's origin then force, A's axes (N m, N); a coupling: its force or torque\n");
  for (int k = 0, off = 0; k < cl.n; k++) {
    if (!cl.active[k]) continue;
    double w[6];
    hg_loops_wrench(L, d, k, lam + off, w);
    if (cl.spec[k]->coupling)
      printf("wrench %s coupling %.17g\n", cl.spec[k]->name, lam[off]);
    else
      printf("wrench %s %.17g %.17g %.17g %.17g %.17g %.17g\n", cl.spec[k]->name, w[0], w[1],
             w[2], w[3], w[4], w[5]);
    off += hg_loops_nrow(L, k);
  }
  printf("norm lambda %.17g\n", norm2(lam, info.nc));
  printf("residual equations %.3g\n", info.residual);
  printf("residual forward %.3g\n", fd_res);
  status = HG_EXIT_OK;
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "hinge: error writing the output\n");
    status = HG_EXIT_FAILURE;
  }
out:
  free(buf), free(act), free(given);
  hg_data_free(d);
  hg_forces_free(forces);
  hg_loops_free(L0);
  hg_cli_loops_free(&cl);
  hg_sim_free(sim);
  hg_scene_free(sc);
  return status;
}

/* ---- the subcommand ---- */

static const dyn_action *find_action(const char *name) {
  for (int k = 0; k < DYN_NACTIONS; k++)
    if (strcmp(dyn_actions[k].name, name) == 0) return &dyn_actions[k];
  return NULL;
}

/* the workspace and line buffers of a model for action a (with the second-order workspace when
 * it needs one); -1 when out of memory */
static int ctx_init(dyn_ctx *c, hg_model *m, const dyn_action *a) {
  int d2 = a && a->second;
  size_t nv = (size_t)m->nv, n3 = a ? (size_t)a->out_nv3 * nv * nv * nv : 0;
  c->m = m;
  c->d = hg_data_new(m);
  c->w = hg_deriv_new(m);
  c->mimic = hg_mimic_ws_new(m);
  c->in = malloc(((size_t)m->nq + 3 * nv + 1) * sizeof(double));
  c->out = malloc(((4 * nv * nv + 2 * nv > n3 ? 4 * nv * nv + 2 * nv : n3) + 1) * sizeof(double));
  c->w2 = d2 ? hg_deriv2_new(m) : NULL;
  return c->d && c->w && c->mimic && c->in && c->out && (c->w2 || !d2) ? 0 : -1;
}

static void ctx_free(dyn_ctx *c) {
  hg_data_free(c->d);
  hg_deriv_free(c->w);
  hg_deriv2_free(c->w2);
  hg_mimic_ws_free(c->mimic);
  free(c->in);
  free(c->out);
  hg_model_free(c->m);
}

/* the action on a loaded model (the states run on the model with its fixed links merged, c->m);
 * returns the exit status */
static int run_action(dyn_ctx *c, const hg_model *full, const dyn_args *args, const dyn_action *a) {
  int status = HG_EXIT_OK;
  if (args->has_gravity) memcpy(c->m->gravity, args->gravity, sizeof args->gravity);
  if (!a) {
    print_info(full);
  } else if (a->modes && c->m->nmimic) {
    fprintf(stderr, "hinge: %s: the model has mimic joints, which %s does not support (fd "
            "enforces them; id, mass and bias give the values of the uncoupled joints)\n",
            args->model, a->name);
    status = HG_EXIT_USAGE;
  } else {
    if (args->prescribed) status = set_prescribed(full, c->m, c->d, args->prescribed);
    if (status == HG_EXIT_OK) status = run_states(c, a);
  }
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "hinge: error writing the output\n");
    if (status == HG_EXIT_OK) status = HG_EXIT_FAILURE;
  }
  return status;
}

int hg_cli_dynamics(int argc, char **argv) {
  dyn_args args;
  const dyn_action *a = NULL;
  dyn_ctx c;
  hg_error err;
  hg_model *m;
  int status = parse_args(argc, argv, &args);
  if (status != HG_EXIT_OK) return status;
  if (args.help) {
    hg_cli_dynamics_usage(stdout);
    return HG_EXIT_OK;
  }
  int cid = strcmp(args.action, "cid") == 0;
  if ((args.active || args.qdd || args.min_force) && !cid)
    return usage_error("--active, --qdd and --min-force apply to cid, not %s", args.action);
  if (cid) {
    if (!args.active) return usage_error("%s", "cid needs --active NAME[,NAME...]");
    if (args.has_gravity || args.floating || args.prescribed)
      return usage_error("%s", "cid takes the scene's gravity and joints: no --gravity, "
                               "--floating or --prescribed");
    return run_cid(&args);
  }
  if (strcmp(args.action, "info") != 0 && !(a = find_action(args.action)))
    return usage_error("unknown action '%s'", args.action);
  if (args.prescribed && !(a && a->modes))
    return usage_error("--prescribed applies to hybrid, lock and dhybrid, not %s", args.action);
  args.urdf.floating = args.floating;
  args.urdf.notes = stderr;
  m = hg_cli_load_model(args.model, &args.urdf, &err);
  if (!m) {
    fprintf(stderr, "hinge: %s\n", err.msg);
    return HG_EXIT_USAGE;
  }
  memset(&c, 0, sizeof c);
  /* fixed links merged for the dynamics: the same q, v and results to round-off, fewer bodies */
  hg_model *run = hg_model_merge_fixed(m, NULL, NULL, &err);
  if (!run || ctx_init(&c, run, a)) {
    fprintf(stderr, "hinge: out of memory\n");
    status = HG_EXIT_FAILURE;
  } else {
    status = run_action(&c, m, &args, a);
  }
  ctx_free(&c);
  hg_model_free(m);
  return status;
}
