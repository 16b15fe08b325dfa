/* controller_lib.h: users' controller libraries (dlopen) and the one instance interface the
 * runtime calls for every controller: a library's, an external process's (controller_proc.h) or a
 * built-in's.
 *
 * The ABI a library implements is hinge/control.h. An instance (hg_ctl) wraps a table of the
 * ABI's functions (hg_ctl_ops) and one state: hg_ctl_new calls init, hg_ctl_step calls step and
 * checks what it wrote, hg_ctl_free calls finish. Every error message says which controller:
 * "controller 'NAME' at t = T: <message>" for a step, "controller 'NAME': <message>" otherwise.
 *
 * What an instance checks around a step: a non-zero return (its message), an output that is
 * +-inf (the port and index), and it turns NaN outputs into the commands in force (hold). It
 * cannot guard against a library's step that never returns or crashes the process: a library runs
 * inside hinge (run an untrusted or fragile controller as an external process instead). It
 * measures each step's wall time (CLOCK_MONOTONIC) for the run's summary.
 *
 * Lifetimes: a library (hg_ctl_lib) outlives the instances made from its ops; hg_ctl_lib_close
 * after the last hg_ctl_free. An instance is used from one thread at a time. */
#ifndef HINGE_CONTROLLER_LIB_H
#define HINGE_CONTROLLER_LIB_H

#include <stddef.h>

#include "hinge/control.h"

/* The functions of one kind of controller, the ABI's types (hinge/control.h). step is required;
 * a NULL init gives a NULL state, a NULL finish frees nothing, a NULL set refuses parameter
 * changes, NULL save and load make init alone restore a checkpoint (save and load come as a
 * pair). The runtime fills one for each built-in controller. */
typedef struct hg_ctl_ops {
  hg_control_init_fn *init;
  hg_control_step_fn *step;
  hg_control_finish_fn *finish;
  hg_control_set_fn *set;
  hg_control_save_fn *save;
  hg_control_load_fn *load;
} hg_ctl_ops;

/* a loaded controller library: its handle and the functions found in it (opaque) */
typedef struct hg_ctl_lib hg_ctl_lib;

/* Opens the shared library at path (dlopen with RTLD_NOW | RTLD_LOCAL) and finds its functions.
 * path is used as given: a path without '/' is searched as dlopen searches (LD_LIBRARY_PATH, the
 * system's folders), never in the working directory, so the caller resolves a scene's relative
 * path against the scene's folder first.
 * It must define hg_control_abi equal to HG_CONTROL_ABI (HG_CONTROL_DECLARE_ABI) and the step
 * function step_symbol. init_symbol and finish_symbol name the init and finish functions; NULL
 * derives them from step_symbol (its trailing "step" replaced by "init" and "finish", or "_init"
 * and "_finish" appended when it does not end in "step"): a derived one may be absent, a named
 * one must exist. set, save and load are always derived ("adcs_set", "adcs_save", "adcs_load")
 * and optional, save and load as a pair. 0 and *out, or -1 with a message in err:
 *   "cannot open controller library 'PATH': <dlerror>"
 *   "'PATH': not a hinge controller library (no hg_control_abi: build it with
 *    HG_CONTROL_DECLARE_ABI)"
 *   "'PATH' was built for hinge controller ABI N; this hinge loads ABI 1 (rebuild it ...)"
 *   "'PATH' has no function 'SYMBOL' (<dlerror>)"
 *   "'PATH' has 'adcs_save' but no 'adcs_load' (a checkpoint needs both)" (and the converse) */
int hg_ctl_lib_open(const char *path, const char *step_symbol, const char *init_symbol,
                    const char *finish_symbol, hg_ctl_lib **out, char *err, size_t errlen);
/* the library's functions, for hg_ctl_new (valid until hg_ctl_lib_close) */
const hg_ctl_ops *hg_ctl_lib_ops(const hg_ctl_lib *lib);
/* the path it was opened from */
const char *hg_ctl_lib_path(const hg_ctl_lib *lib);
/* dlclose and free; after every instance made from it is freed. NULL is fine. */
void hg_ctl_lib_close(hg_ctl_lib *lib);

/* one controller instance (opaque) */
typedef struct hg_ctl hg_ctl;

/* the wall time of an instance's steps (CLOCK_MONOTONIC) */
typedef struct hg_ctl_timing {
  long count;     /* steps made */
  double total;   /* their total wall time, s */
  double max;     /* the longest one, s */
} hg_ctl_timing;

/* Makes an instance: checks the setup (ports inside the vectors, rate > 0), copies what it needs
 * (the name, the ports) and calls ops->init with a copy of the setup whose abi is
 * HG_CONTROL_ABI. ops is copied. 0 and *out, or -1 with "controller 'NAME': <message>" in err
 * (init's message when init fails; then finish is not called). */
int hg_ctl_new(const hg_ctl_ops *ops, const hg_control_setup *setup, hg_ctl **out, char *err,
               size_t errlen);
/* Wraps a state made elsewhere (an external process, controller_proc.c): as hg_ctl_new without
 * the call to init. On failure it calls ops->finish(state). */
int hg_ctl_adopt(const hg_ctl_ops *ops, void *state, const hg_control_setup *setup, hg_ctl **out,
                 char *err, size_t errlen);

/* One sample at time t: in has the setup's nin numbers; out has nout numbers, the commands in
 * force on entry (NaN where none yet) and the new ones on return, a NaN the controller wrote
 * replaced by the command in force. 0, or -1 with "controller 'NAME' at t = T: <message>" in err
 * when the step returned non-zero (its message, or "its step failed" when it gave none) or wrote
 * +-inf ("output 'PORT'[k] is inf"); the run stops then (out holds what the step wrote). */
int hg_ctl_step(hg_ctl *c, double t, const double *in, double *out, char *err, size_t errlen);

/* Parameter param becomes the n numbers in value (the controller's set). 0, or -1 with
 * "controller 'NAME': ..." in err: its message, or that it takes no changes during a run. */
int hg_ctl_set(hg_ctl *c, const char *param, int n, const double *value, char *err,
               size_t errlen);

/* Checkpoints. hg_ctl_save returns how many numbers the state needs (0 for a controller without
 * save: init restores it) and writes them into buf when cap is at least that; -1 with a message
 * when the controller says it cannot save. hg_ctl_load restores them into an instance just made
 * by hg_ctl_new with the same setup: 0, or -1 with a message (also for n > 0 and no load). */
int hg_ctl_save(hg_ctl *c, double *buf, int cap, char *err, size_t errlen);
int hg_ctl_load(hg_ctl *c, const double *buf, int n, char *err, size_t errlen);

/* the controller's name, and its setup's nin and nout */
const char *hg_ctl_name(const hg_ctl *c);
int hg_ctl_nin(const hg_ctl *c);
int hg_ctl_nout(const hg_ctl *c);
/* the wall time of its steps so far */
hg_ctl_timing hg_ctl_get_timing(const hg_ctl *c);
/* one line for a run's summary: "controller 'NAME': N steps, mean X us, max Y us" (no newline) */
void hg_ctl_timing_line(const hg_ctl *c, char *buf, size_t len);

/* Calls finish (once) and frees the instance. NULL is fine. */
void hg_ctl_free(hg_ctl *c);

#endif
