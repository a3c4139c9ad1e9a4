"""Lattice models behind one interface (:mod:`simcore.models.spec`), found by name in the
registry (:mod:`simcore.models.registry`).  Each model is a package: its spec, update
rule, lattice encoding, schedules, observables and job."""

from __future__ import annotations

from simcore.models.spec import ModelSpec, Simulation


def make_simulation(cfg: dict, spec: ModelSpec | None = None) -> Simulation:
    """The job of a validated run config (the GPU checked first), built by ``spec`` (the
    spec of ``cfg["model"]``; None: looked up in the registry), which the job keeps."""
    if cfg["backend"] == "gpu":
        from simcore.backends.cuda import require_gpu

        require_gpu()
    if spec is None:
        from simcore.models import registry

        spec = registry.get(cfg["model"])
    return spec.simulation(cfg)
