"""The EA3D spin glass in equilibrium by parallel tempering: the spec of model ``ea3d_pt``.

Conventions (on top of those of :mod:`simcore.models.ea3d`, whose lattice, layouts,
couplings and Metropolis rule it shares):

Slots
    ``S[slot, c, w, j]`` with slot = 2 i + r: replica r = 0, 1 at temperature T_i of the
    ladder T_0 = T_min < ... < T_{n_T - 1} = T_max (:mod:`.pt_ladder`).  Temperatures stay
    with the slots: every word of a slot is swept with that temperature's thresholds, and
    an accepted exchange moves one sample's configuration (its bit in every word) to the
    other slot, so the 64 samples of a word decide their exchanges independently.
Random numbers (Philox, key = the job seed)
    start spins  slot a, site p, word w: counter (p, w, a, STREAM_EA_PT_SPINS << 24);
    Metropolis   sweep t, colour c, site p, word w, slots 4 g .. 4 g + 3: counter
                 (p, w, t, STREAM_EA_PT_METROPOLIS << 24 | g << 1 | c), output a for slot
                 4 g + a (one number per word and slot, shared by its 64 samples, as in
                 ea3d);
    exchange     :mod:`.pt_exchange`.
Measurements
    After every exchange step (``exchange_every`` sweeps): e, q and |q(k_min)|^2 (the
    overlap field's Fourier component at k_min = 2 pi / L, mean over x, y, z: the
    second-moment correlation length; :mod:`.planes`) at every temperature, added to
    logarithmic bins (:func:`.pt_simulation.log_bin`); t_max / exchange_every must be a
    power of two, so the last bin is the second half of the run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from simcore.checks import ConfigError, check_int, check_real
from simcore.models.ea3d.lattice import LAYOUTS
from simcore.models.ea3d.pt_ladder import auto_n_temperatures
from simcore.models.ea3d.spec import check_coded_words, check_lattice, table_bytes
from simcore.models.spec import Key, ModelSpec, Work, format_number

#: Temperatures of a ladder at most (two slots each).
MAX_TEMPERATURES = 256


class EA3DPTSpec(ModelSpec):
    """3D Edwards-Anderson +-J spin glass in equilibrium: parallel tempering over a
    temperature ladder, two replicas per temperature, multispin Metropolis (64 disorder
    samples per word), on CPU cores or one GPU."""

    name = "ea3d_pt"
    title = "3D Edwards-Anderson +-J spin glass, parallel tempering with multispin coding"
    backends = ("cpu", "gpu")
    #: The CPU job and its GPU subclass, imported when a job is built.
    jobs = {
        "cpu": "simcore.models.ea3d.pt_simulation:PTSimulation",
        "gpu": "simcore.models.ea3d.pt_simulation:PTGPUSimulation",
    }
    keys = {
        "L": Key("linear size of the periodic L^3 lattice, even", type="int"),
        "T_min": Key("lowest temperature of the ladder (J = k_B = 1)", type="float"),
        "T_max": Key("highest temperature of the ladder, > T_min", type="float"),
        "n_T": Key("temperatures of the geometric ladder, or auto (the rule of "
                   "simcore.models.ea3d.pt_ladder: exchange acceptances near 0.4)",
                   default="auto", type="int|auto"),
        "exchange_every": Key("Metropolis sweeps between exchange steps (and measurements)",
                              default=10, type="int", point=False),
        "layout": Key("memory layout (bitwise: L = 2^l)", default="sliced", type="str",
                      choices=LAYOUTS),
    }  # fmt: skip
    time_unit = "sweeps"
    time_name = "time in sweeps"
    energy_unit = "|J|"
    resource_rates = {
        "pt_flips_per_second": (2e9, "spin-flip attempts per second of one CPU job (all cores)"),
        "pt_gpu_flips_per_second": (1e12, "spin-flip attempts per second of one GPU job"),
    }
    analysis = "analysis.ea3d_pt"
    bench_kernels = {"ea3d-pt": "simcore.models.ea3d.pt_bench:PT"}
    example = {"L": 4, "T_min": 0.8, "T_max": 2.0, "n_T": 4, "samples": 64, "t_max": 320,
               "exchange_every": 10}  # fmt: skip

    def validate(self, cfg: dict[str, Any]) -> None:
        """An even size the layout supports, 0 < T_min < T_max, a ladder of 2..256
        temperatures (auto resolved here), whole coded words, and t_max = exchange_every
        times a power of two."""
        L = check_lattice(cfg)
        T_min = check_real(cfg, "T_min", positive=True)
        T_max = check_real(cfg, "T_max", positive=True)
        if not T_max > T_min:
            raise ConfigError("T_max", T_max, f"must be above T_min = {T_min}")
        cfg["T_min"], cfg["T_max"] = T_min, T_max
        if cfg["n_T"] == "auto":
            cfg["n_T"] = auto_n_temperatures(L, T_min, T_max)
        check_int(cfg, "n_T", lo=2, hi=MAX_TEMPERATURES)
        every = check_int(cfg, "exchange_every", lo=1, hi=2**20)
        steps = cfg["t_max"] // every
        if cfg["t_max"] % every or steps & (steps - 1):
            good = every * (1 << max(int(math.log2(max(cfg["t_max"] / every, 1))), 0))
            raise ConfigError(
                "t_max", cfg["t_max"],
                f"must be exchange_every ({every}) times a power of two, e.g. {good} "
                "(logarithmic bins: the last bin is the second half of the run)",
            )  # fmt: skip
        check_coded_words(cfg)

    def point_name(self, cfg: Mapping[str, Any]) -> str:
        """``ea3d_pt_L8_T0.9-2_n12_sliced_gpu``."""
        return (
            f"ea3d_pt_L{int(cfg['L'])}_T{format_number(cfg['T_min'])}-"
            f"{format_number(cfg['T_max'])}_n{int(cfg['n_T'])}_{cfg['layout']}_{cfg['backend']}"
        )

    def uses_threads(self, cfg: Mapping[str, Any]) -> bool:
        """The CPU sweep runs the sites of a colour in parallel; on either backend the host's
        exchange decisions run the coded words in parallel (with 4096 samples one core
        spends about 7 ms per exchange step on them, more than a GPU's sweeps at L <= 16)."""
        return True

    def work(self, job: Mapping[str, Any], rates: Mapping[str, float]) -> Work:
        """``2 n_T L^3 t_max samples`` spin-flip attempts.  Memory, from the arrays the job
        allocates (:mod:`.pt_simulation`; V = L^3, n samples in k = n / 64 coded words,
        n_b logarithmic bins): state = the spins of the 2 n_T slots S[2 n_T, 2, k, V/2]
        (uint64, 16 n_T k V), the walker labels (int64) and trip states (int8) of every
        slot and sample; results = the bin sums of e, q^2, q^4 and |q(k_min)|^2 (float64,
        n_b x n_T x n), the round trips (int64, n x 2 x n_T) and the accepted exchanges
        (int64, n x (n_T - 1)); scratch = the tables the job keeps
        (:func:`~simcore.models.ea3d.spec.table_bytes`, and the site coordinates of
        :func:`~simcore.models.ea3d.planes.site_coordinates`, int16, 2 x 3 x V/2), plus the
        larger of an exchange step's per-sample counts (satisfied bonds and energies of
        every slot, int64; on the GPU the satisfied bonds come back as uint64 and are cast,
        as large again; the |q(k_min)|^2 of each temperature, float64, come later and are
        smaller) and the bin means and acceptances that
        :meth:`~.pt_simulation.PTSimulation.to_dataset` computes.  A GPU job keeps the same
        host arrays, its state being the checkpoint's copy of the device's spins; its
        device holds the spins, the couplings (48 k V), the largest of the three
        measuring kernels' outputs, one at a time (satisfied bonds, uint64 per slot and
        sample; agreeing sites, uint64, and |q(k_min)|^2, float64, (n_T, k, 64) each),
        an exchange step's masks, the thresholds and the weights of |q(k_min)|^2
        (float64, L/2 + 1)."""
        L, n_T = int(job["L"]), int(job["n_T"])
        n_sites = L**3
        samples, t_max = int(job["samples"]), int(job["t_max"])
        gpu = job["backend"] == "gpu"
        rate = rates["pt_gpu_flips_per_second" if gpu else "pt_flips_per_second"]
        n_bins = int(t_max // int(job["exchange_every"])).bit_length()
        k = samples // 64
        spins = 16 * n_T * k * n_sites
        per_sample = samples * n_T  # one number per sample and temperature
        bins = 32 * n_bins * per_sample  # e, q^2, q^4, |q(k_min)|^2 per bin (float64)
        output = bins + 8 * samples * (n_T - 1)
        measured = 16 * per_sample  # satisfied bonds: more than q(k_min), 8 per_sample
        device = spins + 48 * k * n_sites + measured + 16 * (n_T - 1) * k + 24 * n_T
        return Work(
            seconds=2 * n_T * n_sites * t_max * samples / rate,
            state_bytes=spins + 18 * per_sample,
            result_bytes=bins + 16 * per_sample + 8 * samples * (n_T - 1),
            scratch_bytes=table_bytes(L, k) + 6 * n_sites + max(32 * per_sample, output),
            device_bytes=device + 8 * (L // 2 + 1) if gpu else 0,
        )

    def campaign_figures(self, points: Sequence[Mapping[str, Any]]) -> dict[str, str]:
        """The equilibrium observables against T, one curve per L, and the diagnostics."""
        return {
            "binder": "Binder ratio g(T) = (3 - [<q^4>]/[<q^2>]^2) / 2 from the last "
            "logarithmic bin, one curve per L with jackknife errors over disorder samples; "
            "the crossings of successive sizes locate T_c.",
            "xi_over_L": "Second-moment correlation length over L, xi_L/L(T) with xi_L = "
            "sqrt([<q^2>]/[<|q(k_min)|^2>] - 1) / (2 sin(k_min/2)), k_min = 2 pi / L, from "
            "the last logarithmic bin, one curve per L with jackknife errors over disorder "
            "samples; the crossings of successive sizes locate T_c (runs that measured "
            "|q(k_min)|^2 only).",
            "chi_sg": "Spin-glass susceptibility chi_SG = L^3 [<q^2>] against T, one curve "
            "per L, with jackknife errors.",
            "energy": "Equilibrium energy per spin e(T) (last logarithmic bin), one curve per "
            "L, with jackknife errors.",
            "equilibration": "Logarithmic binning: e and [<q^2>] (and g and xi_L/L, where "
            "measured) at the lowest temperature per bin against the bin's last sweep, one "
            "curve per L; equilibrium when the last bins agree within errors.",
            "exchange": "Exchange acceptance of each temperature pair and round trips per "
            "configuration, one curve per L.",
        }


SPEC = EA3DPTSpec()
