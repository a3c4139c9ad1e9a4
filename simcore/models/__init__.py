"""Lattice models behind one interface (:mod:`simcore.models.spec`), found by name in the
registry (:mod:`simcore.models.registry`).  Each model is a package: its spec, update
rule, lattice encoding, schedules, observables and job."""

from __future__ import annotations

from simcore.models.spec import Simulation


def make_simulation(cfg: dict) -> Simulation:
    """The simulation object of a validated run config (the GPU checked first)."""
    from simcore.models import registry

    if cfg["backend"] == "gpu":
        from simcore.backends.cuda import require_gpu

        require_gpu()
    return registry.get(cfg["model"]).simulation(cfg)
