"""kelling2012 (Kelling, Odor, Nagy, Schulz, Heinig, Eur. Phys. J. Spec. Top. 210, 175
(2012)): its figure of the KPZ surface, from a kpz analysis file with height snapshots.

Draw function (the kpz spec's paper figure ``kelling2012_fig1``; ``python -m
analysis.papers kelling2012_fig1``), ``draw(inputs, **options) -> (Figure, provenance)``:

* Fig. 1 (:func:`fig1`): a snapshot of a simulated 2+1D KPZ surface (the octahedron model,
  sec. 2.1), the height field minus its mean in colour, one sample at t_max, and below it
  the line cut h(x, y0) - <h> through the map (option ``y0``, dashed on the map).  Why:
  the paper shows what the lattice gas grows, a rough surface with the KPZ's mounds and
  valleys on all scales up to the correlation length; the cut shows the heights the
  colours stand for.

The heights are those the run stored (the kpz key ``snapshot_samples``: the first samples
of each job keep h at t_max, reconstructed from the slopes as kelling2012 eq. 5), carried
through the aggregation and the analysis unchanged (:func:`analysis.kpz.analyze`).  The
fcc figures of the same paper (Figs. 6, 7, from benchmark tables) are in
:mod:`analysis.kelling2012`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import matplotlib
import numpy as np
import xarray as xr
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from analysis.plotting import (
    COLUMN_WIDTH,
    STYLE,
    Drawn,
    attr,
    axis_label,
    fmt_number,
    load_datasets,
    provenance,
    require_variables,
    source_of,
    unit_text,
)

__all__ = ["fig1", "load_snapshot_analysis", "plot_fig1"]

#: What an input must be, for messages.
WHAT = "a kpz analysis with height snapshots (run with snapshot_samples >= 1)"
#: Height of the figure (inches, one column wide): the map square, the cut below it.
FIG1_HEIGHT = 4.1
#: Perceptually uniform colour map of the heights (equal steps of h look equal).
CMAP = "viridis"


def load_snapshot_analysis(path: str | os.PathLike[str]) -> xr.Dataset:
    """The analysis file ``path`` of a d = 2 kpz point with height snapshots; ValueError
    starting with the file where it is not one."""
    (ds,) = load_datasets([path])
    require_variables([ds], ("snapshot",), WHAT)
    if ds["snapshot"].dims != ("snapshot_sample", "y", "x"):
        dims = ", ".join(ds["snapshot"].dims)
        raise ValueError(
            f"{source_of(ds)}: snapshot({dims}) is not a 2+1D surface (dim 2): Fig. 1 "
            "needs snapshot(snapshot_sample, y, x)"
        )
    return ds


def _pick(ds: xr.Dataset, sample: int | None) -> int:
    """Position along ``snapshot_sample`` of global sample index ``sample`` (None: the
    first snapshot); ValueError naming the indices there are."""
    indices = [int(v) for v in ds["snapshot_sample"].values]
    if sample is None:
        return 0
    if sample not in indices:
        raise ValueError(
            f"{source_of(ds)}: option sample = {sample!r}: no snapshot of that sample "
            f"(snapshots of samples {', '.join(map(str, indices))})"
        )
    return indices.index(int(sample))


def plot_fig1(ds: xr.Dataset, sample: int | None = None, y0: int | None = None) -> Figure:
    """The height field h(x, y) - <h> of one snapshot (``sample``: its global sample
    index, default the first stored) as a colour map with a colorbar in the heights'
    units, axes in lattice sites, origin at the lower left; below it the cut along x at
    row ``y0`` (default L / 2), dashed on the map.  The title names L, t_max, the scheme,
    p, q, the sample and its job seed."""
    k = _pick(ds, sample)
    snap = ds["snapshot"].isel(snapshot_sample=k)
    h = np.asarray(snap.values, dtype=np.float64)
    dh = h - h.mean()
    L = h.shape[-1]
    row = L // 2 if y0 is None else int(y0)
    if not 0 <= row < h.shape[0]:
        raise ValueError(f"{source_of(ds)}: option y0 = {y0!r}: must be a row 0 .. {L - 1}")
    index = int(ds["snapshot_sample"].values[k])
    seed = int(ds["snapshot_seed"].values[k]) if "snapshot_seed" in ds.coords else attr(ds, "seed")
    t_unit = unit_text(ds["t"].attrs) if "t" in ds.coords else ""
    t_max = attr(ds, "t_max")
    label = axis_label(r"$h - \langle h \rangle$", ds["snapshot"].attrs)
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(COLUMN_WIDTH, FIG1_HEIGHT), layout="constrained")
        FigureCanvasAgg(fig)
        ax_map, ax_cut = fig.subplots(2, 1, height_ratios=(3.2, 1))
        image = ax_map.imshow(dh, cmap=CMAP, origin="lower", interpolation="antialiased",
                              extent=(-0.5, L - 0.5, -0.5, h.shape[0] - 0.5))  # fmt: skip
        fig.colorbar(image, ax=ax_map, fraction=0.05, pad=0.03).set_label(label)
        ax_map.axhline(row, color="white", linestyle="--", linewidth=0.6)
        ax_map.set_ylabel(axis_label("y", ds["y"].attrs))
        ax_map.set_aspect("equal")
        fig.suptitle(
            f"octahedron model, L = {L}, t = {fmt_number(t_max)} {t_unit}, "
            f"{attr(ds, 'scheme')}, p = {fmt_number(attr(ds, 'p'))}, "
            f"q = {fmt_number(attr(ds, 'q'))}\nsample {index}, seed {seed}",
            fontsize=6,
        )
        x = np.asarray(ds["x"].values)
        ax_cut.plot(x, dh[row], color="k", linewidth=0.5)
        ax_cut.axhline(0.0, color="0.6", linewidth=0.5, zorder=0)
        ax_cut.set_xlim(-0.5, L - 0.5)
        ax_cut.set_xlabel(axis_label("x", ds["x"].attrs))
        ax_cut.set_ylabel(label)
        ax_cut.set_title(f"the cut at y = {row} (dashed on the map)", fontsize=6)
        _align_cut(fig, ax_map, ax_cut)
    return fig


def _align_cut(fig: Figure, ax_map, ax_cut) -> None:
    """Give the cut the x extent of the map: the layout is solved once, then frozen, and
    the cut moved under the square map (whose aspect leaves it narrower than its slot),
    so that a column of the map and the same x of the cut line up."""
    fig.canvas.draw()
    fig.set_layout_engine("none")
    m, c = ax_map.get_position(), ax_cut.get_position()
    ax_cut.set_position((m.x0, c.y0, m.width, c.height))


def fig1(inputs: Sequence[str], sample: int | None = None, y0: int | None = None) -> Drawn:
    """kelling2012 Fig. 1 (:func:`plot_fig1`) from the analysis file of one point with
    height snapshots: several inputs are refused (one surface, one point), as is a file
    without snapshots or of d = 1."""
    if len(inputs) != 1:
        raise ValueError(
            f"kelling2012_fig1 draws one surface: give the analysis file of one point, "
            f"got {len(inputs)}"
        )
    ds = load_snapshot_analysis(inputs[0])
    prov = provenance([ds])
    k = _pick(ds, sample)
    prov["points"] += (
        f"; snapshot of sample {int(ds['snapshot_sample'].values[k])} at t = {attr(ds, 't_max')}"
    )
    return plot_fig1(ds, sample=sample, y0=y0), prov
