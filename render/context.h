/* context.h: an OpenGL 3.3 core context through SDL2: a window, or an invisible one for
 * offscreen rendering (SDL's "offscreen" video driver: EGL on Mesa, no display needed). */
#ifndef HINGE_RENDER_CONTEXT_H
#define HINGE_RENDER_CONTEXT_H

#include <stddef.h>

typedef struct hg_gl_context hg_gl_context;

/* With visible = 0 and no display (DISPLAY and WAYLAND_DISPLAY unset), or with offscreen = 1,
 * SDL's offscreen driver is used. NULL with err when no context can be made. */
hg_gl_context *hg_gl_context_new(int w, int h, int visible, int offscreen, const char *title,
                                 char *err, size_t errlen);
void hg_gl_context_free(hg_gl_context *c);
/* the SDL_Window (void * so that callers need not include SDL) */
void *hg_gl_context_window(hg_gl_context *c);
void hg_gl_context_swap(hg_gl_context *c);
/* the drawable size of the window in pixels */
void hg_gl_context_size(hg_gl_context *c, int *w, int *h);
/* 1 when a window can be opened: a display is set and SDL is not forced offscreen */
int hg_gl_display_available(void);

#endif
