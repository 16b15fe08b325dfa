/* output.h: the files of a run, written by an observer of the simulation (sim.h, hg_sim_observe)
 * that reads it only through the simulation's views:
 *   trajectory.csv  one row per output time: bodies' world poses and twists, the scene's joints
 *                   (mode, q, v, load), the scene's closed loops (closed, wrench, violations),
 *                   separations of the output pairs, energy budget, momentum
 *   joints.csv      every joint of the current model at each output time (docking joints too)
 *   events.csv      one row per event, with momentum and energy before and after
 *   summary.txt     status, integrator statistics, events, invariants, closed loops, energy
 *                   budget, timing
 *   energy.png, momentum.png, separation.png, loads.png   the plots (plot.c, PLplot)
 *   actuators.csv, sensors.csv, controllers.csv, control.png   control in the loop, when the
 *                   scene has actuators, sensors or controllers (control_out.c)
 * and a progress bar. docs/outputs.md describes every column and its unit. */
#ifndef HINGE_OUTPUT_H
#define HINGE_OUTPUT_H

#include <stdio.h>

#include "sim.h"

typedef struct hg_output_options {
  const char *dir;   /* the folder the files go to (it must exist); NULL: no files */
  int plots;         /* write the PNG plots (when the scene's output.plots allows them too) */
  FILE *progress;    /* a progress bar (a terminal), or NULL */
  FILE *notices;     /* one line for each event that refuses or skips an action (its details
                      * say REFUSED or skipped), as events.csv logs it: stderr by default, or
                      * NULL for none */
} hg_output_options;

void hg_output_default_options(hg_output_options *o);

/* Attaches the outputs to sim (hg_sim_observe: before hg_sim_resume and the first hg_sim_run).
 * trajectory.csv, joints.csv and events.csv are opened at once and written as the run goes;
 * hg_sim_finish writes summary.txt and the plots and closes them; hg_sim_free frees them.
 * 0, or -1 with err (a file that cannot be written, out of memory, a run already begun). */
int hg_output_attach(hg_sim *sim, const hg_output_options *o, hg_error *err);

/* Removes from folder dir the files a run writes there (trajectory.csv, joints.csv, events.csv,
 * summary.txt, the plots, the control files, failure-state.txt, checkpoint-NNNN.txt, and the
 * temporaries NAME.tmp-XXXXXX of a run killed while writing NAME) and nothing else, except the
 * file keep (NULL: none; a checkpoint being resumed). 0, or -1 when the folder
 * cannot be read or a file cannot be removed. */
int hg_output_clear(const char *dir, const char *keep);

#endif
