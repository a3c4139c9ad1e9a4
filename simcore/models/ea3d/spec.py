"""The EA3D spin glass's spec: its run-config keys, checks, point names, costs and figures."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from simcore.checks import ConfigError, check_int
from simcore.models.ea3d.kernels import n_generators
from simcore.models.ea3d.lattice import LAYOUTS
from simcore.models.spec import Key, ModelSpec, PaperFigure, Work, format_number
from simcore.rng.classic import N_WORDS
from simcore.sampling import sampling_times

PRNGS = ("philox", "minstd", "pr64", "mt19937")

#: Exchanges between GPUs of one host (CUDA IPC): how the arrival of a plane is signalled.
IPC_EXCHANGES = {
    "auto": "fused for slabs of fewer than 2^24 words per colour, graph for larger ones",
    "graph": "CUDA IPC, flags set on the GPUs, sweeps replayed as CUDA graphs",
    "fused": "CUDA IPC, one kernel per colour whose boundary blocks wait for and set the "
    "flags, sweeps replayed as CUDA graphs",
    "flags": "CUDA IPC, flags set on the GPUs, kernels queued one by one",
    "token": "CUDA IPC + an MPI token per colour",
}

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


#: Host bytes per generator at the peak of seeding a stateful battery
#: (:func:`simcore.rng.classic.init_state`, measured with tracemalloc at G = 4096 and 65536
#: generators, the same per generator): minstd the distinct int64 seeds and the numba set
#: that keeps them distinct; pr64 the 64 Philox seed words, the copied 62-word ring and the
#: parity check of its last 55 words (uint32 and bool); mt19937 the distinct seeds and the
#: 625-word state with its aux word.
SEEDING_BYTES = {"minstd": 88, "pr64": 788, "mt19937": 2516}


def table_bytes(L: int, k: int) -> int:
    """Host bytes of the tables an EA3D job (ea3d and ea3d_pt, either backend) builds from
    its seed and keeps for its whole run (:mod:`simcore.models.ea3d.lattice`): the coupling
    words J[2, 6, k, V/2] (uint64, 48 k V), the neighbour table nbr[2, 6, V/2] and the
    physical indices phys[2, V/2] (int64, 48 V and 8 V), V = L^3."""
    V = int(L) ** 3
    return 48 * int(k) * V + 56 * V


def generator_bytes(prng: str, L: int, k: int) -> tuple[int, int]:
    """(state, seeding peak) host bytes of the stateful generators of an ea3d job: G =
    :func:`~simcore.models.ea3d.kernels.n_generators` generators of ``N_WORDS`` uint32 words
    and one uint64 each, and :data:`SEEDING_BYTES` per generator while they are seeded;
    (0, 0) for philox, which has no state."""
    if prng == "philox":
        return 0, 0
    G = n_generators(int(L), int(k))
    return (4 * N_WORDS[prng] + 8) * G, SEEDING_BYTES[prng] * G


class EA3DSpec(ModelSpec):
    """3D Edwards-Anderson +-J spin glass (lulli2015): a quench to T under checkerboard
    Metropolis with asynchronous multispin coding, on CPU cores, one GPU or several."""

    name = "ea3d"
    title = "3D Edwards-Anderson +-J spin glass, multispin Metropolis (lulli2015)"
    backends = ("cpu", "gpu")
    #: The CPU job and its GPU subclass, imported when a job is built.
    jobs = {
        "cpu": "simcore.models.ea3d.simulation:EA3DSimulation",
        "gpu": "simcore.models.ea3d.simulation:EA3DGPUSimulation",
    }
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
        PaperFigure("prng_tables", _LULLI, "Tables 1, 2: generator fill time (host API) and "
                    "instances per second (device API)", "analysis.lulli2015_tables:prng_tables",
                    bench=("prng",)),
        PaperFigure("best_k", _LULLI, "Fig. 7: best k vs L and branching warps per word",
                    "analysis.lulli2015_tables:best_k", bench=("ea3d",)),
        PaperFigure("bandwidth", _LULLI, "Fig. 8: bandwidth of the best configurations vs the "
                    "copy peak", "analysis.lulli2015_tables:bandwidth", bench=("ea3d",)),
        PaperFigure("strong_scaling", _LULLI, "Fig. 12: strong-scaling efficiency over GPUs",
                    "analysis.lulli2015:strong_scaling", bench=("mgpu",)),
        PaperFigure("scaling_collapse", _LULLI, "Fig. 13: x psFlip_N vs x = L / N",
                    "analysis.lulli2015:scaling_collapse", bench=("mgpu",)),
    )  # fmt: skip
    bench_kernels = {
        "ea3d": "simcore.models.ea3d.bench:EA3D",
        "mgpu": "simcore.models.ea3d.bench:MGPU",
        "prng": "simcore.models.ea3d.prng_bench:PRNG",
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
        """``4 L^3 t_max samples`` spin-flip attempts.  Memory, from the arrays the job
        allocates (:mod:`.simulation`; V = L^3, k = samples / 64 coded words, n_t sampling
        times): state = the spins S[4, 2, k, V/2] (uint64, 32 k V) and a stateful
        generator's words (:func:`generator_bytes`); results = the energies of 4 replicas
        and 6 overlaps per sample and time (float64); scratch = the tables the job keeps
        (:func:`table_bytes`) and what seeding a generator battery holds beyond its state.
        The measurements' counters are (4, k, 64) int64, a few KiB.  A GPU job keeps the
        same host arrays, its state being the checkpoint's copy of the device's spins and
        generators (the host copy each measurement makes, and the host spins of the start,
        are as large and never held at once with it), and its device holds the spins, the
        couplings (48 k V) and the generators; its sweeps and measurements allocate
        nothing on the device."""
        n_sites = int(job["L"]) ** 3
        samples, t_max = int(job["samples"]), int(job["t_max"])
        gpu = job["backend"] == "gpu"
        rate = rates["gpu_flips_per_second" if gpu else "flips_per_second"]
        k = samples // 64
        generators, seeding = generator_bytes(str(job.get("prng", "philox")), int(job["L"]), k)
        state = 32 * k * n_sites + generators
        times = sampling_times(t_max, int(job["points_per_decade"]), [])
        return Work(
            seconds=4 * n_sites * t_max * samples / rate,
            state_bytes=state,
            result_bytes=8 * samples * times.size * 10,
            scratch_bytes=table_bytes(int(job["L"]), k) + max(0, seeding - generators),
            device_bytes=state + 48 * k * n_sites if gpu else 0,
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


SPEC = EA3DSpec()
