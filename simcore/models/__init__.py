"""Lattice models: per model, the update rule, the lattice encoding and the observables."""

from __future__ import annotations


def make_simulation(cfg: dict):
    """The simulation object of a validated run config."""
    if cfg["model"] == "kpz":
        from simcore.models.kpz.simulation import KPZSimulation

        return KPZSimulation(cfg)
    raise ValueError(f"unknown model {cfg['model']!r}")
