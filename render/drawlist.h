/* drawlist.h: what to draw for one frame (no GL): shaded shapes, lines and labels in world
 * coordinates (double), built from a frame (frame.h), the overlays switched on and the camera.
 * The GL renderer (gl_render.h) draws a list as given; tests read it directly. */
#ifndef HINGE_RENDER_DRAWLIST_H
#define HINGE_RENDER_DRAWLIST_H

#include "camera.h"
#include "frame.h"

/* overlays, each toggled by a key in the viewer and named on the command line */
enum {
  HG_OV_FRAMES = 1 << 0,   /* body frames (x red, y green, z blue) */
  HG_OV_JOINTS = 1 << 1,   /* joint axes coloured by mode */
  HG_OV_COM = 1 << 2,      /* centres of mass */
  HG_OV_MARKERS = 1 << 3,  /* markers and docking ports */
  HG_OV_INERTIA = 1 << 4,  /* equivalent inertia boxes */
  HG_OV_WRENCHES = 1 << 5, /* constraint wrenches of locked and prescribed joints */
  HG_OV_SPRINGS = 1 << 6,  /* spring and damper elements */
  HG_OV_FORCES = 1 << 7,   /* thrusters, drag and parachutes */
  HG_OV_TRAILS = 1 << 8,   /* trails of the tracked body (or of every root body) */
  HG_OV_PAIRS = 1 << 9,    /* separation lines of the scene's pairs, with their distance */
  HG_OV_MOMENTUM = 1 << 10,/* the total linear and angular momentum at the centre of mass */
  HG_OV_LOOPS = 1 << 11,   /* closed loops: frames A and B, a glyph of the loop's joint */
  HG_OV_ACTUATORS = 1 << 12, /* control in the loop: thrusters (nozzles, plumes when firing) and
                              reaction wheels (rings with speed gauges) */
  HG_OV_SENSORS = 1 << 13,  /* control in the loop: sensor glyphs at their frames (trackers'
                              baffles, sun and earth sensors' lines, IMU cubes, encoder rings,
                              force/torque discs with the measured force) */
  HG_OV_COUNT = 14,
  HG_OV_ALL = (1 << 14) - 1,
  HG_OV_DEFAULT = HG_OV_JOINTS | HG_OV_MARKERS | HG_OV_SPRINGS | HG_OV_FORCES | HG_OV_PAIRS |
                  HG_OV_LOOPS | HG_OV_ACTUATORS | HG_OV_SENSORS
};
/* the colours of a loop's glyph: closed (its constraint acts) and open */
extern const float hg_loop_closed_rgba[4], hg_loop_open_rgba[4];
/* the actuators overlay's colours: a thruster's plume (its outer flame; components above 1
 * brighten it beyond the lighting: a glow) and its core, a wheel gauge's fill below 90 % of the
 * wheel's max_speed and at or above it (speed alone: a wheel without a max_speed never turns it
 * red), the wheel's ring, and its ring while its torque (or any limit) saturates it */
extern const float hg_plume_rgba[4], hg_plume_core_rgba[4], hg_gauge_rgba[4], hg_gauge_high_rgba[4],
    hg_wheel_ring_rgba[4], hg_wheel_ring_sat_rgba[4];
/* the sensors overlay's colours: a star tracker's baffle (valid last sample) and dimmed (its last
 * sample dropped out), a sun sensor's plate and line, an earth sensor's, an IMU's cube (gyro and
 * accelerometer), an encoder's ring, a force/torque sensor's disc and force arrow, a truth
 * sensor's dot; an invalid sun or earth sensor draws its plate in hg_sensor_dim_rgba, no line */
extern const float hg_tracker_rgba[4], hg_sensor_dim_rgba[4], hg_sun_sensor_rgba[4],
    hg_earth_sensor_rgba[4], hg_imu_rgba[4], hg_encoder_rgba[4], hg_ft_rgba[4], hg_truth_rgba[4];
/* a wheel gauge's fill: |speed| / max_speed, clamped to [0, 1] (a wheel without a max_speed: its
 * |speed| over the fastest wheel's of the frame); 0 for other actuators */
double hg_wheel_fill(const hg_frame *f, int k);
/* the name of overlay bit k (k < HG_OV_COUNT): "frames", "joints", ... */
const char *hg_overlay_name(int k);
/* "frames,joints,..." or "all" or "none" or "default" into a mask; 0 or -1 with err */
int hg_overlay_parse(const char *list, int *mask, char *err, size_t errlen);

/* primitive shapes: the geometry types (hg_geom_type) and two more for overlays */
enum { HG_SHAPE_MESH = 5, HG_SHAPE_ARROW_SHAFT = 6 /* a cylinder from z = 0 to z = 1 */ };

typedef struct hg_draw_shape {
  int type;        /* hg_geom_type or HG_SHAPE_* */
  int mesh;        /* string index of the mesh file (HG_GEOM_MESH), or -1 */
  double size[3];  /* as hg_geom.size */
  hg_se3 pose;     /* world */
  float rgba[4];   /* colour components above 1 stay bright where the lighting darkens them */
  int id;          /* body index + 1 for a body's geometry, 0 for overlays (picking) */
  int overlay;     /* 1: drawn on top of nothing special, but never lit from the ID pass */
} hg_draw_shape;

typedef struct hg_draw_line {
  double a[3], b[3]; /* world */
  float rgba[4];
} hg_draw_line;

typedef struct hg_draw_label {
  double p[3];       /* world */
  char text[64];
  float rgba[4];
} hg_draw_label;

typedef struct hg_draw_list {
  int nshape, capshape;
  hg_draw_shape *shape;
  int nline, capline;
  hg_draw_line *line;
  int nlabel, caplabel;
  hg_draw_label *label;
  /* the world around the bodies */
  int ground;        /* uniform gravity: a ground grid in the plane normal to gravity */
  double ground_z;   /* height of the grid (along -gravity) */
  double grid_step;  /* grid spacing, m */
  int space;         /* no uniform gravity: a star background */
  int planet;        /* a central body is drawn */
  double planet_centre[3], planet_radius;
  double centre[3], radius; /* a sphere around every body's geometry (for fitting the camera
                               and the depth range) */
} hg_draw_list;

void hg_draw_list_init(hg_draw_list *dl);
void hg_draw_list_free(hg_draw_list *dl);
void hg_draw_list_clear(hg_draw_list *dl);

/* appending; each returns 0 or -1 when out of memory */
int hg_draw_shape_add(hg_draw_list *dl, const hg_draw_shape *s);
int hg_draw_line_add(hg_draw_list *dl, const double a[3], const double b[3], const float rgba[4]);
int hg_draw_label_add(hg_draw_list *dl, const double p[3], const char *text, const float rgba[4]);
/* an arrow from p along v (its length |v|), shaft radius r: a shaft and a cone head */
int hg_draw_arrow(hg_draw_list *dl, const double p[3], const double v[3], double r,
                  const float rgba[4]);

/* glyph sizes in pixels when a camera is given (drawlist.c): a glyph's size (a joint's axis is
 * 1.2 of it, a frame's axes 0.5, a port's 0.5) is its body's size within [HG_GLYPH_MIN_PX,
 * HG_GLYPH_PX] pixels at the glyph's depth, HG_GLYPH_PX for a glyph of no body; of the arrows
 * whose length says a magnitude (forces, wrenches, force/torque sensors), the longest of each
 * kind is HG_ARROW_PX pixels and the others in proportion */
#define HG_GLYPH_PX 48.0
#define HG_GLYPH_MIN_PX 8.0
#define HG_ARROW_PX 72.0

/* what the draw list needs besides the frame */
typedef struct hg_draw_options {
  int overlays;           /* HG_OV_* mask */
  int track;              /* the tracked body (trails), -1 none */
  const hg_history *hist; /* names and earlier frames (trails), or NULL */
  int frame_index;        /* this frame's index in hist (trails end here) */
  double scale;           /* without a camera: a length for overlay sizes (0: from the bodies'
                             extent) */
  const hg_camera *cam;   /* the camera the list is drawn with, and its image in pixels: glyphs
                             are sized in pixels through it (NULL: in the world, from scale) */
  int width, height;
} hg_draw_options;

/* metres per pixel at world point p for the camera of o (its depth along the view axis times
 * 2 tan(fovy / 2) / height); 0 without a camera */
double hg_draw_px(const hg_draw_options *o, const double p[3]);

/* Builds the list of frame f: every body's geometry, then the overlays. 0 or -1 (memory). */
int hg_draw_list_build(hg_draw_list *dl, const hg_frame *f, const hg_draw_options *o);

/* the bounding sphere of a frame's geometry (centre, radius): what "fit" frames */
void hg_frame_bounds(const hg_frame *f, double centre[3], double *radius);
/* the same sphere around the bodies i with use[i] != 0 only (use NULL: every body) */
void hg_frame_bounds_of(const hg_frame *f, const unsigned char *use, double centre[3],
                        double *radius);

/* the closest body whose geometry a ray hits (its bounding sphere, then the shape), or -1;
 * what a click picks without an ID buffer */
int hg_draw_pick(const hg_draw_list *dl, const double origin[3], const double dir[3],
                 double *distance);

#endif
