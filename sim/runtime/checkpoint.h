/* checkpoint.h: checkpoints of the simulation runtime (not a public header): the full state of a
 * run as a text file (the format is checkpoint.c's), resuming from one, and the last good state.
 *
 * Who writes each field:
 *   good, good_len, good_t   hg_ck_keep_good (checkpoint.c: after output rows and events whose
 *                  state sim.c found finite with the energy budget still closing); freed by
 *                  hg_ck_free */
#ifndef HINGE_RT_CHECKPOINT_H
#define HINGE_RT_CHECKPOINT_H

#include "sim.h"

typedef struct hg_rt_checkpoint {
  /* the last good state: a checkpoint of the last output row or event whose state was finite
   * with the energy budget still closing, for failure-state.txt */
  char *good;
  size_t good_len;
  double good_t;
} hg_rt_checkpoint;

/* The checkpoint of the current state into the file path, replacing it whole (outfile.h: a
 * temporary beside it, synced and renamed over it; a link under the name is replaced, never
 * written through). 0, or -1 with "cannot write PATH: REASON" in msg (when not NULL); on a
 * failure the file under path is the one that was there before. */
int hg_ck_write(const hg_sim *s, const char *path, char *msg, size_t len);
/* n bytes of text (a checkpoint kept in memory) into path the same way; 0, or -1 with msg */
int hg_ck_write_text(const char *text, size_t n, const char *path, char *msg, size_t len);
/* reads the checkpoint's state, history and modes into s (the integrator is the caller's); 0 or
 * -1 with err */
int hg_ck_resume(hg_sim *s, const char *path, hg_error *err);
/* keeps the current state as the last good one */
void hg_ck_keep_good(hg_sim *s);
void hg_ck_free(hg_sim *s);

#endif
