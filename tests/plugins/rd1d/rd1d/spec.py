"""The RD model's spec: the CPU as its one backend, one key, a name, a cost, one figure,
one benchmark kernel and a comparison figure drawn from its table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from simcore.checks import check_int
from simcore.models.spec import Key, ModelSpec, PaperFigure, Work


class RD1DSpec(ModelSpec):
    """1D random deposition on a ring of L columns (CPU only)."""

    name = "rd1d"
    title = "1D random deposition (a model plug-in; exact W^2 = t (1 - 1/L))"
    # It has no GPU job: simcore refuses `backend: gpu` for it, in one line, before it
    # looks for a GPU (the default of a spec that says nothing, written out here).
    backends = ("cpu",)
    # Its one job, imported when a job is built and given this spec then
    # (RD1DSimulation(cfg, spec=...)): the job never imports this module.
    jobs = {"cpu": "rd1d.simulation:RD1DSimulation"}
    keys = {"L": Key("number of columns of the ring, >= 2", type="int")}
    time_unit = "MCS"
    resource_rates = {"deposits_per_second": (1e7, "depositions per second of one CPU job")}
    analysis = "rd1d.analysis"
    bench_kernels = {"rd1d": "rd1d.bench:DEPOSITS"}
    paper_figures = (
        PaperFigure("rd1d_speed", "rd1d", "depositions per ns vs L (simcore bench rd1d)",
                    "rd1d.analysis:speed", bench=("rd1d",)),
    )  # fmt: skip
    example = {"L": 32, "samples": 4, "t_max": 50}

    def validate(self, cfg: dict[str, Any]) -> None:
        """L >= 2 and fits a 32-bit counter word (the backend is checked against
        ``backends`` before this runs)."""
        check_int(cfg, "L", lo=2, hi=2**31)

    def point_name(self, cfg: Mapping[str, Any]) -> str:
        """``rd1d_L64_cpu``."""
        return f"rd1d_L{int(cfg['L'])}_{cfg['backend']}"

    def work(self, job: Mapping[str, Any], rates: Mapping[str, float]) -> Work:
        """``L t_max samples`` depositions; the heights and the W^2 series."""
        L, samples, t_max = int(job["L"]), int(job["samples"]), int(job["t_max"])
        return Work(L * t_max * samples / rates["deposits_per_second"], 8 * L, 8 * samples * 64)

    def campaign_figures(self, points: Sequence[Mapping[str, Any]]) -> dict[str, str]:
        """W^2(t) against the exact result."""
        return {
            "W2": "Squared surface width W^2(t) of every point with jackknife errors, the "
            "exact t (1 - 1/L) dashed."
        }


SPEC = RD1DSpec()
