// module.cpp: the compiled part of the Python package hinge (docs/python.md), pybind11 over the
// C libraries. Model wraps a compiled hg_model (fixed links merged, as `hinge dynamics` runs
// them) and a pool of workspaces, so calls from several threads run at once with the GIL
// released; every array argument is checked (shape, finiteness, unit quaternions) before any C
// call sees it. Scene and Simulation wrap hg_scene and hg_sim (sim/runtime/sim.h). Errors from
// the library carry its "file:line:column: message" text as hinge.Error.
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

// sim.h names a struct and a function alike (hg_sim_preview), which C++'s -Wshadow reports
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
extern "C" {
#include "campaign.h"
#include "hinge/control.h"
#include "derivatives.h"
#include "derivatives2.h"
#include "dynamics.h"
#include "forces.h"
#include "linearize.h"
#include "merge.h"
#include "mimic.h"
#include "scene.h"
#include "sim.h"
#include "urdf.h"
}
#pragma GCC diagnostic pop

namespace py = pybind11;
using darray = py::array_t<double, py::array::c_style | py::array::forcecast>;

namespace {

// hinge.Error: a model, scene or simulation the library refused, with its message
PyObject *hg_py_error = nullptr;
// hinge.SingularError (a subclass): an articulated inertia or a mass matrix that is singular
PyObject *hg_py_singular = nullptr;

[[noreturn]] void raise_error(const std::string &msg) {
  PyErr_SetString(hg_py_error, msg.c_str());
  throw py::error_already_set();
}

[[noreturn]] void raise_singular(const std::string &msg) {
  PyErr_SetString(hg_py_singular, msg.c_str());
  throw py::error_already_set();
}

// one workspace of a model: the algorithms' hg_data, the derivatives' and the mimic couplings'
// workspaces, and room for one state's projected q and v
struct workspace {
  hg_data *d = nullptr;
  hg_deriv *w = nullptr;
  hg_mimic_ws *mimic = nullptr;
  std::vector<double> q, v;
  // the second-order derivatives' workspace and four nv^3 tensors in derivatives2.h's slice
  // layout, made on the first second-order call only (nv^3 numbers each)
  hg_deriv2 *w2 = nullptr;
  std::vector<double> t2;
  // the four nv x nv sums over the output (the *_second_derivatives_contract calls)
  std::vector<double> h2;
  explicit workspace(const hg_model *m)
      : d(hg_data_new(m)), w(hg_deriv_new(m)), mimic(hg_mimic_ws_new(m)),
        q((size_t)m->nq), v((size_t)m->nv) {
    if (!d || !w || !mimic) throw std::bad_alloc();
  }
  ~workspace() {
    hg_data_free(d);
    hg_deriv_free(w);
    hg_mimic_ws_free(mimic);
    hg_deriv2_free(w2);
  }
  workspace(const workspace &) = delete;
  workspace &operator=(const workspace &) = delete;
};

// A compiled model. full is the model as read (joint names and limits of every joint, fixed
// ones included); run is it with fixed links merged (the same q and v), which every algorithm
// runs on, as `hinge dynamics` does. Workspaces are taken from a pool under a mutex and given
// back, so any number of threads can call at once.
struct Model {
  hg_model *full = nullptr, *run = nullptr;
  std::mutex lock;
  std::vector<std::unique_ptr<workspace>> pool;

  ~Model() { close(); }
  void close() {
    std::lock_guard<std::mutex> g(lock);
    pool.clear();
    hg_model_free(run);
    hg_model_free(full);
    run = full = nullptr;
  }
  const hg_model *m() const {
    if (!run) raise_error("the model is closed");
    return run;
  }
  std::unique_ptr<workspace> take() {
    {
      std::lock_guard<std::mutex> g(lock);
      if (!pool.empty()) {
        auto w = std::move(pool.back());
        pool.pop_back();
        return w;
      }
    }
    return std::unique_ptr<workspace>(new workspace(m()));
  }
  void give(std::unique_ptr<workspace> w) {
    std::lock_guard<std::mutex> g(lock);
    pool.push_back(std::move(w));
  }
};

std::shared_ptr<Model> adopt(hg_model *full, hg_error *err) {
  auto M = std::make_shared<Model>();
  M->full = full;
  M->run = hg_model_merge_fixed(full, nullptr, nullptr, err);
  if (!M->run) raise_error(err->msg);
  return M;
}

std::shared_ptr<Model> model_from_urdf(const std::string &path, bool floating, bool fix_inertia,
                                       const std::string &package_path) {
  hg_urdf_options opt;
  std::memset(&opt, 0, sizeof opt);
  opt.floating = floating;
  opt.fix_inertia = fix_inertia;
  opt.package_path = package_path.empty() ? nullptr : package_path.c_str();
  hg_error err;
  hg_model *m = hg_urdf_load_opt(path.c_str(), &opt, &err);
  if (!m) raise_error(err.msg);
  return adopt(m, &err);
}

std::shared_ptr<Model> model_from_scene(const std::string &path) {
  hg_error err;
  hg_scene *s = hg_scene_load(path.c_str(), &err);
  if (!s) raise_error(err.msg);
  hg_model *m = hg_builder_compile(s->builder, &err);
  if (m) std::memcpy(m->gravity, s->gravity, sizeof m->gravity);
  hg_scene_free(s);
  if (!m) raise_error(err.msg);
  return adopt(m, &err);
}

// ---- argument checks ----

// An argument of a batched call: a vector of n numbers, or a (B, n) batch of them.
struct arg {
  darray a;
  const double *p;
  long batch; // -1: a single vector
};

arg take_arg(const char *name, py::handle h, long n) {
  darray a;
  try {
    a = darray::ensure(h);
  } catch (...) {
  }
  if (!a) {
    PyErr_Clear();
    throw py::type_error(std::string(name) + ": expected an array of float64 numbers");
  }
  long batch = -1;
  if (a.ndim() == 1 && a.shape(0) == n) batch = -1;
  else if (a.ndim() == 2 && a.shape(1) == n) batch = (long)a.shape(0);
  else {
    std::string got = "(";
    for (long k = 0; k < a.ndim(); k++) got += (k ? ", " : "") + std::to_string(a.shape(k));
    got += a.ndim() == 1 ? ",)" : ")";
    throw py::value_error(std::string(name) + ": expected shape (" + std::to_string(n) +
                          ",) or (batch, " + std::to_string(n) + "), got " + got);
  }
  const double *p = a.data();
  for (long k = 0, N = (long)a.size(); k < N; k++)
    if (!std::isfinite(p[k]))
      throw py::value_error(std::string(name) + ": entry " + std::to_string(k) +
                            " is not a finite number");
  return arg{a, p, batch};
}

// the batch size shared by args (-1: none batched); mismatches are a ValueError
long common_batch(std::initializer_list<const arg *> args) {
  long b = -1;
  for (const arg *x : args) {
    if (x->batch < 0) continue;
    if (b >= 0 && x->batch != b)
      throw py::value_error("batched arguments have different batch sizes (" + std::to_string(b) +
                            " and " + std::to_string(x->batch) + ")");
    b = x->batch;
  }
  return b;
}

// Every quaternion of q (spherical and free joints) within 1e-6 of unit length: the group
// operations and the kinematics assume unit quaternions, and a caller's normalized float64
// quaternion is within a few 1e-16, so 1e-6 only catches quaternions that are not normalized.
void check_quaternions(const hg_model *m, const arg &q, const char *name) {
  long nb = q.batch < 0 ? 1 : q.batch;
  for (long b = 0; b < nb; b++) {
    const double *x = q.p + b * m->nq;
    for (int i = 1; i < m->nbody; i++) {
      int t = m->jnt[i].type, off;
      if (t == HG_JOINT_SPHERICAL) off = 0;
      else if (t == HG_JOINT_FREE) off = 3;
      else continue;
      const double *u = x + m->q_adr[i] + off;
      double n = std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2] + u[3] * u[3]);
      if (std::fabs(n - 1) > 1e-6)
        throw py::value_error(std::string(name) + ": the quaternion of joint '" + m->jnt_name[i] +
                              "' has norm " + std::to_string(n) + ", not 1" +
                              (q.batch >= 0 ? " (batch item " + std::to_string(b) + ")" : ""));
    }
  }
}

// an output array: shape (dims...) or (B, dims...)
darray make_out(long batch, std::initializer_list<long> dims) {
  std::vector<py::ssize_t> shape;
  if (batch >= 0) shape.push_back(batch);
  for (long d : dims) shape.push_back(d);
  return darray(shape);
}

const double *item(const arg &a, long b, long n) { return a.batch < 0 ? a.p : a.p + b * n; }

// Runs f(ws, b) for b in [0, nb), a batch with the GIL released; the first failing item's message
// (d->err) raises hinge.SingularError naming the item.
template <class F> void run_batch(Model &M, long batch, F f) {
  long nb = batch < 0 ? 1 : batch;
  auto ws = M.take();
  long failed = -1;
  std::string msg;
  auto loop = [&]() {
    for (long b = 0; b < nb; b++)
      if (f(*ws, b)) {
        failed = b;
        msg = ws->d->err;
        break;
      }
  };
  if (batch < 0) {
    loop(); // one state: releasing the GIL and taking it back would cost more than the call
  } else {
    py::gil_scoped_release nogil;
    loop();
  }
  M.give(std::move(ws));
  if (failed >= 0)
    raise_singular(batch < 0 ? msg : "batch item " + std::to_string(failed) + ": " + msg);
}

// ---- the algorithms ----

darray aba(Model &M, py::handle qh, py::handle vh, py::handle tauh) {
  const hg_model *m = M.m();
  arg q = take_arg("q", qh, m->nq), v = take_arg("v", vh, m->nv), tau = take_arg("tau", tauh, m->nv);
  check_quaternions(m, q, "q");
  long B = common_batch({&q, &v, &tau});
  darray out = make_out(B, {m->nv});
  double *o = out.mutable_data();
  size_t nq = (size_t)m->nq, nv = (size_t)m->nv;
  run_batch(M, B, [&](workspace &w, long b) {
    // mimic followers take their leaders' q and v first, as `hinge dynamics fd` does
    std::memcpy(w.q.data(), item(q, b, m->nq), nq * sizeof(double));
    std::memcpy(w.v.data(), item(v, b, m->nv), nv * sizeof(double));
    hg_mimic_project(m, w.q.data(), w.v.data());
    return hg_mimic_aba(m, w.d, w.mimic, w.q.data(), w.v.data(), item(tau, b, m->nv), nullptr,
                        o + (B < 0 ? 0 : b) * nv, nullptr);
  });
  return out;
}

darray rnea(Model &M, py::handle qh, py::handle vh, py::handle ah) {
  const hg_model *m = M.m();
  arg q = take_arg("q", qh, m->nq), v = take_arg("v", vh, m->nv), a = take_arg("a", ah, m->nv);
  check_quaternions(m, q, "q");
  long B = common_batch({&q, &v, &a});
  darray out = make_out(B, {m->nv});
  double *o = out.mutable_data();
  run_batch(M, B, [&](workspace &w, long b) {
    hg_rnea(m, w.d, item(q, b, m->nq), item(v, b, m->nv), item(a, b, m->nv), nullptr,
            o + (B < 0 ? 0 : b) * m->nv);
    return 0;
  });
  return out;
}

darray bias(Model &M, py::handle qh, py::handle vh) {
  const hg_model *m = M.m();
  arg q = take_arg("q", qh, m->nq), v = take_arg("v", vh, m->nv);
  check_quaternions(m, q, "q");
  long B = common_batch({&q, &v});
  darray out = make_out(B, {m->nv});
  double *o = out.mutable_data();
  run_batch(M, B, [&](workspace &w, long b) {
    hg_bias(m, w.d, item(q, b, m->nq), item(v, b, m->nv), nullptr, o + (B < 0 ? 0 : b) * m->nv);
    return 0;
  });
  return out;
}

darray crba(Model &M, py::handle qh) {
  const hg_model *m = M.m();
  arg q = take_arg("q", qh, m->nq);
  check_quaternions(m, q, "q");
  long B = q.batch, n2 = (long)m->nv * m->nv;
  darray out = make_out(B, {m->nv, m->nv});
  double *o = out.mutable_data();
  run_batch(M, B, [&](workspace &w, long b) {
    hg_crba(m, w.d, item(q, b, m->nq), o + (B < 0 ? 0 : b) * n2);
    return 0;
  });
  return out;
}

darray minv(Model &M, py::handle qh) {
  const hg_model *m = M.m();
  arg q = take_arg("q", qh, m->nq);
  check_quaternions(m, q, "q");
  long B = q.batch, n2 = (long)m->nv * m->nv;
  darray out = make_out(B, {m->nv, m->nv});
  double *o = out.mutable_data();
  run_batch(M, B, [&](workspace &w, long b) {
    return hg_minv(m, w.d, w.w, item(q, b, m->nq), o + (B < 0 ? 0 : b) * n2);
  });
  return out;
}

// the joint modes of a workspace from a list of prescribed joint names (of the model as read)
std::vector<uint8_t> prescribed_modes(Model &M, const std::vector<std::string> &names) {
  const hg_model *m = M.m();
  std::vector<uint8_t> mode((size_t)m->nbody, HG_MODE_FREE);
  for (const std::string &n : names) {
    int j = hg_model_joint(M.full, n.c_str());
    if (j < 0) {
      std::string all;
      for (int i = 1; i < M.full->nbody; i++) all += (i > 1 ? ", " : "") + std::string(M.full->jnt_name[i]);
      throw py::value_error("prescribed: unknown joint '" + n + "'; the joints are: " + all);
    }
    if (M.full->jnt[j].type == HG_JOINT_FIXED) continue; // a fixed joint has nothing to prescribe
    mode[(size_t)hg_model_joint(m, n.c_str())] = HG_MODE_PRESCRIBED;
  }
  return mode;
}

void refuse_mimic(const hg_model *m, const char *what) {
  if (m->nmimic)
    throw py::value_error(std::string(what) + ": the model has mimic joints, which it does not "
                          "support (aba enforces them)");
}

py::tuple hybrid(Model &M, py::handle qh, py::handle vh, py::handle xh,
                 const std::vector<std::string> &prescribed) {
  const hg_model *m = M.m();
  refuse_mimic(m, "hybrid");
  arg q = take_arg("q", qh, m->nq), v = take_arg("v", vh, m->nv), x = take_arg("x", xh, m->nv);
  check_quaternions(m, q, "q");
  std::vector<uint8_t> mode = prescribed_modes(M, prescribed);
  long B = common_batch({&q, &v, &x});
  darray qdd = make_out(B, {m->nv}), tau = make_out(B, {m->nv});
  double *pa = qdd.mutable_data(), *pt = tau.mutable_data();
  run_batch(M, B, [&](workspace &w, long b) {
    std::memcpy(w.d->mode, mode.data(), mode.size());
    const double *xb = item(x, b, m->nv);
    double *a = pa + (B < 0 ? 0 : b) * m->nv, *t = pt + (B < 0 ? 0 : b) * m->nv;
    // x holds vdot at prescribed DoFs and tau at free ones, as `hinge dynamics hybrid` reads it
    for (int k = 0; k < m->nv; k++) {
      int p = mode[(size_t)m->dof_body[k]] != HG_MODE_FREE;
      a[k] = p ? xb[k] : 0;
      t[k] = p ? 0 : xb[k];
    }
    int rc = hg_hybrid(m, w.d, item(q, b, m->nq), item(v, b, m->nv), a, t, nullptr);
    std::memset(w.d->mode, HG_MODE_FREE, mode.size());
    return rc;
  });
  return py::make_tuple(qdd, tau);
}

py::tuple aba_derivatives(Model &M, py::handle qh, py::handle vh, py::handle tauh) {
  const hg_model *m = M.m();
  arg q = take_arg("q", qh, m->nq), v = take_arg("v", vh, m->nv), tau = take_arg("tau", tauh, m->nv);
  check_quaternions(m, q, "q");
  long B = common_batch({&q, &v, &tau}), n2 = (long)m->nv * m->nv;
  darray qdd = make_out(B, {m->nv}), dq = make_out(B, {m->nv, m->nv}),
         dv = make_out(B, {m->nv, m->nv}), dtau = make_out(B, {m->nv, m->nv});
  double *p0 = qdd.mutable_data(), *p1 = dq.mutable_data(), *p2 = dv.mutable_data(),
         *p3 = dtau.mutable_data();
  run_batch(M, B, [&](workspace &w, long b) {
    long s = B < 0 ? 0 : b;
    return hg_aba_derivatives(m, w.d, w.w, item(q, b, m->nq), item(v, b, m->nv),
                              item(tau, b, m->nv), nullptr, p0 + s * m->nv, p1 + s * n2,
                              p2 + s * n2, p3 + s * n2);
  });
  return py::make_tuple(qdd, dq, dv, dtau);
}

py::tuple rnea_derivatives(Model &M, py::handle qh, py::handle vh, py::handle ah) {
  const hg_model *m = M.m();
  arg q = take_arg("q", qh, m->nq), v = take_arg("v", vh, m->nv), a = take_arg("a", ah, m->nv);
  check_quaternions(m, q, "q");
  long B = common_batch({&q, &v, &a}), n2 = (long)m->nv * m->nv;
  darray dq = make_out(B, {m->nv, m->nv}), dv = make_out(B, {m->nv, m->nv});
  double *p1 = dq.mutable_data(), *p2 = dv.mutable_data();
  run_batch(M, B, [&](workspace &w, long b) {
    long s = B < 0 ? 0 : b;
    hg_rnea_derivatives(m, w.d, w.w, item(q, b, m->nq), item(v, b, m->nv), item(a, b, m->nv),
                        nullptr, p1 + s * n2, p2 + s * n2, nullptr);
    return 0;
  });
  return py::make_tuple(dq, dv);
}

// the second-order workspace of w and its four nv x nv sums, made on first use; false when out
// of memory
bool second_order_w2(const hg_model *m, workspace &w) {
  if (!w.w2) w.w2 = hg_deriv2_new(m);
  if (w.w2 && w.h2.empty()) w.h2.assign(4 * (size_t)m->nv * m->nv + 1, 0.0);
  return w.w2 != nullptr;
}

// the second-order workspace of w and its 4 nv^3 scratch tensors (derivatives2.h's slices),
// made on first use; false when out of memory (the workspace stays without the tensors)
bool second_order_ws(const hg_model *m, workspace &w) {
  if (!second_order_w2(m, w)) return false;
  if (!w.t2.empty()) return true;
  size_t n3 = (size_t)m->nv * m->nv * m->nv;
  try {
    w.t2.assign(4 * n3, 0.0);
  } catch (const std::bad_alloc &) {
    return false;
  }
  return true;
}

// out[l, m, k] (C order, nv x nv x nv) = T[(k nv + l) nv + m] (derivatives2.h's slices)
void slices_to_lmk(long nv, const double *T, double *out) {
  for (long k = 0; k < nv; k++)
    for (long l = 0; l < nv; l++)
      for (long c = 0; c < nv; c++) out[(l * nv + c) * nv + k] = T[(k * nv + l) * nv + c];
}

// the four second-order tensors of inverse or forward dynamics, each (B,) nv x nv x nv indexed
// [l, m, k] = d/dx_k (d y_l / d x_m) (docs/linearization.md); forward: qdd first
py::tuple second_derivatives(Model &M, py::handle qh, py::handle vh, py::handle xh, bool fd) {
  const hg_model *m = M.m();
  arg q = take_arg("q", qh, m->nq), v = take_arg("v", vh, m->nv),
      x = take_arg(fd ? "tau" : "a", xh, m->nv);
  check_quaternions(m, q, "q");
  long B = common_batch({&q, &v, &x}), nv = m->nv, n3 = nv * nv * nv;
  darray qdd = make_out(B, {nv});
  darray T[4] = {make_out(B, {nv, nv, nv}), make_out(B, {nv, nv, nv}),
                 make_out(B, {nv, nv, nv}), make_out(B, {nv, nv, nv})};
  double *p0 = qdd.mutable_data(), *p[4];
  for (int i = 0; i < 4; i++) p[i] = T[i].mutable_data();
  run_batch(M, B, [&](workspace &w, long b) {
    long s = B < 0 ? 0 : b;
    if (!second_order_ws(m, w)) throw std::bad_alloc(); // MemoryError
    double *t = w.t2.data();
    int rc = 0;
    if (fd)
      rc = hg_aba_second_derivatives(m, w.d, w.w2, item(q, b, m->nq), item(v, b, nv),
                                     item(x, b, nv), nullptr, p0 + s * nv, t, t + n3,
                                     t + 2 * n3, t + 3 * n3);
    else
      hg_rnea_second_derivatives(m, w.d, w.w2, item(q, b, m->nq), item(v, b, nv),
                                 item(x, b, nv), nullptr, t, t + n3, t + 2 * n3, t + 3 * n3);
    if (rc) return rc;
    for (int i = 0; i < 4; i++) slices_to_lmk(nv, t + i * n3, p[i] + s * n3);
    return 0;
  });
  if (fd) return py::make_tuple(qdd, T[0], T[1], T[2], T[3]);
  return py::make_tuple(T[0], T[1], T[2], T[3]);
}

// the four second-order tensors of inverse or forward dynamics summed over the output with
// weights lam, each (B,) nv x nv indexed [m, k] = d/dx_k (lam . d y / d x_m) (derivatives2.h's
// h[k nv + m]); forward: qdd first. The nv^3 tensors are not formed.
py::tuple second_derivatives_contract(Model &M, py::handle qh, py::handle vh, py::handle xh,
                                      py::handle lh, bool fd) {
  const hg_model *m = M.m();
  arg q = take_arg("q", qh, m->nq), v = take_arg("v", vh, m->nv),
      x = take_arg(fd ? "tau" : "a", xh, m->nv), lam = take_arg("lam", lh, m->nv);
  check_quaternions(m, q, "q");
  long B = common_batch({&q, &v, &x, &lam}), nv = m->nv, n2 = nv * nv;
  darray qdd = make_out(B, {nv});
  darray H[4] = {make_out(B, {nv, nv}), make_out(B, {nv, nv}), make_out(B, {nv, nv}),
                 make_out(B, {nv, nv})};
  double *p0 = qdd.mutable_data(), *p[4];
  for (int i = 0; i < 4; i++) p[i] = H[i].mutable_data();
  run_batch(M, B, [&](workspace &w, long b) {
    long s = B < 0 ? 0 : b;
    if (!second_order_w2(m, w)) throw std::bad_alloc(); // MemoryError
    double *t = w.h2.data();
    int rc = 0;
    if (fd)
      rc = hg_aba_second_derivatives_contract(m, w.d, w.w2, item(q, b, m->nq), item(v, b, nv),
                                              item(x, b, nv), nullptr, item(lam, b, nv),
                                              p0 + s * nv, t, t + n2, t + 2 * n2, t + 3 * n2);
    else
      hg_rnea_second_derivatives_contract(m, w.d, w.w2, item(q, b, m->nq), item(v, b, nv),
                                          item(x, b, nv), nullptr, item(lam, b, nv), t, t + n2,
                                          t + 2 * n2, t + 3 * n2);
    if (rc) return rc;
    // [m, k] from h[k nv + m]
    for (int i = 0; i < 4; i++)
      for (long k = 0; k < nv; k++)
        for (long c = 0; c < nv; c++) p[i][s * n2 + c * nv + k] = t[i * n2 + k * nv + c];
    return 0;
  });
  if (fd) return py::make_tuple(qdd, H[0], H[1], H[2], H[3]);
  return py::make_tuple(H[0], H[1], H[2], H[3]);
}

darray integrate(Model &M, py::handle qh, py::handle vh, double dt) {
  const hg_model *m = M.m();
  if (!std::isfinite(dt)) throw py::value_error("dt: not a finite number");
  arg q = take_arg("q", qh, m->nq), v = take_arg("v", vh, m->nv);
  check_quaternions(m, q, "q");
  long B = common_batch({&q, &v});
  darray out = make_out(B, {m->nq});
  double *o = out.mutable_data();
  run_batch(M, B, [&](workspace &, long b) {
    hg_model_integrate(m, item(q, b, m->nq), item(v, b, m->nv), dt, o + (B < 0 ? 0 : b) * m->nq);
    return 0;
  });
  return out;
}

darray difference(Model &M, py::handle q0h, py::handle q1h) {
  const hg_model *m = M.m();
  arg q0 = take_arg("q0", q0h, m->nq), q1 = take_arg("q1", q1h, m->nq);
  check_quaternions(m, q0, "q0");
  check_quaternions(m, q1, "q1");
  long B = common_batch({&q0, &q1});
  darray out = make_out(B, {m->nv});
  double *o = out.mutable_data();
  run_batch(M, B, [&](workspace &, long b) {
    hg_model_difference(m, item(q0, b, m->nq), item(q1, b, m->nq), o + (B < 0 ? 0 : b) * m->nv);
    return 0;
  });
  return out;
}

// Seconds per state of the C forward dynamics (hg_mimic_aba on the projected state, as aba runs
// it) over the states of q, v, tau (single or batched), repeated n times, in a C loop without
// Python in between: the reference the per-call and batched timings of
// python/bench/bench_python.py are set against.
double time_aba(Model &M, py::handle qh, py::handle vh, py::handle tauh, long n) {
  const hg_model *m = M.m();
  arg q = take_arg("q", qh, m->nq), v = take_arg("v", vh, m->nv), tau = take_arg("tau", tauh, m->nv);
  if (n < 1) throw py::value_error("n: at least 1");
  check_quaternions(m, q, "q");
  long B = common_batch({&q, &v, &tau}), nb = B < 0 ? 1 : B;
  auto w = M.take();
  std::vector<double> out((size_t)m->nv);
  double t0 = hg_sim_clock();
  for (long r = 0; r < n; r++)
    for (long b = 0; b < nb; b++) {
      std::memcpy(w->q.data(), item(q, b, m->nq), (size_t)m->nq * sizeof(double));
      std::memcpy(w->v.data(), item(v, b, m->nv), (size_t)m->nv * sizeof(double));
      hg_mimic_project(m, w->q.data(), w->v.data());
      hg_mimic_aba(m, w->d, w->mimic, w->q.data(), w->v.data(), item(tau, b, m->nv), nullptr,
                   out.data(), nullptr);
    }
  double t = (hg_sim_clock() - t0) / (double)(n * nb);
  M.give(std::move(w));
  return t;
}

// the joints of the model as read: name, type, q and v offsets and sizes, limits
py::list joints(Model &M) {
  M.m();
  const hg_model *m = M.full;
  py::list out;
  for (int i = 1; i < m->nbody; i++) {
    const hg_joint_limits &L = m->limits[i];
    py::dict j;
    j["name"] = m->jnt_name[i];
    j["type"] = hg_joint_type_name(m->jnt[i].type);
    j["parent"] = m->body_name[m->parent[i]];
    j["child"] = m->body_name[i];
    j["q_offset"] = m->q_adr[i];
    j["nq"] = m->jnt_nq[i];
    j["v_offset"] = m->v_adr[i];
    j["nv"] = m->jnt_nv[i];
    j["lower"] = L.has_position ? L.lower : -INFINITY;
    j["upper"] = L.has_position ? L.upper : INFINITY;
    j["effort"] = L.has_effort ? L.effort : INFINITY;
    j["velocity"] = L.has_velocity ? L.velocity : INFINITY;
    out.append(j);
  }
  return out;
}

darray neutral(Model &M) {
  const hg_model *m = M.m();
  darray q(std::vector<py::ssize_t>{m->nq});
  hg_model_neutral(m, q.mutable_data());
  return q;
}

// ---- scenes and simulations ----

darray copy_vec(const double *x, int n) {
  darray a(std::vector<py::ssize_t>{n});
  std::memcpy(a.mutable_data(), x, (size_t)n * sizeof(double));
  return a;
}


struct Scene {
  hg_scene *s = nullptr;
  ~Scene() { hg_scene_free(s); }
};

std::shared_ptr<Scene> scene_load(const std::string &path, const std::map<std::string, double> &ov) {
  std::vector<hg_scene_override> o;
  for (auto &kv : ov) o.push_back(hg_scene_override{kv.first.c_str(), kv.second});
  hg_error err;
  auto S = std::make_shared<Scene>();
  S->s = o.empty() ? hg_scene_load(path.c_str(), &err)
                   : hg_scene_load_overrides(path.c_str(), o.data(), (int)o.size(), &err);
  if (!S->s) raise_error(err.msg);
  return S;
}

// The output rows of a run, recorded by an observer at the scene's output times: time, energy
// budget, and each joint's mode, q and v as columns "JOINT.q.K", "JOINT.v.K", "JOINT.mode"
// (0 free, 1 prescribed, 2 locked). A joint that appears later (a topology change) has NaN in
// the rows before; one that leaves, NaN after.
struct recorder {
  std::vector<std::string> names;
  std::map<std::string, size_t> index;
  std::vector<std::vector<double>> cols;
  size_t nrow = 0;
  void put(const std::string &name, double x) {
    auto it = index.find(name);
    size_t k;
    if (it == index.end()) {
      k = names.size();
      index[name] = k;
      names.push_back(name);
      cols.emplace_back(nrow, NAN);
    } else {
      k = it->second;
    }
    cols[k].back() = x;
  }
  static const char *row(void *user, hg_sim *sim) {
    recorder *r = static_cast<recorder *>(user);
    r->nrow++;
    for (auto &c : r->cols) c.push_back(NAN);
    r->put("time", hg_sim_time(sim));
    hg_sim_budget b;
    hg_sim_get_budget(sim, &b);
    r->put("kinetic", b.kinetic);
    r->put("potential", b.potential + b.element);
    r->put("budget", b.value);
    const hg_model *m = hg_sim_model(sim);
    for (int i = 1; i < m->nbody; i++) {
      hg_sim_joint_view jv;
      hg_sim_joint(sim, i, &jv);
      std::string n = jv.name;
      r->put(n + ".mode", (double)jv.mode);
      for (int k = 0; k < jv.nq; k++) r->put(n + ".q." + std::to_string(k), jv.q[k]);
      for (int k = 0; k < jv.nv; k++) r->put(n + ".v." + std::to_string(k), jv.v[k]);
    }
    return nullptr;
  }
  static void release(void *) {}
};

// A simulation of a scene; it keeps the scene alive. close() frees it; any later call raises.
struct Simulation {
  std::shared_ptr<Scene> scene;
  hg_sim *sim = nullptr;
  std::string out_dir;
  recorder rec;
  ~Simulation() { hg_sim_free(sim); }
  hg_sim *s() const {
    if (!sim) raise_error("the simulation is closed");
    return sim;
  }
  void close() {
    hg_sim_free(sim);
    sim = nullptr;
  }
  void check(int status) const {
    if (status != HG_SIM_OK && status != HG_SIM_STOPPED) raise_error(hg_sim_error(sim));
  }
};

// ---- controllers written in Python ----
// This module is also a controller library of the control ABI (hinge/control.h): a scene's
// controller {type: library, library: PATH, symbol: python_step}, PATH being this module's file
// (hinge.controller_library) or a link to it, runs a Python object given to
// Simulation(..., controllers={NAME: obj}) exactly as a C library's controller runs (the runtime
// opens this file with dlopen, finds the functions below and calls them through its one instance
// code): obj(t, inp, out) at each sample (inp: the nin inputs, out: the commands in force, to be
// written in place, or a returned array of nout numbers; NaN holds), and, when obj has them,
// obj.init(setup), obj.set(param, values), obj.save() -> array and obj.load(array). An exception
// stops the run with its text, as a library's error would.

// the objects of the Simulation being made, by controller name (read by py_ctl_init inside
// hg_sim_new, which runs with the GIL held)
std::map<std::string, py::object> *pending_controllers = nullptr;

struct py_ctl {
  py::object obj;
  int nin, nout;
};

// the message of the Python exception being handled, into err
void exception_message(const char *what, char *err, size_t errlen) {
  std::snprintf(err, errlen, "Python: %s", what);
}

int py_ctl_init(const hg_control_setup *setup, void **state, char *err, size_t errlen) {
  py::gil_scoped_acquire gil;
  try {
    auto it = pending_controllers ? pending_controllers->find(setup->name)
                                  : std::map<std::string, py::object>::iterator();
    if (!pending_controllers || it == pending_controllers->end()) {
      std::snprintf(err, errlen, "no Python object given for it (hinge.Simulation(scene, "
                    "controllers={'%s': f}))", setup->name);
      return 1;
    }
    py::object obj = it->second;
    if (py::hasattr(obj, "init")) {
      py::dict params, d;
      for (int k = 0; k < setup->nparam; k++) {
        const hg_control_param &p = setup->param[k];
        if (p.n == 0) params[p.name] = p.text ? p.text : "";
        else params[p.name] = copy_vec(p.value, p.n);
      }
      auto ports = [](const hg_control_port *port, int n) {
        py::list l;
        for (int k = 0; k < n; k++)
          l.append(py::dict(py::arg("name") = port[k].name, py::arg("kind") = port[k].kind,
                            py::arg("offset") = port[k].offset, py::arg("n") = port[k].n));
        return l;
      };
      d["name"] = setup->name;
      d["rate"] = setup->rate;
      d["t0"] = setup->t0;
      d["params"] = params;
      d["inputs"] = ports(setup->input, setup->ninput);
      d["outputs"] = ports(setup->output, setup->noutput);
      d["nin"] = setup->nin;
      d["nout"] = setup->nout;
      obj.attr("init")(d);
    }
    *state = new py_ctl{obj, setup->nin, setup->nout};
    return 0;
  } catch (py::error_already_set &e) {
    exception_message(e.what(), err, errlen);
    return 1;
  }
}

int py_ctl_step(void *state, double t, const double *in, double *out, char *err, size_t errlen) {
  py_ctl *c = static_cast<py_ctl *>(state);
  py::gil_scoped_acquire gil;
  try {
    // copies both ways: an object that keeps the arrays never sees hinge's buffers change
    darray inp = copy_vec(in, c->nin), o = copy_vec(out, c->nout);
    py::object r = c->obj(t, inp, o);
    darray res = r.is_none() ? o : darray::ensure(r);
    if (!res || res.ndim() != 1 || res.shape(0) != c->nout) {
      PyErr_Clear();
      std::snprintf(err, errlen, "Python: the step returned %s, not None or %d numbers",
                    py::str(py::type::of(r)).cast<std::string>().c_str(), c->nout);
      return 1;
    }
    std::memcpy(out, res.data(), (size_t)c->nout * sizeof(double));
    return 0;
  } catch (py::error_already_set &e) {
    exception_message(e.what(), err, errlen);
    return 1;
  } catch (std::exception &e) {
    exception_message(e.what(), err, errlen);
    return 1;
  }
}

void py_ctl_finish(void *state) {
  py::gil_scoped_acquire gil;
  delete static_cast<py_ctl *>(state);
}

int py_ctl_set(void *state, const char *param, int n, const double *value, char *err,
               size_t errlen) {
  py_ctl *c = static_cast<py_ctl *>(state);
  py::gil_scoped_acquire gil;
  try {
    if (!py::hasattr(c->obj, "set")) {
      std::snprintf(err, errlen, "its Python object has no set(param, values)");
      return 1;
    }
    c->obj.attr("set")(param, copy_vec(value, n));
    return 0;
  } catch (py::error_already_set &e) {
    exception_message(e.what(), err, errlen);
    return 1;
  }
}

int py_ctl_save(void *state, double *buf, int cap) {
  py_ctl *c = static_cast<py_ctl *>(state);
  py::gil_scoped_acquire gil;
  try {
    if (!py::hasattr(c->obj, "save")) return 0; // init alone restores it
    darray a = darray::ensure(c->obj.attr("save")());
    if (!a || a.ndim() != 1) {
      PyErr_Clear();
      return -1;
    }
    int n = (int)a.shape(0);
    if (cap >= n && n > 0) std::memcpy(buf, a.data(), (size_t)n * sizeof(double));
    return n;
  } catch (py::error_already_set &) {
    return -1;
  }
}

int py_ctl_load(void *state, const double *buf, int n, char *err, size_t errlen) {
  py_ctl *c = static_cast<py_ctl *>(state);
  py::gil_scoped_acquire gil;
  try {
    if (n > 0) c->obj.attr("load")(copy_vec(buf, n));
    return 0;
  } catch (py::error_already_set &e) {
    exception_message(e.what(), err, errlen);
    return 1;
  }
}

std::shared_ptr<Simulation> sim_new(std::shared_ptr<Scene> S, double t_end, double rtol,
                                    const std::string &out_dir,
                                    std::map<std::string, py::object> controllers) {
  hg_sim_options opt;
  hg_sim_default_options(&opt);
  if (!std::isnan(t_end)) opt.t_end = t_end;
  if (rtol > 0) opt.rtol = rtol;
  auto sim = std::make_shared<Simulation>();
  sim->out_dir = out_dir;
  if (!out_dir.empty()) opt.out_dir = sim->out_dir.c_str();
  hg_error err;
  sim->scene = S;
  for (auto &kv : controllers)
    if (!PyCallable_Check(kv.second.ptr()))
      throw py::type_error("controllers['" + kv.first + "']: not callable");
  pending_controllers = &controllers;
  sim->sim = hg_sim_new(S->s, &opt, &err);
  pending_controllers = nullptr;
  if (!sim->sim) raise_error(err.msg);
  hg_sim_observer obs;
  std::memset(&obs, 0, sizeof obs);
  obs.user = &sim->rec;
  obs.row = recorder::row;
  obs.release = recorder::release;
  hg_sim_observe(sim->sim, &obs);
  return sim;
}

// the recorded rows as {column: array}, in the order the columns first appeared
py::dict sim_outputs(Simulation &S) {
  S.s();
  py::dict out;
  for (size_t k = 0; k < S.rec.names.size(); k++) {
    const std::vector<double> &c = S.rec.cols[k];
    out[py::str(S.rec.names[k])] = copy_vec(c.data(), (int)c.size());
  }
  return out;
}

void sim_run_until(Simulation &S, double t) {
  if (!std::isfinite(t)) throw py::value_error("t: not a finite number");
  hg_sim *s = S.s();
  int rc;
  {
    py::gil_scoped_release nogil;
    rc = hg_sim_run(s, t);
  }
  S.check(rc);
}

void sim_command(Simulation &S, const std::string &text) {
  hg_sim *s = S.s();
  hg_command cmd;
  hg_error err;
  if (hg_sim_parse_command(s, text.c_str(), &cmd, &err)) raise_error(err.msg);
  int rc = hg_sim_command(s, &cmd);
  hg_command_free(&cmd);
  S.check(rc);
}

static const char *joint_mode_word(int mode) {
  return mode == HG_MODE_FREE ? "free" : mode == HG_MODE_PRESCRIBED ? "prescribed" : "locked";
}

py::dict sim_joint(Simulation &S, const std::string &name) {
  hg_sim *s = S.s();
  int i = hg_model_joint(hg_sim_model(s), name.c_str());
  if (i < 1) throw py::key_error("no joint '" + name + "' in the simulation's model now");
  hg_sim_joint_view jv;
  hg_sim_joint(s, i, &jv);
  py::dict j;
  j["name"] = jv.name;
  j["type"] = hg_joint_type_name(jv.type);
  j["mode"] = joint_mode_word(jv.mode);
  j["q"] = copy_vec(jv.q, jv.nq);
  j["v"] = copy_vec(jv.v, jv.nv);
  j["load"] = copy_vec(jv.load, jv.nv);
  j["wrench"] = copy_vec(jv.wrench, 6);
  return j;
}

py::list sim_joint_names(Simulation &S) {
  const hg_model *m = hg_sim_model(S.s());
  py::list out;
  for (int i = 1; i < m->nbody; i++) out.append(m->jnt_name[i]);
  return out;
}

py::dict sim_budget(Simulation &S) {
  hg_sim_budget b;
  hg_sim_get_budget(S.s(), &b);
  py::dict d;
  d["kinetic"] = b.kinetic;
  d["potential"] = b.potential;
  d["element"] = b.element;
  d["lock_loss"] = b.e_lock;
  d["work"] = b.work;
  d["event_work"] = b.work_event;
  d["value"] = b.value;
  d["initial"] = b.initial;
  d["scale"] = b.scale;
  d["max_drift"] = b.max_drift;
  return d;
}

py::list sim_events(Simulation &S) {
  hg_sim *s = S.s();
  py::list out;
  for (int k = 0, n = hg_sim_nevents(s); k < n; k++) {
    const hg_sim_event *e = hg_sim_event_at(s, k);
    py::dict d;
    d["t"] = e->t;
    d["name"] = e->name;
    d["details"] = e->details;
    d["energy_before"] = e->e_before;
    d["energy_after"] = e->e_after;
    d["lock_loss"] = e->e_lock;
    d["momentum_change"] = hg_sim_event_momentum_change(e);
    d["conserves"] = (bool)e->conserves;
    out.append(d);
  }
  return out;
}

double sim_clearance(Simulation &S, const std::vector<std::string> &a,
                     const std::vector<std::string> &b) {
  std::vector<const char *> pa, pb;
  for (auto &x : a) pa.push_back(x.c_str());
  for (auto &x : b) pb.push_back(x.c_str());
  hg_clearance c;
  if (hg_sim_clearance(S.s(), pa.data(), (int)pa.size(), pb.data(), (int)pb.size(), &c))
    return INFINITY;
  return c.distance;
}

// ---- linearization ----

// the force elements of a scene at time t, as `hinge linearize` splits them: those left to
// central differences, those with analytic derivatives, and their derivatives
struct force_ctx {
  const hg_forces *f;
  double t;
};
void numeric_forces(void *ctx, const hg_model *m, const hg_data *d, const double *q,
                    const double *v, double *fext, double *tau) {
  const force_ctx *c = static_cast<const force_ctx *>(ctx);
  hg_forces_apply_part(c->f, m, d, c->t, q, v, HG_FORCES_NUMERIC, fext, tau);
}
void analytic_forces(void *ctx, const hg_model *m, const hg_data *d, const double *q,
                     const double *v, double *fext, double *tau) {
  const force_ctx *c = static_cast<const force_ctx *>(ctx);
  hg_forces_apply_part(c->f, m, d, c->t, q, v, HG_FORCES_ANALYTIC, fext, tau);
}
void analytic_derivatives(void *ctx, const hg_model *m, const hg_data *, const double *q,
                          const double *, double *dQ_dq, double *dQ_dv) {
  const force_ctx *c = static_cast<const force_ctx *>(ctx);
  hg_forces_derivatives(c->f, m, q, dQ_dq, dQ_dv);
}

darray copy_mat(const double *x, int rows, int cols) {
  darray a(std::vector<py::ssize_t>{rows, cols});
  std::memcpy(a.mutable_data(), x, (size_t)rows * (size_t)cols * sizeof(double));
  return a;
}

// The state-space model of a scene at time t (NaN: its start), or at the equilibrium found
// from there, as `hinge linearize SCENE [--at T] [--rest] [--equilibrium]` computes it (the same
// steps as cli/cli_linearize.c: the scene run to t, its joint modes and enabled force elements
// there, the prescribed accelerations from a three-point difference of the run's velocities,
// hg_equilibrium, hg_linearize, hg_modes_eig and hg_modes_sym). Scenes with closed loops are
// refused (their independent-coordinate form lives in the command line's loop code).
py::dict linearize(std::shared_ptr<Scene> S, double t, bool equilibrium, bool rest, double step,
                   double tol) {
  const hg_scene *sc = S->s;
  if (sc->nloop > 0)
    raise_error(std::string(sc->path) + ": a scene with closed loops: use hinge linearize, "
                "whose loop code gives the independent coordinates");
  if (std::isnan(t)) t = sc->t_start;
  if (!std::isfinite(t) || t < sc->t_start || t > sc->t_end)
    throw py::value_error("t = " + std::to_string(t) + " is outside the scene's time [" +
                          std::to_string(sc->t_start) + ", " + std::to_string(sc->t_end) + "]");
  if (step <= 0) step = 1e-6;
  // the prescribed accelerations at t: a one-sided three-point difference of the prescribed
  // velocities over t, t + dt, t + 2 dt (their profiles are smooth; error ~dt^2)
  const double dt = 1e-4;
  hg_sim_options opt;
  hg_sim_default_options(&opt);
  opt.t_end = std::fmax(sc->t_end, t + 3 * dt);
  hg_error err;
  std::unique_ptr<hg_sim, void (*)(hg_sim *)> sim(hg_sim_new(sc, &opt, &err), hg_sim_free);
  if (!sim) raise_error(err.msg);
  if (t > sc->t_start && hg_sim_run(sim.get(), t) != HG_SIM_OK)
    raise_error("running the scene to t = " + std::to_string(t) + ": " + hg_sim_error(sim.get()));
  const hg_model *m = hg_sim_model(sim.get());
  int nq = m->nq, nv = m->nv;
  std::unique_ptr<hg_data, void (*)(hg_data *)> d(hg_data_new(m), hg_data_free);
  std::unique_ptr<hg_deriv, void (*)(hg_deriv *)> w(hg_deriv_new(m), hg_deriv_free);
  std::unique_ptr<hg_linear, void (*)(hg_linear *)> L(hg_linear_new(m), hg_linear_free);
  if (!d || !w || !L) throw std::bad_alloc();
  std::vector<double> q(hg_sim_q(sim.get()), hg_sim_q(sim.get()) + nq),
      v(hg_sim_v(sim.get()), hg_sim_v(sim.get()) + nv), qdd((size_t)nv + 1, 0.0);
  for (int i = 1; i < m->nbody; i++) {
    hg_sim_joint_view jv;
    hg_sim_joint(sim.get(), i, &jv);
    d->mode[i] = (uint8_t)jv.mode;
  }
  hg_force_input in;
  hg_forces_input_of(sc, &in);
  in.lenient = 1;
  std::unique_ptr<hg_forces, void (*)(hg_forces *)> forces(hg_forces_build(&in, nullptr, m, &err),
                                                           hg_forces_free);
  if (!forces) raise_error(err.msg);
  for (int k = 0; k < hg_sim_nforce(sim.get()); k++) {
    hg_force_view fv;
    hg_sim_force(sim.get(), k, &fv);
    int e = hg_forces_find(forces.get(), fv.name);
    if (e >= 0) hg_forces_set_enabled(forces.get(), e, fv.enabled);
  }
  if (rest) {
    std::fill(v.begin(), v.end(), 0.0);
  } else {
    std::vector<double> v1((size_t)nv), v2((size_t)nv);
    unsigned long version = hg_sim_model_version(sim.get());
    bool ok = hg_sim_run(sim.get(), t + dt) == HG_SIM_OK && hg_sim_model_version(sim.get()) == version;
    if (ok) std::memcpy(v1.data(), hg_sim_v(sim.get()), (size_t)nv * sizeof(double));
    ok = ok && hg_sim_run(sim.get(), t + 2 * dt) == HG_SIM_OK &&
         hg_sim_model_version(sim.get()) == version;
    if (ok) std::memcpy(v2.data(), hg_sim_v(sim.get()), (size_t)nv * sizeof(double));
    for (int k = 0; k < nv; k++) qdd[(size_t)k] = ok ? (-3 * v[(size_t)k] + 4 * v1[(size_t)k] - v2[(size_t)k]) / (2 * dt) : 0;
  }
  force_ctx fc = {forces.get(), t};
  hg_force_elements fe = {numeric_forces, analytic_forces, analytic_derivatives, &fc};
  hg_equilibrium_info eq;
  std::memset(&eq, 0, sizeof eq);
  if (equilibrium && hg_equilibrium(m, d.get(), w.get(), L.get(), q.data(), &fe, step, tol, 0, &eq))
    raise_singular(std::string("the equilibrium search from t = ") + std::to_string(t) + ": " + d->err);
  if (hg_linearize(m, d.get(), w.get(), L.get(), q.data(), v.data(), qdd.data(), &fe, step))
    raise_singular(std::string("linearizing at t = ") + std::to_string(t) + ": " + d->err);
  int nf = L->nf, n = 2 * nf;
  std::vector<double> re((size_t)n + 1), im((size_t)n + 1), V(2 * (size_t)n * (size_t)n + 1),
      w2((size_t)nf + 1), Phi((size_t)nf * (size_t)nf + 1);
  if (hg_modes_eig(n, L->A, re.data(), im.data(), V.data()))
    raise_error("LAPACK (dgeev) failed on A");
  bool sym_ok = hg_modes_sym(nf, L->K, L->M, w2.data(), Phi.data()) == 0;
  py::dict out;
  out["t"] = t;
  out["A"] = copy_mat(L->A, n, n);
  out["B"] = copy_mat(L->B, n, nf);
  out["M"] = copy_mat(L->M, nf, nf);
  out["K"] = copy_mat(L->K, nf, nf);
  out["C"] = copy_mat(L->C, nf, nf);
  out["xdot0"] = copy_vec(L->xdot0, n);
  out["q"] = copy_vec(q.data(), nq);
  out["v"] = copy_vec(v.data(), nv);
  // the states' names, as A.csv's rows: JOINT.q.NAME (tangent of q), then JOINT.v.NAME
  py::list names, inputs;
  static const char *const what[] = {"q", "v", "tau"};
  static const int entry[] = {3, 1, 2}; // hg_joint_entry_name: tangent of q, rates, forces
  for (int part = 0; part < 3; part++)
    for (int a = 0; a < nf; a++) {
      int k = L->dof[a], i = m->dof_body[k];
      std::string s = std::string(m->jnt_name[i]) + "." + what[part] + "." +
                      hg_joint_entry_name(m->jnt[i].type, entry[part], k - m->v_adr[i], nullptr);
      (part < 2 ? names : inputs).append(s);
    }
  out["states"] = names;
  out["inputs"] = inputs;
  py::array_t<std::complex<double>> eig(n), vec(std::vector<py::ssize_t>{n, n});
  for (int k = 0; k < n; k++) eig.mutable_data()[k] = std::complex<double>(re[(size_t)k], im[(size_t)k]);
  for (size_t k = 0; k < (size_t)n * (size_t)n; k++)
    vec.mutable_data()[k] = std::complex<double>(V[2 * k], V[2 * k + 1]);
  out["eigenvalues"] = eig;
  out["eigenvectors"] = vec;
  if (sym_ok) {
    out["w2"] = copy_vec(w2.data(), nf);
    out["undamped_shapes"] = copy_mat(Phi.data(), nf, nf);
  }
  if (equilibrium) {
    py::dict e;
    e["iterations"] = eq.iterations;
    e["residual"] = eq.residual;
    e["rank"] = eq.rank;
    e["converged"] = (bool)eq.converged;
    out["equilibrium"] = e;
  }
  return out;
}

// ---- Monte Carlo campaigns ----

// Runs a campaign file's runs (runs, seed: < 0 keeps the campaign's) on threads (0: the
// machine's cores), each run k exactly as `hinge mc` makes it (hg_campaign_run_one: the same
// draws for the same seed and k), with the GIL released. Returns {column: values} with "run",
// "ok", each dispersed value by its path, each metric by its name, each failure condition as
// 0/1 by its name, and "error" (a list of strings, "" for a run that went well).
py::dict mc_run(const std::string &path, long runs, long long seed, int threads) {
  hg_error err;
  hg_campaign *c = hg_campaign_load(path.c_str(), &err);
  if (!c) raise_error(err.msg);
  std::unique_ptr<hg_campaign, void (*)(hg_campaign *)> guard(c, hg_campaign_free);
  if (runs >= 0) c->runs = (int)runs;
  if (seed >= 0) c->seed = (uint64_t)seed;
  int n = c->runs, nd = c->ndisp, nm = c->nmetric;
  std::vector<double> param((size_t)n * (size_t)nd), metric((size_t)n * (size_t)nm);
  std::vector<hg_run_result> res((size_t)n);
  for (int k = 0; k < n; k++) {
    std::memset(&res[(size_t)k], 0, sizeof(hg_run_result));
    res[(size_t)k].param = param.data() + (size_t)k * (size_t)nd;
    res[(size_t)k].metric = metric.data() + (size_t)k * (size_t)nm;
  }
  if (threads <= 0) threads = (int)std::max(1u, std::thread::hardware_concurrency());
  {
    py::gil_scoped_release nogil;
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; t++)
      pool.emplace_back([&, t]() {
        for (int k = t; k < n; k += threads) hg_campaign_run_one(c, k, nullptr, &res[(size_t)k]);
      });
    for (auto &th : pool) th.join();
  }
  py::dict out;
  std::vector<double> col((size_t)n);
  auto column = [&](auto get) {
    for (int k = 0; k < n; k++) col[(size_t)k] = get(k);
    return copy_vec(col.data(), n);
  };
  out["run"] = column([&](int k) { return (double)res[(size_t)k].run; });
  out["ok"] = column([&](int k) { return (double)res[(size_t)k].ok; });
  for (int j = 0; j < nd; j++)
    out[py::str(c->disp[j].path)] = column([&](int k) { return res[(size_t)k].param[j]; });
  for (int j = 0; j < nm; j++)
    out[py::str(c->metric[j].name)] = column([&](int k) { return res[(size_t)k].metric[j]; });
  // a failure: the run failed, its metric is NaN, or it is below or above the thresholds
  for (int f = 0; f < c->nfail; f++) {
    const hg_failure &F = c->fail[f];
    out[py::str(F.name)] = column([&](int k) {
      double x = res[(size_t)k].metric[F.metric];
      return (double)(!res[(size_t)k].ok || std::isnan(x) || x < F.below || x > F.above);
    });
  }
  py::list errors;
  for (int k = 0; k < n; k++) errors.append(std::string(res[(size_t)k].ok ? "" : res[(size_t)k].error));
  out["error"] = errors;
  return out;
}

} // namespace

// the control ABI's functions of this module as a controller library (symbol: python_step; the
// runtime derives the others' names from it)
HG_CONTROL_DECLARE_ABI;
HG_CONTROL_API int python_init(const hg_control_setup *setup, void **state, char *err,
                               size_t errlen) {
  return py_ctl_init(setup, state, err, errlen);
}
HG_CONTROL_API int python_step(void *state, double t, const double *in, double *out, char *err,
                               size_t errlen) {
  return py_ctl_step(state, t, in, out, err, errlen);
}
HG_CONTROL_API void python_finish(void *state) { py_ctl_finish(state); }
HG_CONTROL_API int python_set(void *state, const char *param, int n, const double *value,
                              char *err, size_t errlen) {
  return py_ctl_set(state, param, n, value, err, errlen);
}
HG_CONTROL_API int python_save(void *state, double *buf, int cap) {
  return py_ctl_save(state, buf, cap);
}
HG_CONTROL_API int python_load(void *state, const double *buf, int n, char *err, size_t errlen) {
  return py_ctl_load(state, buf, n, err, errlen);
}

PYBIND11_MODULE(_hinge, mod) {
  mod.doc() = "hinge's C libraries (the package hinge wraps this module)";
  hg_py_error = PyErr_NewException("hinge.Error", PyExc_RuntimeError, nullptr);
  hg_py_singular = PyErr_NewException("hinge.SingularError", hg_py_error, nullptr);
  mod.attr("Error") = py::handle(hg_py_error);
  mod.attr("SingularError") = py::handle(hg_py_singular);

  py::class_<Model, std::shared_ptr<Model>>(mod, "Model")
      .def_static("from_urdf", &model_from_urdf, py::arg("path"), py::arg("floating") = false,
                  py::arg("fix_inertia") = false, py::arg("package_path") = "")
      .def_static("from_scene", &model_from_scene, py::arg("path"))
      .def_property_readonly("nq", [](Model &M) { return M.m()->nq; })
      .def_property_readonly("nv", [](Model &M) { return M.m()->nv; })
      .def_property("gravity",
                    [](Model &M) { return copy_vec(M.m()->gravity, 3); },
                    [](Model &M, std::array<double, 3> g) {
                      for (double x : g)
                        if (!std::isfinite(x)) throw py::value_error("gravity: not finite");
                      M.m();
                      std::memcpy(M.run->gravity, g.data(), sizeof M.run->gravity);
                      std::memcpy(M.full->gravity, g.data(), sizeof M.full->gravity);
                    })
      .def_property_readonly("joints", &joints)
      .def("neutral", &neutral)
      .def("aba", &aba, py::arg("q"), py::arg("v"), py::arg("tau"))
      .def("rnea", &rnea, py::arg("q"), py::arg("v"), py::arg("a"))
      .def("bias", &bias, py::arg("q"), py::arg("v"))
      .def("crba", &crba, py::arg("q"))
      .def("minv", &minv, py::arg("q"))
      .def("hybrid", &hybrid, py::arg("q"), py::arg("v"), py::arg("x"),
           py::arg("prescribed") = std::vector<std::string>())
      .def("aba_derivatives", &aba_derivatives, py::arg("q"), py::arg("v"), py::arg("tau"))
      .def("rnea_derivatives", &rnea_derivatives, py::arg("q"), py::arg("v"), py::arg("a"))
      .def("rnea_second_derivatives",
           [](Model &M, py::handle q, py::handle v, py::handle a) {
             return second_derivatives(M, q, v, a, false);
           }, py::arg("q"), py::arg("v"), py::arg("a"))
      .def("aba_second_derivatives",
           [](Model &M, py::handle q, py::handle v, py::handle tau) {
             return second_derivatives(M, q, v, tau, true);
           }, py::arg("q"), py::arg("v"), py::arg("tau"))
      .def("rnea_second_derivatives_contract",
           [](Model &M, py::handle q, py::handle v, py::handle a, py::handle lam) {
             return second_derivatives_contract(M, q, v, a, lam, false);
           }, py::arg("q"), py::arg("v"), py::arg("a"), py::arg("lam"))
      .def("aba_second_derivatives_contract",
           [](Model &M, py::handle q, py::handle v, py::handle tau, py::handle lam) {
             return second_derivatives_contract(M, q, v, tau, lam, true);
           }, py::arg("q"), py::arg("v"), py::arg("tau"), py::arg("lam"))
      .def("integrate", &integrate, py::arg("q"), py::arg("v"), py::arg("dt"))
      .def("difference", &difference, py::arg("q0"), py::arg("q1"))
      .def("_time_aba", &time_aba, py::arg("q"), py::arg("v"), py::arg("tau"), py::arg("n"))
      .def("close", &Model::close);

  py::class_<Scene, std::shared_ptr<Scene>>(mod, "Scene")
      .def_static("load", &scene_load, py::arg("path"),
                  py::arg("overrides") = std::map<std::string, double>())
      .def_property_readonly("path", [](Scene &S) { return std::string(S.s->path); });

  py::class_<Simulation, std::shared_ptr<Simulation>>(mod, "Simulation")
      .def(py::init(&sim_new), py::arg("scene"), py::arg("t_end") = NAN, py::arg("rtol") = 0.0,
           py::arg("out_dir") = "",
           py::arg("controllers") = std::map<std::string, py::object>())
      .def("run_until", &sim_run_until, py::arg("t"))
      .def("step", [](Simulation &S, double dt) { sim_run_until(S, hg_sim_time(S.s()) + dt); },
           py::arg("dt"))
      .def("command", &sim_command, py::arg("text"))
      .def_property_readonly("t", [](Simulation &S) { return hg_sim_time(S.s()); })
      .def_property_readonly("t_end", [](Simulation &S) { return hg_sim_t_end(S.s()); })
      .def_property_readonly("q", [](Simulation &S) {
        return copy_vec(hg_sim_q(S.s()), hg_sim_model(S.sim)->nq);
      })
      .def_property_readonly("v", [](Simulation &S) {
        return copy_vec(hg_sim_v(S.s()), hg_sim_model(S.sim)->nv);
      })
      .def_property_readonly("joint_names", &sim_joint_names)
      .def("joint", &sim_joint, py::arg("name"))
      .def("budget", &sim_budget)
      .def("momentum", [](Simulation &S) {
        double h[6];
        hg_sim_momentum(S.s(), h);
        return copy_vec(h, 6);
      })
      .def("events", &sim_events)
      .def("_outputs", &sim_outputs)
      .def("clearance", &sim_clearance, py::arg("a"), py::arg("b"))
      .def("write_checkpoint", [](Simulation &S, const std::string &path) {
        if (hg_sim_write_checkpoint(S.s(), path.c_str()) != HG_SIM_OK)
          raise_error(path + ": could not write the checkpoint");
      }, py::arg("path"))
      .def("resume", [](Simulation &S, const std::string &path) {
        hg_error err;
        if (hg_sim_resume(S.s(), path.c_str(), &err) != HG_SIM_OK) raise_error(err.msg);
      }, py::arg("path"))
      .def("finish", [](Simulation &S) { S.check(hg_sim_finish(S.s())); })
      .def("close", &Simulation::close);

  mod.def("_linearize", &linearize, py::arg("scene"), py::arg("t") = NAN,
          py::arg("equilibrium") = false, py::arg("rest") = false, py::arg("step") = 0.0,
          py::arg("tol") = 0.0);
  mod.def("_mc_run", &mc_run, py::arg("campaign"), py::arg("runs") = -1, py::arg("seed") = -1,
          py::arg("threads") = 0);
}
