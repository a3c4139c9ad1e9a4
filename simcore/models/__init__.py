"""Lattice models: per model, the update rule, the lattice encoding and the observables."""

from __future__ import annotations


def require_gpu() -> None:
    """Raise a one-line ConfigError unless CuPy and a CUDA device are usable."""
    from simcore.config import ConfigError

    try:
        import cupy

        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # noqa: BLE001 - import error, no driver, ...: all say "no GPU"
        raise ConfigError(
            "backend", "gpu", f"needs CuPy and a CUDA GPU (pip install -e .[gpu]): {exc}"
        ) from None
    if n < 1:
        raise ConfigError("backend", "gpu", "no CUDA device is visible")


def gpu_device_name() -> str:
    """Name of the current CUDA device, for provenance and benchmark reports."""
    import cupy as cp

    dev = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    name = dev["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def make_simulation(cfg: dict):
    """The simulation object of a validated run config."""
    if cfg["model"] == "ea3d":
        if cfg["backend"] == "gpu":
            require_gpu()
        from simcore.models.ea3d.simulation import EA3DSimulation

        return EA3DSimulation(cfg)
    if cfg["model"] == "kmc2d":
        if cfg["backend"] == "gpu":
            require_gpu()
        from simcore.models.kmc2d.simulation import KMC2DSimulation

        return KMC2DSimulation(cfg)
    if cfg["model"] == "fcc":
        if cfg["backend"] == "gpu":
            require_gpu()
        from simcore.models.fcc.simulation import FCCSimulation

        return FCCSimulation(cfg)
    if cfg["model"] == "kpz":
        if cfg["backend"] == "gpu":
            require_gpu()
            from simcore.models.kpz.gpu_simulation import KPZGPUSimulation

            return KPZGPUSimulation(cfg)
        from simcore.models.kpz.simulation import KPZSimulation

        return KPZSimulation(cfg)
    raise ValueError(f"unknown model {cfg['model']!r}")
