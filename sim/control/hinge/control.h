/* hinge/control.h: the C ABI of a user's controller library for hinge's control in the loop.
 *
 * A controller is a discrete-time function sampled at its own rate: at each sample time t it reads
 * an input vector (the measurements of the sensors it lists, concatenated in the order of its
 * inputs) and writes an output vector (the commands of the actuators it lists, concatenated in the
 * order of its outputs). hinge holds each command (zero-order hold) until the next sample.
 *
 * A library is a shared object that includes this header only (it needs nothing else of hinge):
 *
 *     #include <hinge/control.h>
 *     HG_CONTROL_DECLARE_ABI;                  (once, in one source file of the library)
 *     HG_CONTROL_API int adcs_init(const hg_control_setup *setup, void **state,
 *                                  char *err, size_t errlen);
 *     HG_CONTROL_API int adcs_step(void *state, double t, const double *in, double *out,
 *                                  char *err, size_t errlen);
 *     HG_CONTROL_API void adcs_finish(void *state);
 *
 * built with `cc -shared -fPIC -I<hinge>/sim/control -o libadcs.so adcs.c` and named in a scene
 * (docs/control-abi.md). hinge finds the functions by name: the step function is the scene's
 * `symbol`; the others are named after it, its trailing "step" replaced ("adcs_step" ->
 * "adcs_init", "adcs_finish", "adcs_set", "adcs_save", "adcs_load"; a symbol that does not end in
 * "step" gets "_init" and the others appended). Only the step function is required.
 *
 * The rules every controller follows:
 *  - Units are SI (metres, kilograms, seconds, radians, newtons, newton metres; rates in hertz),
 *    as everywhere in hinge. Times are simulation times in seconds.
 *  - in and out are arrays of doubles laid out in the order of the ports: port k's numbers are
 *    in[input[k].offset .. input[k].offset + input[k].n - 1] (the same for out and output[k]).
 *  - On entry to step, out holds the commands in force (the previous step's outputs; NaN where no
 *    command has been given yet), so a controller may leave some of them unchanged.
 *  - NaN in an output means "no command": hinge keeps the command in force (hold). Any other
 *    non-finite output (+-inf) is an error that stops the run.
 *  - A function returns 0 on success. On failure it returns non-zero and writes a one-line
 *    message (NUL-terminated, at most errlen bytes with the NUL) into err; hinge stops the run
 *    cleanly with "controller 'NAME' at t = T: <message>". err holds "" on entry.
 *  - The functions must never call exit, abort, longjmp out, or raise signals: they return an
 *    error instead. They must return: hinge cannot interrupt a library's function, so a step that
 *    never returns hangs the run (an external process controller has a per-step timeout instead).
 *  - Threading: each instance (one state) is called from one thread at a time, never
 *    concurrently. Several instances of one library (two controllers of a scene naming it, or the
 *    runs of a Monte Carlo campaign on several threads) each get their own state from init and may
 *    run at the same time on different threads: keep everything mutable in the state, never in
 *    global or static variables.
 *  - The setup and everything it points to (names, parameter values, ports) are valid during the
 *    call to init only: copy what the controller needs into its state.
 *  - Memory a controller allocates it frees itself, in finish. Every instance whose init
 *    succeeded gets exactly one finish call, also when the run stops on an error; an instance
 *    whose init failed gets none (init frees what it allocated before it returns the error).
 */
#ifndef HINGE_CONTROL_H
#define HINGE_CONTROL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the version of this ABI: a library records it (HG_CONTROL_DECLARE_ABI) and hinge loads only a
 * library built against the same version */
#define HG_CONTROL_ABI 1

/* makes a library's symbol visible to hinge's loader also when the library is built with
 * -fvisibility=hidden */
#if defined(__GNUC__) || defined(__clang__)
#define HG_CONTROL_EXPORT __attribute__((visibility("default")))
#else
#define HG_CONTROL_EXPORT
#endif

/* put before each function hinge looks up: external C linkage (also from C++) and visible */
#ifdef __cplusplus
#define HG_CONTROL_API extern "C" HG_CONTROL_EXPORT
#else
#define HG_CONTROL_API HG_CONTROL_EXPORT
#endif

/* the version the library was built against: defined by HG_CONTROL_DECLARE_ABI, read by hinge's
 * loader before anything else (a library without it is not a hinge controller library) */
HG_CONTROL_EXPORT extern const int hg_control_abi;

/* write `HG_CONTROL_DECLARE_ABI;` once, at file scope, in one source file of the library */
#ifdef __cplusplus
#define HG_CONTROL_DECLARE_ABI \
  extern "C" HG_CONTROL_EXPORT const int hg_control_abi = HG_CONTROL_ABI
#else
#define HG_CONTROL_DECLARE_ABI HG_CONTROL_EXPORT const int hg_control_abi = HG_CONTROL_ABI
#endif

/* one parameter of the controller, from the scene's `params:` mapping */
typedef struct hg_control_param {
  const char *name;     /* the key, e.g. "kp" */
  int n;                /* how many numbers: 1 for a scalar, the length for a list; 0 for a string */
  const double *value;  /* the n numbers (NULL when n == 0) */
  const char *text;     /* the string when n == 0, else NULL */
} hg_control_param;

/* one input (a sensor) or output (an actuator) of the controller, and where its numbers are */
typedef struct hg_control_port {
  const char *name;  /* the sensor's or actuator's name in the scene */
  const char *kind;  /* its kind: "gyro", "encoder", "motor", "thruster", ... */
  int offset;        /* index of its first number in the in (or out) vector */
  int n;             /* how many numbers it has (a gyro 3, a motor 1) */
} hg_control_port;

/* what init is told about the controller; valid during the call to init only */
typedef struct hg_control_setup {
  int abi;                        /* HG_CONTROL_ABI of the hinge that loads the library */
  const char *name;               /* the controller's name in the scene */
  double rate;                    /* sample rate, Hz: step is called at t0 + k / rate */
  double t0;                      /* the first sample time, s */
  int nparam;                     /* parameters, in the scene's order */
  const hg_control_param *param;
  int ninput;                     /* input ports (sensors), in the scene's order */
  const hg_control_port *input;
  int nin;                        /* length of the in vector: the sum of the inputs' n */
  int noutput;                    /* output ports (actuators), in the scene's order */
  const hg_control_port *output;
  int nout;                       /* length of the out vector: the sum of the outputs' n */
} hg_control_setup;

/* Makes one instance: checks the setup (ports and parameters it expects), allocates its state and
 * stores it in *state (NULL is fine for a controller without state). 0, or non-zero with a
 * message in err. Optional: without it the state is NULL. */
typedef int hg_control_init_fn(const hg_control_setup *setup, void **state, char *err,
                               size_t errlen);

/* One sample at time t: reads in (nin numbers), writes out (nout numbers; on entry the commands
 * in force). 0, or non-zero with a message in err to stop the run. Required. */
typedef int hg_control_step_fn(void *state, double t, const double *in, double *out, char *err,
                               size_t errlen);

/* Frees the state. Called once per successful init, at the end of the run. Optional. */
typedef void hg_control_finish_fn(void *state);

/* Optional: parameter `param` changes to the n numbers in value during a run (a gain changed
 * from hinge's command interface), taking effect at the next step. 0, or non-zero with a message
 * (unknown parameter, wrong length) and the state unchanged. Without it, parameters cannot change
 * during a run. */
typedef int hg_control_set_fn(void *state, const char *param, int n, const double *value,
                              char *err, size_t errlen);

/* Optional, with load: checkpoints. save returns how many numbers the state needs; it writes them
 * into buf only when cap (buf's length) is at least that count (hinge calls it with cap 0 and
 * buf NULL to ask). Returns a negative count to say it cannot save. load restores a state made by
 * init from the n numbers save wrote (at a resume, in an instance made by init with the same
 * setup): 0, or non-zero with a message. A controller without them is restored by init alone,
 * which is exact only when its state is a function of the setup (a PD law); a controller with
 * evolving state (an integrator, a filter, an estimator) provides both. */
typedef int hg_control_save_fn(void *state, double *buf, int cap);
typedef int hg_control_load_fn(void *state, const double *buf, int n, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
