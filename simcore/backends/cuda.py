"""What every GPU model shares: the device check, the cards this process sees and the
one it uses (:mod:`simcore.backends.placement` decides which), the device's name, and one
loader of CUDA sources (NVRTC through CuPy) with the shared headers and the stream tags.

CuPy is imported inside the functions only, so every module imports without a GPU.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from simcore.backends.placement import GPU
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


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _uuid_text(raw: object) -> str | None:
    """A card's UUID as nvidia-smi and ``CUDA_VISIBLE_DEVICES`` write it, from the 16 bytes
    of ``cudaDeviceProp.uuid``; None where fewer came back (CuPy hands the bytes over as a
    C string, which ends at the first zero byte of the UUID)."""
    data = bytes(raw) if isinstance(raw, bytes | bytearray) else bytes(_text(raw), "latin-1")
    if len(data) < 16:
        return None
    h = data[:16].hex()
    return f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def smi_uuids(smi_output: str | None = None) -> dict[str, str]:
    """PCI bus id -> UUID of every card, from ``nvidia-smi`` (or its CSV output given);
    empty where nvidia-smi is missing or fails."""
    if smi_output is None:
        import subprocess

        try:
            smi_output = subprocess.run(
                ["nvidia-smi", "--query-gpu=pci.bus_id,uuid", "--format=csv,noheader"],
                capture_output=True, text=True, timeout=30, check=True,
            ).stdout  # fmt: skip
        except (OSError, subprocess.SubprocessError):
            return {}
    pairs = (line.split(",") for line in smi_output.splitlines() if line.count(",") == 1)
    return {pci.strip().upper(): uuid.strip() for pci, uuid in pairs}


def visible_gpus() -> list[GPU]:
    """The cards CUDA shows this process (``CUDA_VISIBLE_DEVICES`` applied), in its
    ordinal order, with their UUIDs and PCI bus ids.  Creates no context on any card."""
    import cupy as cp

    rt = cp.cuda.runtime
    gpus, smi = [], None
    for i in range(rt.getDeviceCount()):
        props = rt.getDeviceProperties(i)
        pci = (f"{int(props['pciDomainID']):08X}:{int(props['pciBusID']):02X}:"
               f"{int(props['pciDeviceID']):02X}.0")  # fmt: skip
        uuid = _uuid_text(props["uuid"]) if props.get("uuid") else None
        if uuid is None:  # a UUID with a zero byte: ask nvidia-smi, by the PCI bus id
            smi = smi_uuids() if smi is None else smi
            uuid = smi.get(pci, f"PCI-{pci}")
        gpus.append(GPU(i, uuid, pci, _text(props["name"])))
    return gpus


def use_gpu(gpu: GPU) -> None:
    """Make ``gpu`` this thread's current CUDA device (CuPy's arrays, kernels and
    ``gpu_device_name`` follow it)."""
    import cupy as cp

    cp.cuda.runtime.setDevice(gpu.ordinal)


def gpu_free_bytes() -> int:
    """Free memory of the current card, in bytes (its context made, if not yet)."""
    import cupy as cp

    return int(cp.cuda.runtime.memGetInfo()[0])


def gpu_device_name() -> str:
    """Name of the current CUDA device, for provenance and benchmark reports."""
    import cupy as cp

    return _text(cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"])


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

    #: :attr:`simcore.backends.cpu.OnCPU.STEP_ATTEMPTS` for a GPU: about 5 s at the
    #: 2-4e11 attempts/s of a lattice job on an H100.
    STEP_ATTEMPTS: int = 2**40

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
