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
  if (offscreen || (!visible && !hg_gl_display_available()))
    SDL_SetHint(SDL_HINT_VIDEODRIVER, "offscreen");
  if (SDL_InitSubSystem(SDL_INIT_VIDEO | SDL_INIT_EVENTS))
    return snprintf(err, errlen, "SDL cannot start its video: %s", SDL_GetError()), NULL;
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
