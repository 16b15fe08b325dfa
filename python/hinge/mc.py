"""Monte Carlo campaigns (docs/montecarlo.md) from Python: hinge.mc.run."""
import numpy as np

from . import _hinge
from ._columns import as_frame


def run(campaign, runs=None, seed=None, threads=0, frame=None):
    """Runs a campaign file's runs on threads (0: the machine's cores), each run K exactly as
    `hinge mc` makes it (the same draws for the same seed and K; runs and seed default to the
    campaign's). Returns one row per run: a pandas DataFrame when pandas is installed (frame=None
    or True), else a dict of NumPy arrays, with columns run, ok (1 or 0), each dispersed value by
    its path, each metric by its name, each failure condition (1: it failed) by its name, and
    error (the message of a failed run, else "")."""
    cols = _hinge._mc_run(str(campaign), -1 if runs is None else int(runs),
                          -1 if seed is None else int(seed), int(threads))
    cols = {k: (np.asarray(v, dtype=object) if k == "error" else v) for k, v in cols.items()}
    cols["run"] = cols["run"].astype(np.int64)
    cols["ok"] = cols["ok"].astype(bool)
    return as_frame(cols, frame)
