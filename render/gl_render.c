/* gl_render.c: the OpenGL 3.3 core renderer (gl_render.h). */
#include "gl_render.h"
#include "hud_layout.h"

#include <epoxy/gl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>
#include <stb_image_write.h>
#include <stb_truetype.h>

#include "grow.h"
#include "mesh.h"

#ifndef HG_FONT_FILE
#define HG_FONT_FILE "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
#endif

/* ---- shaders ---- */

/* instanced: each instance brings its model-view matrix, normal matrix (view axes) and colour */
static const char *const mesh_vs =
    "#version 330 core\n"
    "layout(location = 0) in vec3 a_pos;\n"
    "layout(location = 1) in vec3 a_nrm;\n"
    "layout(location = 2) in mat4 i_mv;\n"
    "layout(location = 6) in mat3 i_nrm;\n"
    "layout(location = 9) in vec4 i_color;\n"
    "uniform mat4 u_proj;\n"
    "out vec3 v_n, v_p;\n"
    "flat out vec4 v_color;\n"
    "void main() {\n"
    "  v_p = (i_mv * vec4(a_pos, 1)).xyz;\n"
    "  v_n = i_nrm * a_nrm;\n"
    "  v_color = i_color;\n"
    "  gl_Position = u_proj * vec4(v_p, 1);\n"
    "}\n";

/* u_mode 0 lit, 1 flat, 2 planet */
static const char *const mesh_fs =
    "#version 330 core\n"
    "in vec3 v_n, v_p;\n"
    "flat in vec4 v_color;\n"
    "uniform int u_mode;\n"
    "out vec4 o_color;\n"
    "void main() {\n"
    "  vec4 u_color = v_color;\n"
    "  if (u_mode == 1) { o_color = u_color; return; }\n"
    "  vec3 n = normalize(v_n);\n"
    "  if (!gl_FrontFacing) n = -n;\n"
    "  vec3 v = normalize(-v_p);\n"
    "  vec3 l1 = normalize(vec3(0.45, 0.75, 0.55)), l2 = normalize(vec3(-0.7, -0.1, 0.4));\n"
    "  if (u_mode == 2) {\n"
    "    float d = max(dot(n, l1), 0.0);\n"
    "    float rim = pow(1.0 - max(dot(n, v), 0.0), 3.0);\n"
    "    vec3 c = u_color.rgb * (0.08 + 0.95 * d) + vec3(0.35, 0.6, 1.0) * rim * (0.25 + d);\n"
    "    o_color = vec4(c, 1);\n"
    "    return;\n"
    "  }\n"
    "  float hemi = 0.5 + 0.5 * n.y;\n"
    "  float amb = mix(0.22, 0.38, hemi);\n"
    "  float dif = 0.72 * max(dot(n, l1), 0.0) + 0.25 * max(dot(n, l2), 0.0);\n"
    "  float spe = 0.35 * pow(max(dot(n, normalize(l1 + v)), 0.0), 48.0);\n"
    "  float fres = 0.12 * pow(1.0 - max(dot(n, v), 0.0), 4.0);\n"
    "  vec3 c = u_color.rgb * (amb + dif) + vec3(spe + fres);\n"
    "  o_color = vec4(pow(c, vec3(0.92)), u_color.a);\n"
    "}\n";

static const char *const line_vs =
    "#version 330 core\n"
    "layout(location = 0) in vec4 a_pos;\n"
    "layout(location = 1) in vec4 a_col;\n"
    "uniform mat4 u_vp;\n"
    "uniform int u_sky;\n"
    "out vec4 v_col;\n"
    "void main() {\n"
    "  v_col = a_col;\n"
    "  gl_Position = u_vp * a_pos;\n"
    "  if (u_sky == 1) { gl_Position.z = gl_Position.w * 0.99999; gl_PointSize = a_pos.w > 0.0 ? 1.0 : 1.0 + a_col.a; }\n"
    "}\n";

static const char *const line_fs =
    "#version 330 core\n"
    "in vec4 v_col;\n"
    "uniform int u_sky;\n"
    "out vec4 o_color;\n"
    "void main() { o_color = u_sky == 1 ? vec4(v_col.rgb, 1) : v_col; }\n";

static const char *const ui_vs =
    "#version 330 core\n"
    "layout(location = 0) in vec2 a_pos;\n"
    "layout(location = 1) in vec2 a_uv;\n"
    "layout(location = 2) in vec4 a_col;\n"
    "uniform vec2 u_screen;\n"
    "out vec2 v_uv;\n"
    "out vec4 v_col;\n"
    "void main() {\n"
    "  v_uv = a_uv; v_col = a_col;\n"
    "  gl_Position = vec4(2.0 * a_pos.x / u_screen.x - 1.0, 1.0 - 2.0 * a_pos.y / u_screen.y, 0, 1);\n"
    "}\n";

static const char *const ui_fs =
    "#version 330 core\n"
    "in vec2 v_uv;\n"
    "in vec4 v_col;\n"
    "uniform sampler2D u_tex;\n"
    "out vec4 o_color;\n"
    "void main() { o_color = vec4(v_col.rgb, v_col.a * texture(u_tex, v_uv).r); }\n";

/* ---- unit meshes ---- */

/* unit meshes; spheres, cylinders and cones at NLOD tessellations each, coarsest first */
#define NLOD 3
enum { M_BOX, M_SPHERE, M_CYL = M_SPHERE + NLOD, M_CONE = M_CYL + NLOD, M_PLANET = M_CONE + NLOD,
       M_NUNIT };

typedef struct gl_mesh {
  GLuint vao, vbo;
  int nvert;
  float lo[3], hi[3]; /* bounds (file meshes) */
} gl_mesh;

typedef struct mesh_cache {
  int name;           /* string index */
  char *path;
  gl_mesh m;
  int failed;
} mesh_cache;

#define FONT_W 512
#define FONT_H 512
#define FONT_PAD 4 /* rows of white texels above the glyphs, for solid rectangles */

struct hg_renderer {
  GLuint prog_mesh, prog_line, prog_ui;
  GLint u_proj, u_mode, u_vp, u_sky, u_sky_fs, u_screen;
  gl_mesh unit[M_NUNIT];
  mesh_cache *meshes;
  int nmesh, capmesh;
  GLuint line_vao, line_vbo, ui_vao, ui_vbo, font_tex;
  GLuint star_vao, star_vbo;
  int nstar;
  /* mesh instances queued for the next flush (draw_mesh, flush_meshes): INST_FLOATS each */
  float *inst, *inst_sorted;
  const gl_mesh **inst_mesh;
  int ninst, capinst;
  GLuint inst_vbo;
  float *lines;       /* x y z w r g b a per vertex */
  int nlines, caplines;
  float *ui;          /* x y u v r g b a per vertex */
  int nui, capui;
  stbtt_bakedchar glyph[96];
  float font_px, ascent;
  /* framebuffers: fbo (multisampled or not) and resolve (single-sample, read back) */
  GLuint fbo, color_rb, depth_rb, rfbo, rcolor_rb;
  int w, h, samples;
};

/* one instance: model-view matrix (16, column-major), normal matrix (9), colour (4) */
#define INST_FLOATS 29

/* a mesh from interleaved position + normal floats; its instance attributes (locations 2 to 9)
 * advance once per instance and are pointed at the instance buffer when drawn */
static void upload(gl_mesh *m, const float *pn, int nvert) {
  glGenVertexArrays(1, &m->vao);
  glGenBuffers(1, &m->vbo);
  glBindVertexArray(m->vao);
  glBindBuffer(GL_ARRAY_BUFFER, m->vbo);
  glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)nvert * 6 * sizeof(float)), pn, GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), (void *)0);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), (void *)(3 * sizeof(float)));
  for (GLuint a = 2; a < 10; a++) {
    glEnableVertexAttribArray(a);
    glVertexAttribDivisor(a, 1);
  }
  glBindVertexArray(0);
  m->nvert = nvert;
}

/* a growing float buffer of vertices with normals */
typedef struct vbuf {
  float *v;
  int n, cap;
} vbuf;

static void vput(vbuf *b, float x, float y, float z, float nx, float ny, float nz) {
  if (hg_grow((void **)&b->v, b->n, &b->cap, 1024, 6 * sizeof(float))) return;
  float *o = b->v + 6 * b->n++;
  o[0] = x, o[1] = y, o[2] = z, o[3] = nx, o[4] = ny, o[5] = nz;
}

static void make_box(gl_mesh *m) {
  static const int axes[6][3] = {{0, 1, 2}, {0, 1, 2}, {1, 2, 0}, {1, 2, 0}, {2, 0, 1}, {2, 0, 1}};
  vbuf b = {0};
  for (int f = 0; f < 6; f++) { /* face normal along axis a, sign s */
    int a = axes[f][2], u = axes[f][0], v = axes[f][1];
    float s = (f % 2) ? -1.0f : 1.0f, c[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    int idx[6] = {0, 1, 2, 0, 2, 3};
    for (int k = 0; k < 6; k++) {
      int i = s > 0 ? idx[k] : idx[5 - k];
      float p[3], n[3] = {0, 0, 0};
      p[a] = 0.5f * s, p[u] = 0.5f * c[i][0], p[v] = 0.5f * c[i][1];
      n[a] = s;
      vput(&b, p[0], p[1], p[2], n[0], n[1], n[2]);
    }
  }
  upload(m, b.v, b.n);
  free(b.v);
}

static void make_sphere(gl_mesh *m, int nu, int nv) {
  vbuf b = {0};
  const float pi = 3.14159265f;
  for (int j = 0; j < nv; j++)
    for (int i = 0; i < nu; i++) {
      float th[2] = {pi * j / nv, pi * (j + 1) / nv}, ph[2] = {2 * pi * i / nu, 2 * pi * (i + 1) / nu};
      float p[4][3];
      int c[4][2] = {{0, 0}, {0, 1}, {1, 1}, {1, 0}};
      for (int k = 0; k < 4; k++) {
        float t = th[c[k][0]], f = ph[c[k][1]];
        p[k][0] = sinf(t) * cosf(f), p[k][1] = sinf(t) * sinf(f), p[k][2] = cosf(t);
      }
      int idx[6] = {0, 2, 1, 0, 3, 2};
      for (int k = 0; k < 6; k++) {
        float *q = p[idx[k]];
        vput(&b, q[0], q[1], q[2], q[0], q[1], q[2]);
      }
    }
  upload(m, b.v, b.n);
  free(b.v);
}

/* radius 1; z from z0 to z1; top radius rt (0: a cone) with caps */
static void make_round(gl_mesh *m, float z0, float z1, float rt, int n) {
  vbuf b = {0};
  const float pi = 3.14159265f;
  float slope = (1 - rt) / (z1 - z0), nn = sqrtf(1 + slope * slope);
  for (int i = 0; i < n; i++) {
    float a0 = 2 * pi * i / n, a1 = 2 * pi * (i + 1) / n, am = 0.5f * (a0 + a1);
    float c0 = cosf(a0), s0 = sinf(a0), c1 = cosf(a1), s1 = sinf(a1);
    float n0[3] = {c0 / nn, s0 / nn, slope / nn}, n1[3] = {c1 / nn, s1 / nn, slope / nn};
    float nt[3] = {cosf(am) / nn, sinf(am) / nn, slope / nn};
    if (rt == 0) memcpy(n0, nt, sizeof n0), memcpy(n1, nt, sizeof n1), n0[0] = c0 / nn, n0[1] = s0 / nn, n1[0] = c1 / nn, n1[1] = s1 / nn;
    vput(&b, c0, s0, z0, n0[0], n0[1], n0[2]);
    vput(&b, c1, s1, z0, n1[0], n1[1], n1[2]);
    vput(&b, rt * c1, rt * s1, z1, n1[0], n1[1], n1[2]);
    if (rt > 0) {
      vput(&b, c0, s0, z0, n0[0], n0[1], n0[2]);
      vput(&b, rt * c1, rt * s1, z1, n1[0], n1[1], n1[2]);
      vput(&b, rt * c0, rt * s0, z1, n0[0], n0[1], n0[2]);
      vput(&b, 0, 0, z1, 0, 0, 1); /* top cap */
      vput(&b, rt * c0, rt * s0, z1, 0, 0, 1);
      vput(&b, rt * c1, rt * s1, z1, 0, 0, 1);
    }
    vput(&b, 0, 0, z0, 0, 0, -1); /* bottom cap */
    vput(&b, c1, s1, z0, 0, 0, -1);
    vput(&b, c0, s0, z0, 0, 0, -1);
  }
  upload(m, b.v, b.n);
  free(b.v);
}

/* a mesh file as flat-shaded triangles (hg_mesh_load) */
static int load_mesh(gl_mesh *m, const char *path) {
  hg_mesh hm;
  hg_error err;
  if (hg_mesh_load(path, &hm, &err)) return fprintf(stderr, "hinge render: %s\n", err.msg), -1;
  vbuf b = {0};
  for (int k = 0; k < 3; k++) m->lo[k] = INFINITY, m->hi[k] = -INFINITY;
  for (int t = 0; t < hm.ntri; t++) {
    const double *p[3];
    for (int c = 0; c < 3; c++) p[c] = hm.vert + 3 * hm.tri[3 * t + c];
    double e1[3], e2[3], n[3];
    for (int k = 0; k < 3; k++) e1[k] = p[1][k] - p[0][k], e2[k] = p[2][k] - p[0][k];
    n[0] = e1[1] * e2[2] - e1[2] * e2[1], n[1] = e1[2] * e2[0] - e1[0] * e2[2], n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (l > 0) n[0] /= l, n[1] /= l, n[2] /= l;
    for (int c = 0; c < 3; c++) {
      vput(&b, (float)p[c][0], (float)p[c][1], (float)p[c][2], (float)n[0], (float)n[1], (float)n[2]);
      for (int k = 0; k < 3; k++) m->lo[k] = fminf(m->lo[k], (float)p[c][k]), m->hi[k] = fmaxf(m->hi[k], (float)p[c][k]);
    }
  }
  upload(m, b.v, b.n);
  free(b.v);
  hg_mesh_free(&hm);
  return 0;
}

static const gl_mesh *file_mesh(hg_renderer *r, const hg_history *names, int id) {
  const char *path = names ? hg_frame_name(names, id) : "";
  for (int k = 0; k < r->nmesh; k++)
    if (!strcmp(r->meshes[k].path, path)) return r->meshes[k].failed ? NULL : &r->meshes[k].m;
  if (hg_grow((void **)&r->meshes, r->nmesh, &r->capmesh, 8, sizeof *r->meshes)) return NULL;
  mesh_cache *c = &r->meshes[r->nmesh++];
  memset(c, 0, sizeof *c);
  c->name = id;
  c->path = malloc(strlen(path) + 1);
  if (c->path) strcpy(c->path, path);
  c->failed = !c->path || load_mesh(&c->m, path);
  return c->failed ? NULL : &c->m;
}

/* ---- setup ---- */

static GLuint shader(GLenum type, const char *src, char *err, size_t errlen) {
  GLuint s = glCreateShader(type);
  GLint ok;
  glShaderSource(s, 1, &src, NULL);
  glCompileShader(s);
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[512];
    glGetShaderInfoLog(s, sizeof log, NULL, log);
    snprintf(err, errlen, "shader: %s", log);
    glDeleteShader(s);
    return 0;
  }
  return s;
}

static GLuint program(const char *vs, const char *fs, char *err, size_t errlen) {
  GLuint v = shader(GL_VERTEX_SHADER, vs, err, errlen), f = v ? shader(GL_FRAGMENT_SHADER, fs, err, errlen) : 0;
  if (!f) return 0;
  GLuint p = glCreateProgram();
  GLint ok;
  glAttachShader(p, v), glAttachShader(p, f);
  glLinkProgram(p);
  glDeleteShader(v), glDeleteShader(f);
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) {
    snprintf(err, errlen, "shader program does not link");
    glDeleteProgram(p);
    return 0;
  }
  return p;
}

/* the glyph atlas of DejaVu Sans Mono, with white rows on top for solid shapes */
static int font_init(hg_renderer *r, char *err, size_t errlen) {
  FILE *f = fopen(HG_FONT_FILE, "rb");
  if (!f) return snprintf(err, errlen, "cannot open the font %s (Debian: fonts-dejavu-core)", HG_FONT_FILE), -1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *ttf = malloc((size_t)n), *bmp = calloc(FONT_W, FONT_H);
  if (!ttf || !bmp || fread(ttf, 1, (size_t)n, f) != (size_t)n) {
    fclose(f), free(ttf), free(bmp);
    return snprintf(err, errlen, "cannot read the font %s", HG_FONT_FILE), -1;
  }
  fclose(f);
  r->font_px = 15;
  memset(bmp, 255, (size_t)FONT_W * FONT_PAD);
  int rc = stbtt_BakeFontBitmap(ttf, 0, r->font_px, bmp + FONT_W * FONT_PAD, FONT_W, FONT_H - FONT_PAD, 32, 96, r->glyph);
  stbtt_fontinfo info;
  int asc = 0, desc = 0, gap = 0;
  if (stbtt_InitFont(&info, ttf, 0)) stbtt_GetFontVMetrics(&info, &asc, &desc, &gap);
  r->ascent = asc * stbtt_ScaleForPixelHeight(&info, r->font_px);
  free(ttf);
  if (rc == 0) return free(bmp), snprintf(err, errlen, "the font does not fit its atlas"), -1;
  glGenTextures(1, &r->font_tex);
  glBindTexture(GL_TEXTURE_2D, r->font_tex);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, FONT_W, FONT_H, 0, GL_RED, GL_UNSIGNED_BYTE, bmp);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  free(bmp);
  return 0;
}

/* a vertex array of n-float records with attribute sizes sz (sum n) */
static void dyn_array(GLuint *vao, GLuint *vbo, const int *sz, int nattr) {
  int stride = 0, off = 0;
  for (int k = 0; k < nattr; k++) stride += sz[k];
  glGenVertexArrays(1, vao);
  glGenBuffers(1, vbo);
  glBindVertexArray(*vao);
  glBindBuffer(GL_ARRAY_BUFFER, *vbo);
  for (int k = 0; k < nattr; k++) {
    glEnableVertexAttribArray((GLuint)k);
    glVertexAttribPointer((GLuint)k, sz[k], GL_FLOAT, GL_FALSE, stride * (int)sizeof(float),
                          (void *)(size_t)(off * (int)sizeof(float)));
    off += sz[k];
  }
  glBindVertexArray(0);
}

/* a fixed sky: 2000 stars at random directions, brighter ones fewer (seeded: deterministic) */
static void stars_init(hg_renderer *r) {
  unsigned long long s = 0x9e3779b97f4a7c15ull;
  const int n = 2000;
  float *v = malloc((size_t)n * 8 * sizeof(float));
  if (!v) return;
  for (int k = 0; k < n; k++) {
    double u[4];
    for (int i = 0; i < 4; i++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      u[i] = (double)(s >> 11) / 9007199254740992.0;
    }
    double z = 2 * u[0] - 1, ph = 2 * 3.14159265358979 * u[1], rr = sqrt(1 - z * z);
    float b = (float)(0.25 + 0.75 * pow(u[2], 6)), *o = v + 8 * k;
    o[0] = (float)(rr * cos(ph)), o[1] = (float)(rr * sin(ph)), o[2] = (float)z, o[3] = 0;
    o[4] = b, o[5] = b, o[6] = b * (float)(0.85 + 0.3 * u[3]), o[7] = u[2] > 0.97 ? 1.0f : 0.0f;
  }
  int sz[2] = {4, 4};
  dyn_array(&r->star_vao, &r->star_vbo, sz, 2);
  glBindBuffer(GL_ARRAY_BUFFER, r->star_vbo);
  glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)n * 8 * sizeof(float)), v, GL_STATIC_DRAW);
  r->nstar = n;
  free(v);
}

hg_renderer *hg_renderer_new(char *err, size_t errlen) {
  hg_renderer *r = calloc(1, sizeof *r);
  if (!r) return snprintf(err, errlen, "out of memory"), NULL;
  if (!(r->prog_mesh = program(mesh_vs, mesh_fs, err, errlen)) ||
      !(r->prog_line = program(line_vs, line_fs, err, errlen)) ||
      !(r->prog_ui = program(ui_vs, ui_fs, err, errlen)) || font_init(r, err, errlen)) {
    hg_renderer_free(r);
    return NULL;
  }
  r->u_proj = glGetUniformLocation(r->prog_mesh, "u_proj");
  glGenBuffers(1, &r->inst_vbo);
  r->u_mode = glGetUniformLocation(r->prog_mesh, "u_mode");
  r->u_vp = glGetUniformLocation(r->prog_line, "u_vp");
  r->u_sky = glGetUniformLocation(r->prog_line, "u_sky");
  r->u_sky_fs = r->u_sky;
  r->u_screen = glGetUniformLocation(r->prog_ui, "u_screen");
  make_box(&r->unit[M_BOX]);
  /* tessellations by size on screen (lod): the finest is smooth at a third of the window, the
   * coarser ones look the same where a shape is a few pixels across, and cost a software
   * renderer (whose time goes into vertices) a tenth */
  static const int seg[NLOD] = {8, 14, 28};
  for (int l = 0; l < NLOD; l++) {
    make_sphere(&r->unit[M_SPHERE + l], seg[l], seg[l] / 2);
    make_round(&r->unit[M_CYL + l], -0.5f, 0.5f, 1, seg[l]);
    make_round(&r->unit[M_CONE + l], 0, 1, 0, seg[l]);
  }
  make_sphere(&r->unit[M_PLANET], 180, 90);
  int lsz[2] = {4, 4}, usz[3] = {2, 2, 4};
  dyn_array(&r->line_vao, &r->line_vbo, lsz, 2);
  dyn_array(&r->ui_vao, &r->ui_vbo, usz, 3);
  stars_init(r);
  return r;
}

static void free_fbo(hg_renderer *r) {
  GLuint fb[2] = {r->fbo, r->rfbo}, rb[3] = {r->color_rb, r->depth_rb, r->rcolor_rb};
  if (r->fbo) glDeleteFramebuffers(2, fb), glDeleteRenderbuffers(3, rb);
  r->fbo = r->rfbo = r->color_rb = r->depth_rb = r->rcolor_rb = 0;
}

void hg_renderer_free(hg_renderer *r) {
  if (!r) return;
  free_fbo(r);
  for (int k = 0; k < M_NUNIT; k++)
    if (r->unit[k].vao) glDeleteVertexArrays(1, &r->unit[k].vao), glDeleteBuffers(1, &r->unit[k].vbo);
  for (int k = 0; k < r->nmesh; k++) {
    if (!r->meshes[k].failed) glDeleteVertexArrays(1, &r->meshes[k].m.vao), glDeleteBuffers(1, &r->meshes[k].m.vbo);
    free(r->meshes[k].path);
  }
  free(r->meshes);
  if (r->line_vao) glDeleteVertexArrays(1, &r->line_vao), glDeleteBuffers(1, &r->line_vbo);
  if (r->ui_vao) glDeleteVertexArrays(1, &r->ui_vao), glDeleteBuffers(1, &r->ui_vbo);
  if (r->star_vao) glDeleteVertexArrays(1, &r->star_vao), glDeleteBuffers(1, &r->star_vbo);
  if (r->font_tex) glDeleteTextures(1, &r->font_tex);
  if (r->prog_mesh) glDeleteProgram(r->prog_mesh);
  if (r->prog_line) glDeleteProgram(r->prog_line);
  if (r->prog_ui) glDeleteProgram(r->prog_ui);
  if (r->inst_vbo) glDeleteBuffers(1, &r->inst_vbo);
  free(r->lines), free(r->ui);
  free(r->inst), free(r->inst_sorted), free(r->inst_mesh);
  free(r);
}

int hg_renderer_resize(hg_renderer *r, int w, int h, int samples) {
  if (samples < 2) samples = 0;
  if (r->fbo && r->w == w && r->h == h && r->samples == samples) return 0;
  free_fbo(r);
  GLuint fb[2], rb[3];
  glGenFramebuffers(2, fb), glGenRenderbuffers(3, rb);
  r->fbo = fb[0], r->rfbo = fb[1], r->color_rb = rb[0], r->depth_rb = rb[1], r->rcolor_rb = rb[2];
  glBindRenderbuffer(GL_RENDERBUFFER, r->color_rb);
  glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_RGBA8, w, h);
  glBindRenderbuffer(GL_RENDERBUFFER, r->depth_rb);
  glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_DEPTH24_STENCIL8, w, h);
  glBindFramebuffer(GL_FRAMEBUFFER, r->fbo);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, r->color_rb);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER, r->depth_rb);
  int ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  glBindRenderbuffer(GL_RENDERBUFFER, r->rcolor_rb);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
  glBindFramebuffer(GL_FRAMEBUFFER, r->rfbo);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, r->rcolor_rb);
  ok = ok && glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  r->w = w, r->h = h, r->samples = samples;
  glBindFramebuffer(GL_FRAMEBUFFER, r->fbo);
  return ok ? 0 : -1;
}

void hg_renderer_size(const hg_renderer *r, int *w, int *h) { *w = r->w, *h = r->h; }

const char *hg_renderer_gl_name(void) {
  const GLubyte *s = glGetString(GL_RENDERER);
  return s ? (const char *)s : "unknown";
}

int hg_renderer_software(void) {
  const char *n = hg_renderer_gl_name();
  return strstr(n, "llvmpipe") || strstr(n, "softpipe") || strstr(n, "swrast");
}

/* ---- the 3-D passes ---- */

/* the view rotation (world to camera axes) and the projection of camera c with this depth range */
static void view_proj(const hg_camera *c, int w, int h, double znear, double zfar, mat4 view, mat4 proj) {
  double s[3], u[3], f[3];
  hg_camera_basis(c, s, u, f);
  glm_mat4_identity(view);
  for (int k = 0; k < 3; k++) { /* cglm is column-major: view[col][row] */
    view[k][0] = (float)s[k], view[k][1] = (float)u[k], view[k][2] = (float)-f[k];
  }
  glm_perspective((float)(c->fovy * 3.14159265358979 / 180), (float)w / (float)h, (float)znear, (float)zfar, proj);
}

/* model matrix of pose T (relative to the eye), times a unit-mesh placement (local offset along
 * z and a per-axis scale) */
static void model_matrix(const hg_se3 *T, const double eye[3], const double off[3], const double sc[3],
                         mat4 M, mat3 N) {
  double p[3];
  for (int k = 0; k < 3; k++)
    p[k] = T->p[k] - eye[k] + T->R[3 * k] * off[0] + T->R[3 * k + 1] * off[1] + T->R[3 * k + 2] * off[2];
  glm_mat4_identity(M);
  for (int c = 0; c < 3; c++)
    for (int rw = 0; rw < 3; rw++) {
      M[c][rw] = (float)(T->R[3 * rw + c] * sc[c]);
      N[c][rw] = (float)(T->R[3 * rw + c] / (sc[c] != 0 ? sc[c] : 1));
    }
  M[3][0] = (float)p[0], M[3][1] = (float)p[1], M[3][2] = (float)p[2];
}

/* queues mesh m placed at pose T (relative to the eye) for the next flush_meshes */
static void draw_mesh(hg_renderer *r, const gl_mesh *m, const hg_se3 *T, const double eye[3],
                      const double off[3], const double sc[3], mat4 view, const float rgba[4]) {
  if (r->ninst == r->capinst) {
    int cap = r->capinst ? 2 * r->capinst : 1024;
    float *a = realloc(r->inst, (size_t)cap * INST_FLOATS * sizeof(float));
    if (a) r->inst = a;
    float *b = a ? realloc(r->inst_sorted, (size_t)cap * INST_FLOATS * sizeof(float)) : NULL;
    if (b) r->inst_sorted = b;
    const gl_mesh **c = b ? realloc(r->inst_mesh, (size_t)cap * sizeof *c) : NULL;
    if (!c) return;
    r->inst_mesh = c, r->capinst = cap;
  }
  mat4 M, MV;
  mat3 N, VN, V3;
  model_matrix(T, eye, off, sc, M, N);
  glm_mat4_mul(view, M, MV);
  glm_mat4_pick3(view, V3);
  glm_mat3_mul(V3, N, VN);
  float *o = r->inst + (size_t)r->ninst * INST_FLOATS;
  memcpy(o, MV, 16 * sizeof(float));
  memcpy(o + 16, VN, 9 * sizeof(float));
  memcpy(o + 25, rgba, 4 * sizeof(float));
  r->inst_mesh[r->ninst++] = m;
}

typedef struct inst_key {
  const gl_mesh *m;
  int k;
} inst_key;

static int inst_cmp(const void *a, const void *b) {
  const inst_key *x = a, *y = b;
  if (x->m->vao != y->m->vao) return x->m->vao < y->m->vao ? -1 : 1;
  return (x->k > y->k) - (x->k < y->k);
}

/* draws the queued instances with projection proj: one instanced draw per mesh, in the order
 * the meshes were first queued within each mesh */
static void flush_meshes(hg_renderer *r, mat4 proj) {
  if (r->ninst == 0) return;
  inst_key key[512], *keys = r->ninst <= 512 ? key : malloc((size_t)r->ninst * sizeof *keys);
  if (!keys) {
    r->ninst = 0;
    return;
  }
  for (int k = 0; k < r->ninst; k++) keys[k].m = r->inst_mesh[k], keys[k].k = k;
  qsort(keys, (size_t)r->ninst, sizeof *keys, inst_cmp);
  for (int k = 0; k < r->ninst; k++)
    memcpy(r->inst_sorted + (size_t)k * INST_FLOATS, r->inst + (size_t)keys[k].k * INST_FLOATS,
           INST_FLOATS * sizeof(float));
  glUniformMatrix4fv(r->u_proj, 1, GL_FALSE, (const float *)proj);
  glBindBuffer(GL_ARRAY_BUFFER, r->inst_vbo);
  glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)r->ninst * INST_FLOATS * sizeof(float)),
               r->inst_sorted, GL_STREAM_DRAW);
  const GLsizei stride = INST_FLOATS * sizeof(float);
  for (int a = 0, b; a < r->ninst; a = b) {
    const gl_mesh *m = keys[a].m;
    for (b = a + 1; b < r->ninst && keys[b].m->vao == m->vao;) b++;
    size_t base = (size_t)a * INST_FLOATS * sizeof(float);
    glBindVertexArray(m->vao);
    for (GLuint c = 0; c < 4; c++) /* the model-view matrix, a column per location */
      glVertexAttribPointer(2 + c, 4, GL_FLOAT, GL_FALSE, stride, (void *)(base + 4 * c * sizeof(float)));
    for (GLuint c = 0; c < 3; c++) /* the normal matrix */
      glVertexAttribPointer(6 + c, 3, GL_FLOAT, GL_FALSE, stride, (void *)(base + (16 + 3 * c) * sizeof(float)));
    glVertexAttribPointer(9, 4, GL_FLOAT, GL_FALSE, stride, (void *)(base + 25 * sizeof(float)));
    glDrawArraysInstanced(GL_TRIANGLES, 0, m->nvert, b - a);
  }
  if (keys != key) free(keys);
  r->ninst = 0;
}

/* The tessellation for a round shape of radius rad at p: by its radius in pixels (the finest
 * when the camera is inside its bounding sphere). Depends on the camera only, so renders stay
 * deterministic. */
static int lod(const hg_renderer *r, const hg_camera *c, const double p[3], double rad, double len) {
  double s[3], u[3], f[3], d[3], depth = 0, dist = 0;
  hg_camera_basis(c, s, u, f);
  for (int k = 0; k < 3; k++) d[k] = p[k] - c->eye[k], depth += d[k] * f[k], dist += d[k] * d[k];
  if (sqrt(dist) <= rad + 0.5 * len) return NLOD - 1;
  double px = rad * 0.5 * r->h / (tan(0.5 * c->fovy * 3.14159265358979 / 180) * fmax(depth, 1e-9));
  return px < 6 ? 0 : px < 24 ? 1 : 2;
}

/* one shape of the list: its unit meshes, placed and scaled */
static void draw_shape(hg_renderer *r, const hg_draw_shape *s, const hg_camera *c, const hg_history *names,
                       mat4 view, const float rgba[4]) {
  double zero[3] = {0, 0, 0}, off[3] = {0, 0, 0}, sc[3];
  double rad = s->size[0], len = s->size[1];
  int l = lod(r, c, s->pose.p, rad, s->type == HG_GEOM_SPHERE ? 0 : len);
  switch (s->type) {
  case HG_GEOM_BOX:
    draw_mesh(r, &r->unit[M_BOX], &s->pose, c->eye, zero, s->size, view, rgba);
    break;
  case HG_GEOM_SPHERE:
    sc[0] = sc[1] = sc[2] = rad;
    draw_mesh(r, &r->unit[M_SPHERE + l], &s->pose, c->eye, zero, sc, view, rgba);
    break;
  case HG_GEOM_CYLINDER:
  case HG_SHAPE_ARROW_SHAFT:
    sc[0] = sc[1] = rad, sc[2] = len;
    off[2] = s->type == HG_SHAPE_ARROW_SHAFT ? 0.5 * len : 0;
    draw_mesh(r, &r->unit[M_CYL + l], &s->pose, c->eye, off, sc, view, rgba);
    break;
  case HG_GEOM_CAPSULE:
    sc[0] = sc[1] = rad, sc[2] = len;
    draw_mesh(r, &r->unit[M_CYL + l], &s->pose, c->eye, zero, sc, view, rgba);
    sc[2] = rad;
    for (int e = -1; e <= 1; e += 2) {
      off[2] = 0.5 * e * len;
      draw_mesh(r, &r->unit[M_SPHERE + l], &s->pose, c->eye, off, sc, view, rgba);
    }
    break;
  case HG_GEOM_CONE:
    sc[0] = sc[1] = rad, sc[2] = len;
    draw_mesh(r, &r->unit[M_CONE + l], &s->pose, c->eye, zero, sc, view, rgba);
    break;
  case HG_GEOM_MESH: {
    const gl_mesh *m = file_mesh(r, names, s->mesh);
    if (m) draw_mesh(r, m, &s->pose, c->eye, zero, s->size, view, rgba);
    break;
  }
  default: break;
  }
}

/* queues a line segment, positions relative to the eye */
static void line_put(hg_renderer *r, const double a[3], const double eye[3], const float c[4]) {
  if (hg_grow((void **)&r->lines, r->nlines, &r->caplines, 4096, 8 * sizeof(float))) return;
  float *o = r->lines + 8 * r->nlines++;
  o[0] = (float)(a[0] - eye[0]), o[1] = (float)(a[1] - eye[1]), o[2] = (float)(a[2] - eye[2]), o[3] = 1;
  memcpy(o + 4, c, 4 * sizeof(float));
}

static void lines_flush(hg_renderer *r, mat4 vp, GLenum prim) {
  if (r->nlines == 0) return;
  glUseProgram(r->prog_line);
  glUniformMatrix4fv(r->u_vp, 1, GL_FALSE, (const float *)vp);
  glUniform1i(r->u_sky, 0);
  glBindVertexArray(r->line_vao);
  glBindBuffer(GL_ARRAY_BUFFER, r->line_vbo);
  glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)r->nlines * 8 * sizeof(float)), r->lines, GL_STREAM_DRAW);
  glDrawArrays(prim, 0, r->nlines);
  r->nlines = 0;
}

/* the ground grid in the plane z = ground_z around the point below the target */
static void grid(hg_renderer *r, const hg_draw_list *dl, const hg_camera *c) {
  double step = dl->grid_step, x0 = floor(c->target[0] / step) * step, y0 = floor(c->target[1] / step) * step;
  const int n = 40;
  for (int i = -n; i <= n; i++) {
    int major = (int)fmod(fabs(floor(c->target[0] / step) + i), 10.0) == 0;
    float col[4] = {0.55f, 0.58f, 0.62f, major ? 0.55f : 0.25f};
    double a[3] = {x0 + i * step, y0 - n * step, dl->ground_z}, b[3] = {x0 + i * step, y0 + n * step, dl->ground_z};
    line_put(r, a, c->eye, col), line_put(r, b, c->eye, col);
    major = (int)fmod(fabs(floor(c->target[1] / step) + i), 10.0) == 0;
    col[3] = major ? 0.55f : 0.25f;
    double a2[3] = {x0 - n * step, y0 + i * step, dl->ground_z}, b2[3] = {x0 + n * step, y0 + i * step, dl->ground_z};
    line_put(r, a2, c->eye, col), line_put(r, b2, c->eye, col);
  }
}

/* a vertical gradient behind everything */
static void background(hg_renderer *r, const hg_draw_list *dl) {
  float top[4] = {0.36f, 0.42f, 0.50f, 1}, bot[4] = {0.16f, 0.18f, 0.21f, 1};
  if (dl->space) {
    float t2[4] = {0.015f, 0.018f, 0.035f, 1}, b2[4] = {0.04f, 0.05f, 0.09f, 1};
    memcpy(top, t2, sizeof top), memcpy(bot, b2, sizeof bot);
  }
  /* two triangles in clip space through the line program (no texture to sample) */
  float q[6][8] = {{-1, 1, 0, 1}, {1, 1, 0, 1}, {1, -1, 0, 1}, {-1, 1, 0, 1}, {1, -1, 0, 1}, {-1, -1, 0, 1}};
  for (int k = 0; k < 6; k++) memcpy(&q[k][4], q[k][1] < 0 ? bot : top, 4 * sizeof(float));
  mat4 identity;
  glm_mat4_identity(identity);
  glUseProgram(r->prog_line);
  glUniformMatrix4fv(r->u_vp, 1, GL_FALSE, (const float *)identity);
  glUniform1i(r->u_sky, 0);
  glBindVertexArray(r->line_vao);
  glBindBuffer(GL_ARRAY_BUFFER, r->line_vbo);
  glBufferData(GL_ARRAY_BUFFER, sizeof q, q, GL_STREAM_DRAW);
  glDisable(GL_BLEND); /* opaque: a software renderer's blending costs a read per pixel */
  glDrawArrays(GL_TRIANGLES, 0, 6);
  glEnable(GL_BLEND);
}

static void sky(hg_renderer *r, const hg_camera *c) {
  mat4 view, proj, vp;
  view_proj(c, r->w, r->h, 1, 10, view, proj);
  glm_mat4_mul(proj, view, vp);
  glUseProgram(r->prog_line);
  glUniformMatrix4fv(r->u_vp, 1, GL_FALSE, (const float *)vp);
  glUniform1i(r->u_sky, 1);
  glEnable(GL_PROGRAM_POINT_SIZE);
  glBindVertexArray(r->star_vao);
  glDrawArrays(GL_POINTS, 0, r->nstar);
  glUniform1i(r->u_sky, 0);
}

/* the planet in a depth range of its own, then the depth buffer is cleared */
static void planet(hg_renderer *r, const hg_draw_list *dl, const hg_camera *c, int mode) {
  double d[3], dist = 0, R = dl->planet_radius;
  for (int k = 0; k < 3; k++) d[k] = dl->planet_centre[k] - c->eye[k], dist += d[k] * d[k];
  dist = sqrt(dist);
  double alt = fmax(dist - R, 1e-3 * R), horizon = sqrt(fmax(dist * dist - R * R, 0)) + R * 1e-3;
  double znear = fmax(0.5 * alt, 1), zfar = fmax(dist + R, horizon) * 1.01;
  if (dist > R) zfar = fmin(zfar, horizon * 1.5 + R * 0.05 + alt);
  mat4 view, proj;
  view_proj(c, r->w, r->h, znear, fmax(zfar, 2 * znear), view, proj);
  hg_se3 T;
  hg_se3_identity(&T);
  memcpy(T.p, dl->planet_centre, sizeof T.p);
  double sc[3] = {R, R, R}, zero[3] = {0, 0, 0};
  static const float earth[4] = {0.16f, 0.36f, 0.62f, 1};
  glUseProgram(r->prog_mesh);
  glUniform1i(r->u_mode, mode == HG_RENDER_SHADED ? 2 : 1);
  draw_mesh(r, &r->unit[M_PLANET], &T, c->eye, zero, sc, view, earth);
  /* a convex surface drawn first: its back faces culled, no depth test or writes (the depth
   * buffer stays clear for the scene, which is drawn over it) */
  glDisable(GL_DEPTH_TEST);
  glEnable(GL_CULL_FACE);
  flush_meshes(r, proj);
  glDisable(GL_CULL_FACE);
  glEnable(GL_DEPTH_TEST);
}

/* depth range around the draw list's bounds (and the grid) */
static void depth_range(const hg_draw_list *dl, const hg_camera *c, int with_grid, double *zn, double *zf) {
  double s[3], u[3], f[3], d = 0;
  hg_camera_basis(c, s, u, f);
  for (int k = 0; k < 3; k++) d += (dl->centre[k] - c->eye[k]) * f[k];
  double rad = dl->radius * 3 + 1e-3;
  double far_ = d + rad, near_ = d - rad;
  if (with_grid) far_ = fmax(far_, 100 * dl->grid_step + fabs(c->eye[2] - dl->ground_z) * 3);
  far_ = fmax(far_, 1e-3);
  *zf = far_;
  *zn = fmax(near_, far_ * 2e-5);
}

void hg_renderer_draw(hg_renderer *r, const hg_draw_list *dl, const hg_camera *c, const hg_history *names,
                      int mode) {
  glBindFramebuffer(GL_FRAMEBUFFER, r->fbo);
  glViewport(0, 0, r->w, r->h);
  glDisable(GL_DEPTH_TEST);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glDisable(GL_CULL_FACE);
  glClearColor(0, 0, 0, 1);
  glClearDepth(1);
  glDepthMask(GL_TRUE);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  if (mode == HG_RENDER_SHADED) {
    background(r, dl);
    if (dl->space) sky(r, c);
  }
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LEQUAL);
  if (dl->planet && mode != HG_RENDER_ID) planet(r, dl, c, mode);

  /* the scene: the grid, opaque shapes, translucent shapes */
  int with_grid = dl->ground && mode == HG_RENDER_SHADED &&
                  fabs(c->target[2] - dl->ground_z) < 60 * dl->grid_step;
  double zn, zf;
  depth_range(dl, c, with_grid, &zn, &zf);
  mat4 view, proj, vp;
  view_proj(c, r->w, r->h, zn, zf, view, proj);
  glm_mat4_mul(proj, view, vp);
  if (with_grid) {
    grid(r, dl, c);
    glDepthMask(GL_FALSE);
    lines_flush(r, vp, GL_LINES);
    glDepthMask(GL_TRUE);
  }
  glUseProgram(r->prog_mesh);
  glUniform1i(r->u_mode, mode == HG_RENDER_SHADED ? 0 : 1);
  if (mode == HG_RENDER_ID) glDisable(GL_BLEND);
  for (int pass = 0; pass < 3; pass++) { /* bodies opaque, bodies translucent, overlays */
    if (pass == 2) {
      if (mode == HG_RENDER_ID) break;
      glDepthMask(GL_TRUE); /* (glClear honours the mask) */
      glClear(GL_DEPTH_BUFFER_BIT); /* overlays show through the bodies */
    }
    glDepthMask(pass == 1 ? GL_FALSE : GL_TRUE);
    if (pass == 0 || mode == HG_RENDER_ID) glDisable(GL_BLEND); /* opaque: no blending cost */
    else glEnable(GL_BLEND);
    for (int k = 0; k < dl->nshape; k++) {
      const hg_draw_shape *s = &dl->shape[k];
      int is_overlay = s->overlay != 0;
      if ((pass == 2) != is_overlay) continue;
      if (pass < 2 && (pass == 1) != (s->rgba[3] < 1)) continue;
      float col[4];
      memcpy(col, s->rgba, sizeof col);
      if (mode == HG_RENDER_ID)
        col[0] = (float)(s->id & 255) / 255, col[1] = (float)((s->id >> 8) & 255) / 255, col[2] = 0, col[3] = 1;
      draw_shape(r, s, c, names, view, col);
    }
    flush_meshes(r, proj);
  }
  glDepthMask(GL_TRUE);
  if (mode != HG_RENDER_ID) {
    for (int k = 0; k < dl->nline; k++) {
      line_put(r, dl->line[k].a, c->eye, dl->line[k].rgba);
      line_put(r, dl->line[k].b, c->eye, dl->line[k].rgba);
    }
    lines_flush(r, vp, GL_LINES);
  }
  glEnable(GL_BLEND);
  glDisable(GL_DEPTH_TEST);
  /* labels, in pixels, nudged apart where they would overprint (hud_layout.h) */
  enum { MAXLAB = 512 };
  hg_hud_rect box[MAXLAB];
  int which[MAXLAB], nb = 0;
  for (int k = 0; k < dl->nlabel && mode != HG_RENDER_ID && nb < MAXLAB; k++) {
    double px[2];
    if (!hg_camera_project(c, r->w, r->h, dl->label[k].p, px)) continue;
    float x = (float)px[0] + 6, y = (float)px[1] - 6, w = hg_renderer_text_width(r, dl->label[k].text);
    box[nb] = (hg_hud_rect){x - 3, y - r->ascent - 2, w + 6, r->font_px + 4};
    which[nb++] = k;
  }
  hg_hud_spread_labels(box, nb);
  for (int i = 0; i < nb; i++) {
    float bg[4] = {0, 0, 0, 0.45f};
    hg_renderer_rect(r, box[i].x, box[i].y, box[i].w, box[i].h, bg);
    hg_renderer_text(r, box[i].x + 3, box[i].y + r->ascent + 2, dl->label[which[i]].text, dl->label[which[i]].rgba);
  }
}

/* ---- 2-D ---- */

static void ui_put(hg_renderer *r, float x, float y, float u, float v, const float c[4]) {
  if (hg_grow((void **)&r->ui, r->nui, &r->capui, 8192, 8 * sizeof(float))) return;
  float *o = r->ui + 8 * r->nui++;
  o[0] = x, o[1] = y, o[2] = u, o[3] = v;
  memcpy(o + 4, c, 4 * sizeof(float));
}

static void quad(hg_renderer *r, float x0, float y0, float x1, float y1, float u0, float v0, float u1,
                 float v1, const float c[4]) {
  ui_put(r, x0, y0, u0, v0, c), ui_put(r, x1, y0, u1, v0, c), ui_put(r, x1, y1, u1, v1, c);
  ui_put(r, x0, y0, u0, v0, c), ui_put(r, x1, y1, u1, v1, c), ui_put(r, x0, y1, u0, v1, c);
}

void hg_renderer_rect(hg_renderer *r, float x, float y, float w, float h, const float rgba[4]) {
  float u = 0.5f / FONT_W, v = 0.5f / FONT_H;
  quad(r, x, y, x + w, y + h, u, v, u, v, rgba);
}

float hg_renderer_text(hg_renderer *r, float x, float y, const char *text, const float rgba[4]) {
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
    int ch = *p >= 32 && *p < 128 ? *p : '?';
    stbtt_aligned_quad q;
    stbtt_GetBakedQuad(r->glyph, FONT_W, FONT_H - FONT_PAD, ch - 32, &x, &y, &q, 1);
    float s = (float)(FONT_H - FONT_PAD) / FONT_H, o = (float)FONT_PAD / FONT_H;
    quad(r, q.x0, q.y0, q.x1, q.y1, q.s0, q.t0 * s + o, q.s1, q.t1 * s + o, rgba);
  }
  return x;
}

float hg_renderer_text_width(const hg_renderer *r, const char *text) {
  float w = 0;
  for (const unsigned char *p = (const unsigned char *)text; *p; p++)
    w += r->glyph[(*p >= 32 && *p < 128 ? *p : '?') - 32].xadvance;
  return w;
}

float hg_renderer_line_height(const hg_renderer *r) { return r->font_px + 3; }

void hg_renderer_polyline(hg_renderer *r, const float *xy, int n, const float rgba[4]) {
  for (int k = 0; k + 1 < n; k++) { /* each segment as a thin quad, 1.5 px wide */
    float x0 = xy[2 * k], y0 = xy[2 * k + 1], x1 = xy[2 * k + 2], y1 = xy[2 * k + 3];
    float dx = x1 - x0, dy = y1 - y0, l = sqrtf(dx * dx + dy * dy);
    if (!(l > 0)) continue;
    float nx = -dy / l * 0.75f, ny = dx / l * 0.75f, u = 0.5f / FONT_W, v = 0.5f / FONT_H;
    ui_put(r, x0 + nx, y0 + ny, u, v, rgba), ui_put(r, x1 + nx, y1 + ny, u, v, rgba), ui_put(r, x1 - nx, y1 - ny, u, v, rgba);
    ui_put(r, x0 + nx, y0 + ny, u, v, rgba), ui_put(r, x1 - nx, y1 - ny, u, v, rgba), ui_put(r, x0 - nx, y0 - ny, u, v, rgba);
  }
}

void hg_renderer_flush2d(hg_renderer *r) {
  if (r->nui == 0) return;
  glBindFramebuffer(GL_FRAMEBUFFER, r->fbo);
  glViewport(0, 0, r->w, r->h);
  glDisable(GL_DEPTH_TEST);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glUseProgram(r->prog_ui);
  glUniform2f(r->u_screen, (float)r->w, (float)r->h);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, r->font_tex);
  glBindVertexArray(r->ui_vao);
  glBindBuffer(GL_ARRAY_BUFFER, r->ui_vbo);
  glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)r->nui * 8 * sizeof(float)), r->ui, GL_STREAM_DRAW);
  glDrawArrays(GL_TRIANGLES, 0, r->nui);
  r->nui = 0;
}

/* ---- output ---- */

static void resolve(hg_renderer *r) {
  hg_renderer_flush2d(r);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, r->fbo);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, r->rfbo);
  glBlitFramebuffer(0, 0, r->w, r->h, 0, 0, r->w, r->h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
}

void hg_renderer_present(hg_renderer *r, int w, int h) {
  resolve(r);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, r->rfbo);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
  glViewport(0, 0, w, h);
  glBlitFramebuffer(0, 0, r->w, r->h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_LINEAR);
  glBindFramebuffer(GL_FRAMEBUFFER, r->fbo);
}

int hg_renderer_pick(hg_renderer *r, const hg_draw_list *dl, const hg_camera *c,
                     const hg_history *names, int x, int y) {
  unsigned char px[4] = {0, 0, 0, 0};
  if (x < 0 || y < 0 || x >= r->w || y >= r->h) return 0;
  int samples = r->samples;
  if (samples) hg_renderer_resize(r, r->w, r->h, 0); /* ids must not be blended by samples */
  hg_renderer_draw(r, dl, c, names, HG_RENDER_ID);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, r->fbo);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(x, r->h - 1 - y, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, px);
  glBindFramebuffer(GL_FRAMEBUFFER, r->fbo);
  if (samples) hg_renderer_resize(r, r->w, r->h, samples);
  return px[0] | px[1] << 8;
}

int hg_renderer_read(hg_renderer *r, unsigned char *rgba) {
  resolve(r);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, r->rfbo);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, r->w, r->h, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
  glBindFramebuffer(GL_FRAMEBUFFER, r->fbo);
  size_t row = (size_t)r->w * 4; /* GL's rows start at the bottom */
  unsigned char *tmp = malloc(row);
  if (!tmp) return -1;
  for (int y = 0; y < r->h / 2; y++) {
    unsigned char *a = rgba + (size_t)y * row, *b = rgba + (size_t)(r->h - 1 - y) * row;
    memcpy(tmp, a, row), memcpy(a, b, row), memcpy(b, tmp, row);
  }
  free(tmp);
  return glGetError() == GL_NO_ERROR ? 0 : -1;
}

int hg_renderer_write_png(hg_renderer *r, const char *path) {
  unsigned char *px = malloc((size_t)r->w * r->h * 4);
  if (!px) return -1;
  int rc = hg_renderer_read(r, px);
  for (size_t k = 0; k < (size_t)r->w * r->h; k++) px[4 * k + 3] = 255; /* opaque images */
  if (!rc) rc = stbi_write_png(path, r->w, r->h, 4, px, r->w * 4) ? 0 : -1;
  free(px);
  return rc;
}

void hg_renderer_finish(hg_renderer *r) {
  resolve(r);
  glFinish();
}
