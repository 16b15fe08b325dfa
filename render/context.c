/* context.c: SDL2 windows and GL 3.3 core contexts (context.h). */
#include "context.h"

#include <SDL.h>
#include <epoxy/gl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hg_gl_context {
  SDL_Window *win;
  SDL_GLContext gl;
};

int hg_gl_display_available(void) {
  const char *drv = getenv("SDL_VIDEODRIVER");
  if (drv && (!strcmp(drv, "offscreen") || !strcmp(drv, "dummy"))) return 0;
  const char *d = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
  return (d && *d) || (wl && *wl);
}

hg_gl_context *hg_gl_context_new(int w, int h, int visible, int offscreen, const char *title,
                                 char *err, size_t errlen) {
  /* A window needs a display. Without one SDL falls back to its offscreen driver and the viewer
   * would wait, invisible, for input that never comes: refuse at once instead. */
  const char *x11 = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
  if (visible && !offscreen && !hg_gl_display_available())
    return snprintf(err, errlen, "no display: neither DISPLAY nor WAYLAND_DISPLAY is set (or "
                    "SDL_VIDEODRIVER asks for no window); the viewer needs a window: use hinge run "
                    "--headless, hinge render, or --offscreen with --script"), NULL;
  if (offscreen || (!visible && !hg_gl_display_available()))
    SDL_SetHint(SDL_HINT_VIDEODRIVER, "offscreen");
  else if (visible && !getenv("SDL_VIDEODRIVER"))
    /* only the display that is named: an X display alone is not probed as Wayland first */
    SDL_SetHint(SDL_HINT_VIDEODRIVER, wl && *wl ? "wayland,x11" : "x11");
  if (SDL_InitSubSystem(SDL_INIT_VIDEO | SDL_INIT_EVENTS))
    return snprintf(err, errlen, "cannot open the display %s: %s", wl && *wl ? wl : x11 ? x11 : "",
                    SDL_GetError()), NULL;
  const char *drv = SDL_GetCurrentVideoDriver();
  if (visible && !offscreen && (!drv || !strcmp(drv, "offscreen") || !strcmp(drv, "dummy"))) {
    snprintf(err, errlen, "cannot open the display %s: SDL found only its '%s' driver, which "
             "shows no window", wl && *wl ? wl : x11 ? x11 : "", drv ? drv : "none");
    SDL_QuitSubSystem(SDL_INIT_VIDEO | SDL_INIT_EVENTS);
    SDL_Quit();
    return NULL;
  }
  hg_gl_context *c = calloc(1, sizeof *c);
  if (!c) return snprintf(err, errlen, "out of memory"), NULL;
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, SDL_GL_CONTEXT_FORWARD_COMPATIBLE_FLAG);
  SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
  SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 24);
  Uint32 flags = SDL_WINDOW_OPENGL | (visible ? SDL_WINDOW_SHOWN | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI
                                              : SDL_WINDOW_HIDDEN);
  c->win = SDL_CreateWindow(title ? title : "hinge", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED,
                            visible ? w : 64, visible ? h : 64, flags);
  if (!c->win || !(c->gl = SDL_GL_CreateContext(c->win))) {
    snprintf(err, errlen, "no OpenGL 3.3 core context: %s", SDL_GetError());
    hg_gl_context_free(c);
    return NULL;
  }
  SDL_GL_MakeCurrent(c->win, c->gl);
  if (epoxy_gl_version() < 33) {
    snprintf(err, errlen, "OpenGL %d.%d found, 3.3 needed", epoxy_gl_version() / 10, epoxy_gl_version() % 10);
    hg_gl_context_free(c);
    return NULL;
  }
  SDL_GL_SetSwapInterval(visible ? 1 : 0);
  return c;
}

void hg_gl_context_free(hg_gl_context *c) {
  if (!c) return;
  if (c->gl) SDL_GL_DeleteContext(c->gl);
  if (c->win) SDL_DestroyWindow(c->win);
  free(c);
  SDL_QuitSubSystem(SDL_INIT_VIDEO | SDL_INIT_EVENTS);
  SDL_Quit();
}

void *hg_gl_context_window(hg_gl_context *c) { return c->win; }
void hg_gl_context_swap(hg_gl_context *c) { SDL_GL_SwapWindow(c->win); }
void hg_gl_context_size(hg_gl_context *c, int *w, int *h) { SDL_GL_GetDrawableSize(c->win, w, h); }
