/* gl_render.h: the OpenGL 3.3 core renderer of draw lists (drawlist.h), through epoxy.
 *
 * It draws into its own framebuffer (multisampled when asked, then resolved), so the same code
 * serves a window (hg_renderer_present blits to it) and offscreen images (hg_renderer_read).
 * Every position is taken relative to the camera's eye in double precision and only then
 * rounded to float, so a spacecraft 7,000 km from the origin draws as steadily as one at the
 * origin. The projection is the camera's pinhole (camera.h) with a depth range fitted to what
 * is drawn; the planet of a central-gravity scene is drawn in a pass of its own depth range.
 * A GL 3.3 core context must be current (context.h) for every call. */
#ifndef HINGE_RENDER_GL_RENDER_H
#define HINGE_RENDER_GL_RENDER_H

#include <stddef.h>

#include "camera.h"
#include "drawlist.h"

typedef struct hg_renderer hg_renderer;

/* how to shade */
enum {
  HG_RENDER_SHADED = 0, /* lit, background, grid, stars, planet */
  HG_RENDER_FLAT = 1,   /* every shape in its colour exactly, black background, no grid, stars
                           or lighting (tests measure pixels of it) */
  HG_RENDER_ID = 2      /* body geometry only, colour = (id & 255, id >> 8, 0) with id the
                           body index + 1 (0: background): picking */
};

/* NULL with err when the context cannot compile the shaders or the font is missing */
hg_renderer *hg_renderer_new(char *err, size_t errlen);
void hg_renderer_free(hg_renderer *r);

/* sizes the framebuffer (samples 0 or 1: no multisampling); 0 or -1 */
int hg_renderer_resize(hg_renderer *r, int w, int h, int samples);
void hg_renderer_size(const hg_renderer *r, int *w, int *h);

/* draws the list seen by camera; names gives mesh file names (the history's table) */
/* What pixel (x, y) (from the top left) shows of draw list dl: the id of the body geometry drawn
 * there (body index + 1) or 0 for none, from an ID render (HG_RENDER_ID) that the next
 * hg_renderer_draw replaces. */
int hg_renderer_pick(hg_renderer *r, const hg_draw_list *dl, const hg_camera *c,
                     const hg_history *names, int x, int y);
void hg_renderer_draw(hg_renderer *r, const hg_draw_list *dl, const hg_camera *cam,
                      const hg_history *names, int mode);

/* 2-D drawing on top, in pixels from the top-left corner */
void hg_renderer_rect(hg_renderer *r, float x, float y, float w, float h, const float rgba[4]);
/* text with its baseline at y; returns the x after it */
float hg_renderer_text(hg_renderer *r, float x, float y, const char *text, const float rgba[4]);
float hg_renderer_text_width(const hg_renderer *r, const char *text);
float hg_renderer_line_height(const hg_renderer *r);
/* a polyline of n points (x0 y0 x1 y1 ...) */
void hg_renderer_polyline(hg_renderer *r, const float *xy, int n, const float rgba[4]);
/* sends the 2-D drawing queued so far (done by present and read too) */
void hg_renderer_flush2d(hg_renderer *r);

/* resolves the frame and copies it to the current window's framebuffer (w x h) */
void hg_renderer_present(hg_renderer *r, int w, int h);
/* resolves the frame and reads it, rows from the top, RGBA (w x h x 4 bytes) */
int hg_renderer_read(hg_renderer *r, unsigned char *rgba);
/* writes the frame as a PNG; 0 or -1 */
int hg_renderer_write_png(hg_renderer *r, const char *path);

/* resolves the frame and waits until the GPU has drawn it (benchmarks) */
void hg_renderer_finish(hg_renderer *r);

/* the GL_RENDERER string, for benchmarks and logs */
const char *hg_renderer_gl_name(void);
/* 1 when GL runs on the CPU (Mesa llvmpipe or softpipe): the viewer then skips multisampling,
 * which costs it several times the frame time there */
int hg_renderer_software(void);

#endif
