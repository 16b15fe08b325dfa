"""hinge: multibody dynamics and simulation from Python (docs/python.md).

Model: a robot or a scene's bodies compiled once; its dynamics on NumPy float64 arrays, each
argument a vector or a (batch, n) stack of them (the batch runs with the GIL released).
Scene and Simulation: a scene file (with overrides) and a run of it: step, run_until, commands,
views of the state, the energy budget, the events and the output rows.
Errors of the library (bad files, unknown names, singular inertias) raise hinge.Error with its
"file:line:column: message"; bad arguments raise ValueError or TypeError.
mc.run: a Monte Carlo campaign's runs, one row each.
"""
from . import _hinge, mc
from ._columns import as_frame
from ._hinge import Error, Model, Scene, SingularError

import os as _os

#: this package's compiled module, which is also a controller library of the control ABI: a
#: scene's controller {type: library, library: <this path or a link to it>, symbol: python_step}
#: runs the Python object given to Simulation(..., controllers={NAME: obj}) (docs/python.md)
controller_library = _os.path.abspath(_hinge.__file__)

__all__ = ["controller_library", "Error", "SingularError", "Model", "Scene", "Simulation", "linearize", "mc"]


def linearize(scene, t=None, equilibrium=False, rest=False, step=0.0, tol=0.0):
    """The state-space model d(dx)/dt = A dx + B du of a scene (a Scene or a path) at time t
    (None: its start), or at the equilibrium found from there, as `hinge linearize SCENE [--at T]
    [--rest] [--equilibrium]` computes it (docs/linearization.md); step and tol as --step and
    --tol (0: theirs). Returns a types.SimpleNamespace: A (2nf x 2nf), B (2nf x nf), M, K, C
    (nf x nf), xdot0, the operating point q and v, states and inputs (names, as A.csv's),
    eigenvalues and eigenvectors of A (complex; sorted by |lambda|), frequency_hz (|im|/2 pi)
    and damping (-re/|lambda|) per eigenvalue, w2 and undamped_shapes (K phi = w^2 M phi, when
    M is positive definite) and equilibrium (iterations, residual, rank, converged)."""
    import types

    import numpy as np

    if not isinstance(scene, Scene):
        scene = Scene.load(str(scene))
    r = _hinge._linearize(scene, float("nan") if t is None else float(t), bool(equilibrium),
                          bool(rest), float(step), float(tol))
    lam = r["eigenvalues"]
    mag = np.abs(lam)
    r["frequency_hz"] = np.abs(lam.imag) / (2 * np.pi)
    with np.errstate(invalid="ignore", divide="ignore"):
        r["damping"] = np.where(mag > 0, -lam.real / np.where(mag > 0, mag, 1), np.nan)
    return types.SimpleNamespace(**r)


class Simulation(_hinge.Simulation):
    """A run of a scene: Simulation(scene, t_end=nan, rtol=0, out_dir="", controllers={}) (NaN
    and 0: the scene's; controllers: Python objects by controller name, see controller_library). step(dt), run_until(t), command(text), t, q, v, joint(name), budget(), momentum(),
    events(), clearance(bodies_a, bodies_b), write_checkpoint(path), outputs(), close(); also a
    context manager that closes it."""

    def outputs(self, frame=None):
        """The rows recorded at the scene's output times (output.dt) so far: a pandas DataFrame
        when pandas is installed (frame=None or True), else a dict of NumPy arrays. Columns:
        time, kinetic, potential, budget, and JOINT.mode (0 free, 1 prescribed, 2 locked),
        JOINT.q.K, JOINT.v.K for every joint (NaN while a joint is not in the model)."""
        return as_frame(self._outputs(), frame)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
