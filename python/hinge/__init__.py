"""hinge: multibody dynamics and simulation from Python (docs/python.md).

Model: a robot or a scene's bodies compiled once; its dynamics on NumPy float64 arrays, each
argument a vector or a (batch, n) stack of them (the batch runs with the GIL released).
Scene and Simulation: a scene file (with overrides) and a run of it: step, run_until, commands,
views of the state, the energy budget and the events.
Errors of the library (bad files, unknown names, singular inertias) raise hinge.Error with its
"file:line:column: message"; bad arguments raise ValueError or TypeError.
"""
from ._hinge import Error, Model, Scene, Simulation, SingularError

__all__ = ["Error", "SingularError", "Model", "Scene", "Simulation"]
