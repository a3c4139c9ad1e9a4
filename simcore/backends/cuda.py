"""What every GPU model shares: the device check, the device's name, and one loader of
CUDA sources (NVRTC through CuPy) with the shared headers and the stream tags.

CuPy is imported inside the functions only, so every module imports without a GPU.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from simcore.checks import ConfigError
from simcore.rng.streams import cuda_defines

#: Include directory of the shared CUDA headers (philox.cuh, exponential.cuh, ...).
CUDA_INCLUDE = Path(__file__).resolve().parents[1] / "rng" / "cuda"


def require_gpu() -> None:
    """Raise a one-line ConfigError unless CuPy and a CUDA device are usable."""
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


def compile_options(defines: tuple[str, ...], *extra: str) -> tuple[str, ...]:
    """NVRTC (and nvcc) options of a kernel build: C++17, the shared headers, every RNG
    stream tag as ``-DSTREAM_<NAME>`` (:mod:`simcore.rng.streams`), ``extra`` options
    (e.g. ``--fmad=false``) and the build's own ``-D`` ``defines``."""
    return ("-std=c++17", *extra, f"-I{CUDA_INCLUDE}", *cuda_defines(), *defines)


@lru_cache(maxsize=64)
def load_module(source: Path, defines: tuple[str, ...], extra: tuple[str, ...] = ()):
    """The compiled CuPy ``RawModule`` of a CUDA source for one set of ``-D`` defines
    (cached: a geometry is compiled once per process).  The source's own folder is on the
    include path, as for nvcc, so a model's kernels can share a header."""
    import cupy as cp

    options = compile_options(defines, *extra, f"-I{Path(source).resolve().parent}")
    return cp.RawModule(code=Path(source).read_text(), options=options)


class OnGPU:
    """Mixin of a model's GPU job (the subclass of its CPU job): the device's name for
    provenance.  The subclass overrides the hot methods and where the state lives."""

    def device_name(self) -> str | None:
        """The CUDA device's name."""
        return gpu_device_name()


class StateOnGPU(OnGPU):
    """:class:`OnGPU` for a job whose state keeps the arrays named in ``on_device`` on the
    GPU between steps (the rest on the host): a checkpoint copies them to the host, a
    resume moves them back."""

    #: Keys of the state whose arrays live on the GPU.
    on_device: tuple[str, ...] = ()

    def to_host(self, st: dict) -> dict:
        """The state with its GPU arrays copied to the host."""
        import cupy as cp

        return {k: (cp.asnumpy(v) if k in self.on_device else v) for k, v in st.items()}

    def from_host(self, st: dict) -> dict:
        """The state with the arrays of ``on_device`` moved to the GPU."""
        import cupy as cp

        return {k: (cp.asarray(v) if k in self.on_device else v) for k, v in st.items()}
