/* controller_proc.h: an external process as a controller (a scene's `type: external`,
 * `command: "python3 ctl.py"`), run in lockstep with the simulation through its standard input
 * and output.
 *
 * hinge starts the command with /bin/sh -c (in the folder dir when one is given, else in hinge's
 * working directory), in a process group of its own. The child's stdin and stdout are pipes to
 * hinge; its stderr is hinge's stderr (its messages reach the user as they are).
 *
 * The protocol, version 1: text lines ending in '\n', numbers written by hinge with %.17g (so a
 * double goes across exactly; "nan" and "inf" for non-finite ones), numbers read with strtod
 * (any decimal or hexadecimal form, "nan", "inf"). Names are the scene's, with any white space
 * replaced by '_'.
 *   hinge writes, once, at the start:
 *     hinge-control 1 NAME RATE NIN NOUT      the protocol version, the controller's name, its
 *                                             sample rate (Hz), the lengths of in and out
 *     param NAME V1 V2 ...                    one per numeric parameter, in the scene's order
 *     text NAME STRING                        one per string parameter (the rest of the line)
 *     input NAME KIND N                       one per input port, in order (their numbers are
 *                                             concatenated in this order)
 *     output NAME KIND N                      one per output port, in order
 *     end
 *   (a controller skips lines it does not know before `end`: later versions may add some); then
 *   at each sample time T hinge writes
 *     step T IN_1 ... IN_NIN
 *   and the controller answers with one line, either
 *     OUT_1 ... OUT_NOUT                      exactly NOUT numbers (nan: hold that command), or
 *     error MESSAGE                           the run stops with MESSAGE;
 *   at the end of the run hinge writes
 *     finish
 *   closes the child's stdin and waits HG_CTL_PROC_GRACE seconds for it to exit before it kills
 *   it. The controller must flush its output after each answer (Python: print(..., flush=True)).
 *
 * Failures are errors that stop the run cleanly, never a hang: a step not answered within the
 * timeout, a child that exits or closes its stdout or stdin, a line that is not NOUT numbers, or
 * a line longer than HG_CTL_PROC_MAX_LINE bytes. The message says what happened and how the child
 * ended ("exited with status 3", "killed by signal 11 (Segmentation fault)", or that hinge killed
 * it); hinge kills (SIGKILL, the whole process group) and reaps a child that failed. Writing to a
 * child that has gone never raises SIGPIPE in hinge (the signal is blocked around hinge's writes
 * and a pending one consumed).
 *
 * Protocol 1 has no parameter changes at run time and no checkpoint of the process's state: a
 * resumed run starts the process again (its state is what the setup lines make). */
#ifndef HINGE_CONTROLLER_PROC_H
#define HINGE_CONTROLLER_PROC_H

#include <stddef.h>

#include "controller_lib.h"

#define HG_CTL_PROC_PROTOCOL 1
/* the default per-step timeout, s */
#define HG_CTL_PROC_TIMEOUT 10.0
/* the least time the first step (with the setup) is given, s: it includes the child's start-up
 * (an interpreter, its imports), which a per-step timeout sized for the steps would not cover */
#define HG_CTL_PROC_STARTUP 30.0
/* how long hinge waits for the child to exit after `finish`, s */
#define HG_CTL_PROC_GRACE 2.0
/* the longest line hinge reads from a child, bytes (with its '\n') */
#define HG_CTL_PROC_MAX_LINE (1 << 20)

/* Starts command (sh -c; in folder dir unless dir is NULL or "") as the controller described by
 * setup, writes the setup lines, and wraps it in an instance (controller_lib.h) whose step is one
 * exchange of the protocol and whose free writes `finish` and reaps the child. timeout is the
 * per-step limit in seconds (<= 0: HG_CTL_PROC_TIMEOUT), also for writing the setup. 0 and *out,
 * or -1 with "controller 'NAME': external process 'COMMAND' ..." in err. */
int hg_ctl_proc_new(const char *command, const char *dir, double timeout,
                    const hg_control_setup *setup, hg_ctl **out, char *err, size_t errlen);

#endif
