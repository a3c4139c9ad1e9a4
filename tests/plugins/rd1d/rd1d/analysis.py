"""The RD analysis: mean W^2 with jackknife errors, and its figure against the exact
t (1 - 1/L); and the comparison figure of the ``simcore bench rd1d`` table.  Built on
simcore's shared analysis pieces (jackknife, figure style, the campaign figures the spec
names drawn with their provenance, and tables)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

import xarray as xr
from matplotlib.figure import Figure

from analysis.plotting import Drawn, draw_campaign_figures, new_figure
from analysis.stats import jackknife
from analysis.tables import read_table, table_provenance
from simcore.io.dataset import unit_attributes


def analyze(ds: xr.Dataset, n_groups: int | None = None) -> xr.Dataset:
    """``W2_mean`` and ``W2_err`` (jackknife over samples) and the exact ``W2_exact``, in
    the run file's units."""
    mean, err = jackknife(ds["W2"], n_groups=n_groups)
    L = int(ds.attrs["L"])
    exact = ds["t"].astype(float) * (1.0 - 1.0 / L)
    units = unit_attributes(ds["W2"].attrs)
    out = xr.Dataset(
        {
            "W2_mean": (("t",), mean.values, {"long_name": "mean W^2", **units}),
            "W2_err": (("t",), err.values, {"long_name": "jackknife error of W2_mean",
                                               **units}),
            "W2_exact": (("t",), exact.values, {"long_name": "exact W^2 = t (1 - 1/L)",
                                                   **units}),
        },
        coords={"t": ds["t"]},
    )  # fmt: skip
    out.attrs = {**ds.attrs, "n_samples_analyzed": int(ds.sizes["sample"])}
    return out


def plot_W2(analyses: Sequence[xr.Dataset]) -> Figure:
    """The mean W^2 of every point with error bars, the exact line dashed."""
    fig, axes = new_figure(1, 1)
    ax = axes[0, 0]
    for i, ds in enumerate(analyses):
        t = ds["t"].values
        keep = t > 0
        ax.errorbar(
            t[keep],
            ds["W2_mean"].values[keep],
            yerr=ds["W2_err"].values[keep],
            fmt="o",
            ms=2,
            color=f"C{i}",
            label=f"L = {ds.attrs['L']}",
        )
        ax.plot(t[keep], ds["W2_exact"].values[keep], "--", color=f"C{i}", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("t (MCS)")
    ax.set_ylabel(r"$W^2$")
    ax.legend()
    return fig


def draw_figures(
    analyses: Sequence[xr.Dataset], names: Collection[str] | None = None
) -> dict[str, Drawn]:
    """The campaign figures the spec names (``W2``: :func:`plot_W2`), only ``names`` if
    given, each with its provenance."""
    return draw_campaign_figures("rd1d", analyses, {"W2": plot_W2}, names=names)


def speed(inputs: Sequence[str]) -> tuple[Figure, dict[str, str]]:
    """Depositions per ns vs L, from the one table of ``simcore bench rd1d --csv``."""
    (path,) = inputs
    rows = read_table(path, {"L": int, "deposits_per_ns": float}, "a simcore bench rd1d table")
    fig, axes = new_figure(1, 1)
    ax = axes[0, 0]
    ax.plot([r["L"] for r in rows], [r["deposits_per_ns"] for r in rows], "o")
    ax.set_xscale("log")
    ax.set_xlabel("L")
    ax.set_ylabel("depositions per ns")
    sizes = sorted({r["L"] for r in rows})
    cpu = [{**r, "backend": "cpu", "device": "cpu"} for r in rows]
    prov = table_provenance([path], cpu, f"L = {', '.join(map(str, sizes))}", str(len(rows)))
    return fig, prov


__all__ = ["analyze", "draw_figures", "plot_W2", "speed"]
