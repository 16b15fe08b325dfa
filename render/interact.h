/* interact.h: what a user does to a running simulation from the viewer, through the runtime's
 * command API only (sim.h: hg_sim_parse_command, hg_sim_command, hg_sim_preview): the
 * selection and its panel, the command line with name completion, freezing and thawing the
 * selected joints with a preview of the impulse, and the mouse pull. Every change is a command,
 * so a session is recorded by the simulation itself and written with hg_sim_write_commands.
 * No GL and no SDL here: the viewer feeds events in and draws what these functions give. */
#ifndef HINGE_RENDER_INTERACT_H
#define HINGE_RENDER_INTERACT_H

#include "drawlist.h"
#include "frame.h"
#include "sim.h"

#define HG_SEL_MAX 16
#define HG_CMDLINE_MAX 256

typedef struct hg_interact {
  /* the selection: bodies by name (the history's string table), so it survives topology
   * changes; sel_cursor is the one the panel shows */
  int nsel, sel[HG_SEL_MAX], sel_cursor;
  int degrees;                  /* the panel shows angles in degrees (else radians) */
  /* the command line (':' opens it) */
  int cmdline;                  /* open */
  char line[HG_CMDLINE_MAX];
  char result[512];             /* what the last command did, or its error */
  int result_error;
  /* a pending mode switch of the selected joints, previewed until committed or cancelled */
  int preview;                  /* 1: pending */
  char preview_cmd[HG_CMDLINE_MAX];
  char preview_text[512];
  int npv;                      /* bodies with a velocity jump arrow */
  double pv_p[HG_SEL_MAX * 8][3], pv_v[HG_SEL_MAX * 8][3];
  /* the mouse pull (perturb / release commands) */
  int pulling, pull_body;       /* pull_body: name */
  double pull_point[3];         /* the grabbed point, body frame */
  double pull_target[3];        /* where the mouse puts it, world */
  double pull_depth;            /* the grab point's distance along the view axis */
  double pull_k, pull_c;        /* spring stiffness (N/m) and damping (N s/m) */
  double pull_sent_t;           /* the simulation time of the last perturb sent (NaN: none) */
  double pull_sent[3];          /* its target */
  int pull_turn;                /* 1: the drag turns the target about pull_centre (right button) */
  double pull_centre[3];        /* the body's centre of mass at the grab, world */
  double pull_grab[3];          /* the grabbed point at the grab, world */
  int pull_frame;               /* 1: the target moves with the free-flying bodies' centre of
                                   mass (perturb ... com), 0: fixed in the world */
  /* ghosts: the mechanism at q (+) k eps delta, k = -K..K (not 0); delta a unit DoF of the shown
   * body's joint (ghost_dof: its index in v, -1 off) or a direction set by a program */
  int ghost_dof, ghost_k;
  double ghost_eps;
  const double *ghost_delta;    /* a direction (nv) instead of ghost_dof, or NULL */
  double *ghost_file;           /* a direction read by hg_interact_ghost_load (owned) */
  double ghost_hz;              /* > 0: a mode shape animated at this frequency (one ghost at
                                   q (+) eps sin(2 pi f t) delta, t the viewer's clock) */
  double ghost_clock;           /* that clock, s (set by the viewer each frame) */
  int gauges;                   /* show the gauges of the scene's capture pairs */
  /* sliders (while paused): one per DoF of the shown body's joint for q (an offset delta in the
   * tangent space, q (+) delta) and one for v; slider = the one dragged, -1 none */
  int slider;
  double slider_value;          /* the dragged slider's value: delta_k or v_k */
  double *slider_delta;         /* nv: the ghost of q (+) delta while a q slider is dragged */
  int slider_nv;
} hg_interact;

/* sliders: 2 x nv of the shown joint, q's then v's (at most HG_SLIDER_MAX) */
#define HG_SLIDER_MAX 12

void hg_interact_init(hg_interact *ia);
void hg_interact_free(hg_interact *ia);

/* ---- selection ---- */
/* selects the body of name id (add: to the selection; else it alone); name < 0 clears */
void hg_interact_select(hg_interact *ia, int name, int add);
/* the panel's lines for the shown selected body at the instant of frame f (the frame displayed,
 * never the live simulation's, so a replay shows its own time): body, mass, joint type and mode,
 * q and v (degrees or radians), load, constraint wrench, parent and children (at most n lines of
 * width w); the number of lines */
int hg_interact_panel(const hg_interact *ia, const hg_frame *f, const hg_history *h, char *lines,
                      int n, int w);
/* moves the shown body to its parent (dir -1) or its first child (dir +1), selecting it */
void hg_interact_walk(hg_interact *ia, hg_sim *sim, hg_history *h, int dir);

/* ---- commands ---- */
/* applies one command now (its text as a command file line without the time): parsed against
 * the simulation (errors with a did-you-mean), then hg_sim_command. 0, or -1 with ia->result
 * saying why (the simulation is unchanged); the result line says what the event did. */
int hg_interact_apply(hg_interact *ia, hg_sim *sim, const char *text);
/* Tab on the command line: completes the word under the end of the line to the longest common
 * prefix of the command words or of the joint, body, marker, force and loop names that fit; the
 * candidates (when several) into ia->result */
void hg_interact_complete(hg_interact *ia, hg_sim *sim);

/* ---- freezing and thawing ---- */
/* Previews verb ("lock", "free", "hold") on the selected bodies' joints as one command (one
 * impulse): ia->preview_text says the energy it would remove and the impulse per DoF, and the
 * velocity jumps become arrows (hg_interact_draw). "hold" prescribes each joint to stay where it
 * is. 0, or -1 with ia->result (nothing selected, or the command is refused). */
int hg_interact_preview(hg_interact *ia, hg_sim *sim, const hg_history *h, const char *verb);
/* commits the pending preview (hg_interact_apply) or cancels it */
int hg_interact_commit(hg_interact *ia, hg_sim *sim);
void hg_interact_cancel(hg_interact *ia);

/* ---- the mouse pull ---- */
/* grabs body (name) at world point p, seen at depth along the view axis; the pull's spring is
 * set from the body's mass for a 1 Hz, critically damped response. Its target is fixed in the
 * world when the body's tree hangs from the world by a joint that is not free or the scene has
 * uniform gravity (a hand on the ground); otherwise (free-flying trees in orbit or deep space)
 * it moves with the centre of mass of the free-flying bodies (perturb ... com): a hand that
 * moves with the mechanism, so the pull is internal and a spacecraft at 7.7 km/s is never
 * dragged towards a point at rest. */
void hg_interact_grab(hg_interact *ia, hg_sim *sim, const hg_history *h, int body,
                      const double p[3], double depth);
/* the mouse ray (origin, unit direction) moves the target within the grab depth's plane
 * (forward: the camera's unit view direction) */
void hg_interact_drag(hg_interact *ia, const double origin[3], const double dir[3],
                      const double forward[3]);
/* The turning pull (right button): the grab is made as by hg_interact_grab with the body's
 * centre of mass c; a drag of (dx, dy) pixels then turns the target, the grabbed point's
 * position at the grab, about c by 0.01 rad per pixel: about the camera's up axis u for dx and
 * its right axis s for dy. The pulled point follows it round c, which turns the body. */
void hg_interact_grab_turn(hg_interact *ia, const double c[3]);
void hg_interact_turn(hg_interact *ia, double dx, double dy, const double s[3], const double u[3]);
/* sends the pull's target as a perturb command when it moved since the last one sent (at most
 * one per simulation time: a move at the same time waits for the next); 1 when one was sent, 0
 * when none, -1 when it failed */
int hg_interact_pull_update(hg_interact *ia, hg_sim *sim, const hg_history *h);
/* ends the pull (a release command); 0 or -1 */
int hg_interact_release(hg_interact *ia, hg_sim *sim);

/* ---- perturbed configurations ---- */
/* Moves the shown body's joint along one DoF (the ghosts' DoF when it is this joint's, else its
 * first) by step: q (+) step e_k on the group (what = 0), or v_k + step (what = 1), as a 'set'
 * command, so it is logged and replayable. 0, or -1 with ia->result. */
int hg_interact_nudge(hg_interact *ia, hg_sim *sim, const hg_history *h, int what, double step);

/* ---- sliders ---- */
/* The sliders of the shown body's joint: their count (2 nv: q's, then v's), and for slider k its
 * label, its range and its value, both offsets from the state now: delta in q (+) delta (+-pi
 * rad or +-1 m), dv in v_k + dv (+-max(2 rad/s or 1 m/s, |v_k|)); the value is the dragged
 * slider's, else 0. */
int hg_interact_sliders(const hg_interact *ia, hg_sim *sim, const hg_history *h);
void hg_interact_slider(const hg_interact *ia, hg_sim *sim, const hg_history *h, int k,
                        char *label, size_t len, double *range, double *value);
/* drags slider k to value (clamped to its range): a q slider shows the ghost of q (+) delta */
void hg_interact_slider_drag(hg_interact *ia, hg_sim *sim, const hg_history *h, int k,
                             double value);
/* the slider is let go: a 'set' command of the new q (on the group) or v, none when its value
 * is 0 (a click that did not move it); 0 or -1 */
int hg_interact_slider_release(hg_interact *ia, hg_sim *sim, const hg_history *h);

/* ---- ghosts and gauges ---- */
/* A ghost direction from a file: nv numbers (the model's tangent space, in v's order: a mode
 * shape, a base twist), separated by spaces, commas or lines, '#' comments; the ghosts show it.
 * 0, or -1 with err = "FILE:LINE: what was expected". */
int hg_interact_ghost_load(hg_interact *ia, hg_sim *sim, const char *path, char *err,
                           size_t errlen);
/* A linearization mode as the ghost direction: mode number `mode` (the first column) of
 * `hinge linearize`'s modes.csv or modes_undamped.csv at path, its shape the real parts of the
 * JOINT.dqK columns (joints by name, DoFs by number), animated at its freq_hz. 0, or -1 with
 * err = "FILE:LINE: what was expected". */
int hg_interact_ghost_mode(hg_interact *ia, hg_sim *sim, const char *path, int mode, char *err,
                           size_t errlen);
/* ghosts of the shown body's joint: off -> its first DoF -> its next DoF ... -> off */
void hg_interact_ghost_cycle(hg_interact *ia, hg_sim *sim, const hg_history *h);
/* the ghosts (translucent copies of the geometry of every body that moves at q (+) k eps delta,
 * k = +-1..+-K, hg_sim_ghost; a body whose ghost sits on it to round-off is left out, so it keeps
 * its colour) into the draw list of frame f, which must be the simulation's latest */
int hg_interact_ghosts(const hg_interact *ia, hg_sim *sim, hg_draw_list *dl, const hg_frame *f);
/* the gauge lines (hg_sim_gauge) of the first two selected bodies' ports (or markers) and of the
 * scene's capture pairs: distance, angle and speed against the tolerances, time to contact, the
 * plastic loss of a capture now; the capture pairs as frame f captured them, the selection's
 * measured on the simulation when live (f is its latest state), else a line saying so; the
 * number of lines */
int hg_interact_gauges(const hg_interact *ia, hg_sim *sim, const hg_history *h, const hg_frame *f,
                       int live, char *lines, int n, int w);

/* the selection highlight (each selected body tinted by a translucent yellow shell a few pixels
 * larger than its shapes, a cross along its axes and a label), the preview's velocity jumps and
 * the pull's arrow into the draw list of frame f; sized in pixels through o's camera (o NULL or
 * without a camera: in the world, from the bodies' extent) */
int hg_interact_draw(const hg_interact *ia, hg_draw_list *dl, const hg_frame *f,
                     const hg_history *h, const hg_draw_options *o);

#endif
