"""The EA3D spin glass's spec: its run-config keys, checks, point names, costs and figures."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from simcore.checks import ConfigError, check_int
from simcore.models.ea3d.lattice import LAYOUTS
from simcore.models.spec import Key, ModelSpec, PaperFigure, Simulation, Work, format_number
from simcore.sampling import n_times_estimate

PRNGS = ("philox", "minstd", "pr64", "mt19937")

_LULLI = "lulli2015"


def check_lattice(cfg: Mapping[str, Any]) -> int:
    """L of an EA3D run config: even (checkerboard), and a power of two for the bitwise
    layout (shared by ea3d and ea3d_pt)."""
    L = check_int(cfg, "L", lo=2, hi=1024)
    if L % 2:
        raise ConfigError("L", L, "must be even (checkerboard)")
    if cfg["layout"] == "bitwise" and L & (L - 1):
        raise ConfigError("layout", "bitwise", f"needs L = 2^l, got L = {L}")
    return L


def check_coded_words(cfg: Mapping[str, Any]) -> None:
    """Whole 64-sample coded words: ``samples`` and ``sample_offset`` multiples of 64."""
    if cfg["samples"] % 64:
        raise ConfigError("samples", cfg["samples"], "must be a multiple of 64 (one coded word)")
    if cfg["sample_offset"] % 64:
        raise ConfigError("sample_offset", cfg["sample_offset"], "must be a multiple of 64")


class EA3DSpec(ModelSpec):
    """3D Edwards-Anderson +-J spin glass (lulli2015): a quench to T under checkerboard
    Metropolis with asynchronous multispin coding, on CPU cores, one GPU or several."""

    name = "ea3d"
    title = "3D Edwards-Anderson +-J spin glass, multispin Metropolis (lulli2015)"
    keys = {
        "L": Key("linear size of the periodic L^3 lattice, even", type="int"),
        "T": Key("temperature (J = k_B = 1), > 0", type="float"),
        "layout": Key("memory layout (bitwise: L = 2^l)", default="sliced", type="str",
                      choices=LAYOUTS),
        "prng": Key("random numbers: philox (counter based, keyed by site) or a battery of "
                    "stateful generators", default="philox", type="str", choices=PRNGS),
    }  # fmt: skip
    time_unit = "sweeps"
    time_name = "time in sweeps"
    #: ``model_units`` of energies: the couplings are +-J, J = k_B = 1.
    energy_unit = "|J|"
    resource_rates = {
        "flips_per_second": (2e9, "spin-flip attempts per second of one CPU job (all cores)"),
        "gpu_flips_per_second": (1e12, "spin-flip attempts per second of one GPU job"),
    }
    analysis = "analysis.ea3d"
    paper_figures = (
        PaperFigure("psflip_k", _LULLI, "Fig. 4: ps per spin flip vs coded words k",
                    "analysis.lulli2015:psflip_k", bench=("ea3d",)),
        PaperFigure("psflip_L", _LULLI, "Fig. 5: ps per spin flip vs L per layout",
                    "analysis.lulli2015:psflip_L", bench=("ea3d",)),
        PaperFigure("psflip_prng", _LULLI, "Fig. 9: ps per spin flip per random number "
                    "generator", "analysis.lulli2015:psflip_prng", bench=("ea3d",)),
        PaperFigure("strong_scaling", _LULLI, "Fig. 12: strong-scaling efficiency over GPUs",
                    "analysis.lulli2015:strong_scaling", bench=("mgpu",)),
        PaperFigure("scaling_collapse", _LULLI, "Fig. 13: x psFlip_N vs x = L / N",
                    "analysis.lulli2015:scaling_collapse", bench=("mgpu",)),
    )  # fmt: skip
    bench_kernels = {
        "ea3d": "simcore.models.ea3d.bench:EA3D",
        "mgpu": "simcore.models.ea3d.bench:MGPU",
    }
    example = {"L": 4, "T": 1.0, "samples": 64, "t_max": 20}

    def validate(self, cfg: dict[str, Any]) -> None:
        """An even size the layout supports, T > 0, whole coded words of samples."""
        check_lattice(cfg)
        T = cfg["T"]
        if isinstance(T, bool) or not isinstance(T, int | float) or not T > 0:
            raise ConfigError("T", T, "must be a number > 0")
        cfg["T"] = float(T)
        check_coded_words(cfg)

    def point_name(self, cfg: Mapping[str, Any]) -> str:
        """``ea3d_L16_T0.8_sliced_philox_gpu``."""
        return (
            f"ea3d_L{int(cfg['L'])}_T{format_number(cfg['T'])}_{cfg['layout']}_{cfg['prng']}"
            f"_{cfg['backend']}"
        )

    def uses_threads(self, cfg: Mapping[str, Any]) -> bool:
        """The CPU sweep runs the sites of a colour in parallel (a GPU job runs on the GPU:
        one core)."""
        return cfg.get("backend") == "cpu"

    def work(self, job: Mapping[str, Any], rates: Mapping[str, float]) -> Work:
        """``4 L^3 t_max samples`` spin-flip attempts; the state is 20 words of 8 bytes per
        site and coded word (spins, couplings), the results 10 numbers per sample and time."""
        n_sites = int(job["L"]) ** 3
        samples, t_max = int(job["samples"]), int(job["t_max"])
        rate = rates["gpu_flips_per_second" if job["backend"] == "gpu" else "flips_per_second"]
        n_times = n_times_estimate(t_max, int(job["points_per_decade"]), 0)
        return Work(
            seconds=4 * n_sites * t_max * samples / rate,
            state_bytes=8 * 10 * n_sites * (samples // 64),
            result_bytes=8 * samples * n_times * 10,
        )

    def campaign_figures(self, points: Sequence[Mapping[str, Any]]) -> dict[str, str]:
        """Energy, <q^2> and the Binder ratio vs sweeps."""
        return {
            "energy": "Energy per spin e(t) after the quench against sweeps (log t), with "
            "jackknife errors, one line per point.",
            "q2": "Mean squared overlap <q^2>(t) of the replica pairs against sweeps (log t), "
            "with jackknife errors, one line per point.",
            "binder": "Binder ratio g(t) = (3 - <q^4>/<q^2>^2) / 2 against sweeps (log t), "
            "with jackknife errors, one line per point.",
        }

    def simulation(self, cfg: dict[str, Any]) -> Simulation:
        """The CPU job, or its GPU subclass for backend gpu."""
        if cfg["backend"] == "gpu":
            from simcore.models.ea3d.simulation import EA3DGPUSimulation

            return EA3DGPUSimulation(cfg)
        from simcore.models.ea3d.simulation import EA3DSimulation

        return EA3DSimulation(cfg)


SPEC = EA3DSpec()
