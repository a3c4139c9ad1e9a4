"""lulli2015's generator tables (Tables 1 and 2), best k (Fig. 7) and bandwidth (Fig. 8),
from the tables of ``simcore bench prng --csv`` and ``simcore bench ea3d --csv``.

Draw functions (the ea3d spec's paper figures; ``python -m analysis.papers FIGURE``), each
``draw(inputs) -> (Figure, provenance)`` with one table as input:

* ``prng_tables`` (Tables 1 and 2): (a) t_TOT of filling 2^29 floats per generator, ours
  against the paper's GPUs, (b) generator instances per second drawn inside a kernel.
  :func:`prng_markdown` renders both tables as Markdown with the paper's numbers beside
  ours, for a docs page.
* ``best_k`` (Fig. 7): (a) the best number of coded words k per L and layout, an open
  marker where it is not resolved (a neighbouring k within the spread of the repeats);
  (b) the branching warps per word and colour, computed from the launch geometry.
* ``bandwidth`` (Fig. 8): the DRAM bandwidth the best configuration of each L and layout
  achieves by the traffic model of BENCHMARKS.md ("0.56 B per attempt"), against the
  peak the same run measured with a device-to-device copy.

The paper's numbers are constants here (:data:`PAPER_TABLE1`, :data:`PAPER_TABLE2`),
copied from its Tables 1 and 2 (Lulli, Bernaschi, Parisi 2015, "Highly optimized
simulations on single- and multi-GPU systems of the 3D Ising spin glass model", sec. 3).
Our points are medians of the repeats with bars from the minimum to the maximum.
"""

from __future__ import annotations

import inspect
import math
import os
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import matplotlib
import numpy as np
from matplotlib.figure import Figure

from analysis.lulli2015 import (
    from_ea3d_table,
    layout_style,
    medians,
    only,
    size_branch,
)
from analysis.plotting import STYLE, Drawn, guide_style, new_figure
from analysis.tables import Row, markdown_table, read_table, table_provenance

__all__ = [
    "PAPER_TABLE1",
    "PAPER_TABLE2",
    "BestK",
    "achieved_bandwidth",
    "bandwidth",
    "best_k",
    "best_k_table",
    "branching_warps",
    "bytes_per_sweep",
    "copy_peaks",
    "kernel_block",
    "load_prng_bench",
    "paper_branching_warps",
    "plot_bandwidth",
    "plot_best_k",
    "plot_prng_tables",
    "prng_markdown",
    "prng_tables",
]

#: Where the paper's numbers come from.
PAPER_SOURCE = "Lulli, Bernaschi, Parisi 2015, sec. 3"
#: The GPUs of the paper's Table 1 (M2090 with ECC off, K20X with ECC on).
PAPER_T1_GPUS = ("Tesla M2090", "Tesla K20X", "GTX Titan")
#: lulli2015 Table 1 (the PRAND host-API test: fill an array of 2^29 single-precision
#: floats): (t_INIT, t_GEN, t_TOT) in seconds per generator and GPU; None where the paper
#: did not run it (its zeros: cuRAND's MT19937 host generator only on the GTX Titan).  The
#: keys are ``simcore bench prng``'s generator names: the paper's "MT19937",
#: "Parisi-Rapuano" and "MINSTD" rows are its own generators, compared with ours
#: (``pr64`` is Parisi-Rapuano summed with a 64-bit LCG).
PAPER_TABLE1: dict[str, dict[str, tuple[float, float, float] | None]] = {
    "curand_mtgp32": {"Tesla M2090": (0.09, 12.34, 12.43), "Tesla K20X": (0.12, 13.46, 13.58),
                      "GTX Titan": (0.21, 10.11, 10.32)},
    "curand_xorwow": {"Tesla M2090": (0.01, 2.91, 2.92), "Tesla K20X": (0.01, 2.90, 2.91),
                      "GTX Titan": (0.01, 2.31, 2.32)},
    "curand_mt19937": {"Tesla M2090": None, "Tesla K20X": None, "GTX Titan": (0.01, 3.23, 3.24)},
    "mt19937": {"Tesla M2090": (3.86, 6.40, 10.26), "Tesla K20X": (4.63, 6.12, 10.75),
                "GTX Titan": (3.92, 4.66, 8.58)},
    "pr64": {"Tesla M2090": (0.40, 8.17, 8.57), "Tesla K20X": (0.45, 5.87, 6.32),
             "GTX Titan": (0.41, 4.18, 4.59)},
    "minstd": {"Tesla M2090": (0.01, 1.72, 1.73), "Tesla K20X": (0.01, 1.34, 1.35),
               "GTX Titan": (0.01, 1.13, 1.14)},
}  # fmt: skip
#: The GPUs of the paper's Table 2.
PAPER_T2_GPUS = ("Tesla M2090", "Tesla K20X", "GTX Titan", "GTX 680")
#: lulli2015 Table 2 (the device-API test: 64 blocks of 256 threads, 2^15 numbers per
#: thread, 10 times): generator instances per second per GPU.
PAPER_TABLE2: dict[str, dict[str, float]] = {
    "curand_mtgp32": dict(zip(PAPER_T2_GPUS, (4.5e9, 3.9e9, 5.2e9, 5.1e9), strict=True)),
    "curand_xorwow": dict(zip(PAPER_T2_GPUS, (2.9e10, 7.6e10, 10.7e10, 6.1e10), strict=True)),
    "mt19937": dict(zip(PAPER_T2_GPUS, (10.1e9, 10.7e9, 14.1e9, 9.6e9), strict=True)),
    "pr64": dict(zip(PAPER_T2_GPUS, (9.4e9, 12.5e9, 16.8e9, 8.3e9), strict=True)),
    "minstd": dict(zip(PAPER_T2_GPUS, (4.1e10, 7.6e10, 8.9e10, 6.7e10), strict=True)),
}
#: The power of ten each row of Table 2 is printed with in the paper (10.7 10^10, not 1.07
#: 10^11), used for its numbers and ours in :func:`prng_markdown`.
PAPER_T2_EXPONENT = {"curand_mtgp32": 9, "curand_xorwow": 10, "mt19937": 9, "pr64": 9,
                     "minstd": 10}  # fmt: skip
#: The generators in table order, with their names in the paper (and ours).
GENERATOR_NAMES = {
    "curand_xorwow": "cuRAND XORWOW", "curand_mtgp32": "cuRAND MTGP32",
    "curand_mt19937": "cuRAND MT19937", "curand_philox": "cuRAND Philox4x32-10",
    "minstd": "MINSTD", "pr64": "Parisi-Rapuano (+ LCG in ours)", "mt19937": "MT19937",
    "philox": "Philox4x32-10 (ours)",
}  # fmt: skip
#: Columns of a ``simcore bench prng --csv`` table the generator tables need.
PRNG_COLUMNS: dict[str, Callable[[str], Any]] = {
    "api": str, "generator": str, "status": str, "t_init": float, "t_gen": float,
    "t_tot": float, "t_tot_min": float, "t_tot_max": float, "per_second": float,
    "per_second_min": float, "per_second_max": float, "device": str, "commit": str,
}  # fmt: skip
#: Markers of the paper's GPUs (open) in the generator figure.
_GPU_MARKERS = {"Tesla M2090": "v", "Tesla K20X": "^", "GTX Titan": "D", "GTX 680": "P"}
_OURS_MARKERS = ("o", "s", "*", "X")

#: Bytes one thread moves per site, colour update and coded word by the traffic model of
#: BENCHMARKS.md ("EA3D spin glass", floor and prediction): 6 coupling words, 4 x (read +
#: write) of its own spin words and 4 words of the other colour, 18 words of 8 bytes for
#: 64 x 4 = 256 flip attempts (0.5625 B per attempt).  Philox only: the model counts no
#: generator state.
TRAFFIC_BYTES_PER_SITE_WORD = 18 * 8
#: Threads per warp.
WARP = 32


def load_prng_bench(path: str | os.PathLike[str]) -> list[Row]:
    """Rows of a ``simcore bench prng`` CSV; ValueError naming the file for a bad table."""
    return read_table(path, PRNG_COLUMNS, "a generator benchmark table")


def _finite(x: float) -> bool:
    return isinstance(x, float | int) and math.isfinite(x)


def _ours_by_device(rows: Sequence[Row], api: str) -> dict[str, dict[str, Row]]:
    """device -> generator -> row, for one API (the last row of a repeated generator)."""
    out: dict[str, dict[str, Row]] = defaultdict(dict)
    for r in rows:
        if r["api"] == api:
            out[r["device"]][r["generator"]] = r
    return dict(sorted(out.items()))


def _generators(rows: Sequence[Row]) -> list[str]:
    """The generators of the tables: every one the paper or the table has, in table order."""
    known = list(GENERATOR_NAMES)
    extra = sorted({r["generator"] for r in rows} - set(known))
    return known + extra


def _panel(ax: Any, gens: list[str], ours: dict[str, dict[str, Row]], value: str,
           paper: dict[str, dict[str, Any]], gpus: Sequence[str],
           paper_value: Callable[[Any], float | None]) -> None:  # fmt: skip
    """One panel of the generator figure: ours per device (median, min-max bars) and the
    paper's GPUs (open markers), side by side at each generator; "n/a" where ours has no
    number (its status says why)."""
    x = np.arange(len(gens), dtype=float)
    n_series = len(ours) + len(gpus)
    width = 0.7 / max(n_series, 1)
    offset = -0.35 + width / 2
    for i, (dev, by_gen) in enumerate(ours.items()):
        pts = [(x[j] + offset, by_gen[g]) for j, g in enumerate(gens) if g in by_gen]
        good = [(px, r) for px, r in pts if _finite(r[value])]
        if good:
            med = np.array([r[value] for _, r in good])
            lo = np.array([r[f"{value}_min"] for _, r in good])
            hi = np.array([r[f"{value}_max"] for _, r in good])
            err = np.array([np.where(np.isfinite(lo), med - lo, 0.0),
                            np.where(np.isfinite(hi), hi - med, 0.0)])  # fmt: skip
            ax.errorbar([px for px, _ in good], med, yerr=np.clip(err, 0, None),
                        marker=_OURS_MARKERS[i % len(_OURS_MARKERS)], color="k",
                        linestyle="none", ms=4, capsize=0, label=f"ours, {dev}")  # fmt: skip
        for px, r in pts:
            if not _finite(r[value]):
                ax.annotate("n/a", (px, 0.02), xycoords=("data", "axes fraction"), fontsize=5,
                            rotation=90, ha="center", va="bottom", color="0.3")  # fmt: skip
        offset += width
    for k, gpu in enumerate(gpus):
        pts = [(x[j] + offset, paper_value(paper[g].get(gpu))) for j, g in enumerate(gens)
               if g in paper]  # fmt: skip
        pts = [(px, v) for px, v in pts if v is not None]
        if pts:
            ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=12, facecolors="none",
                       edgecolors=f"C{k}", marker=_GPU_MARKERS.get(gpu, "o"),
                       label=f"paper, {gpu}")  # fmt: skip
        offset += width
    ax.set_xticks(x, [GENERATOR_NAMES.get(g, g).split(" (")[0] for g in gens], rotation=35,
                  ha="right", rotation_mode="anchor", fontsize=6)  # fmt: skip
    ax.set_yscale("log")


def plot_prng_tables(rows: Sequence[Row]) -> Figure:
    """lulli2015 Tables 1 and 2 as a figure: (a) t_TOT of the host-API fill per generator,
    ours (one marker per device, median over the repeats with min-max bars) and the
    paper's M2090, K20X and GTX Titan (open markers); (b) instances per second of the
    device-API test, ours (median launch, min-max over the launches) and the paper's four
    GPUs.  A generator our table could not run shows "n/a" (its status in the CSV and in
    :func:`prng_markdown` says why)."""
    gens = _generators(rows)
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(2, 1, 5.6)
        _panel(axes[0, 0], gens, _ours_by_device(rows, "host"), "t_tot", PAPER_TABLE1,
               PAPER_T1_GPUS, lambda v: None if v is None else v[2])  # fmt: skip
        _panel(axes[1, 0], gens, _ours_by_device(rows, "device"), "per_second", PAPER_TABLE2,
               PAPER_T2_GPUS, lambda v: v)  # fmt: skip
        axes[0, 0].set_ylabel(r"t$_{TOT}$, fill $2^{29}$ floats [s]")
        axes[0, 0].set_title("(a) host API (Table 1)")
        axes[1, 0].set_ylabel("instances / s")
        axes[1, 0].set_title("(b) device API (Table 2)")
        handles: dict[str, Any] = {}
        for ax in axes[:, 0]:
            for h, label in zip(*ax.get_legend_handles_labels(), strict=True):
                handles.setdefault(label, h)
        fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncols=3,
                   fontsize=5)  # fmt: skip
    return fig


def _paper_t2(gen: str, value: float) -> str:
    """A Table 2 number as the paper prints that row (mantissa times its power of ten)."""
    e = PAPER_T2_EXPONENT.get(gen)
    if e is None:
        e = int(math.floor(math.log10(value))) if value > 0 else 0
    return f"{value / 10**e:.1f}·10^{e}"


def _seconds(t: tuple[float, float, float] | None) -> str:
    if t is None:
        return "not run (0 in the table)"
    return " / ".join(f"{v:.2f}" for v in t)


def _markdown_table(
    gens: list[str],
    ours: dict[str, dict[str, Row]],
    value: str,
    ours_text: Callable[[str, Row], str],
    paper: dict[str, Any],
    paper_gpus: Sequence[str],
    paper_text: Callable[[str, Any], str],
) -> list[str]:
    """One Markdown table: per generator, ours per device (``ours_text`` where ``value`` is
    finite, the status else, its status beside a value of a row not "ok") and the paper's
    per GPU (``paper_text``, or a dash where the paper has no such generator)."""
    head = ["generator", *(f"ours, {d}" for d in ours), *(f"paper, {g}" for g in paper_gpus)]
    rows = []
    for g in gens:
        cells = [GENERATOR_NAMES.get(g, g)]
        for by_gen in ours.values():
            r = by_gen.get(g)
            if r is None:
                cells.append("not measured")
            elif _finite(r[value]):
                cells.append(ours_text(g, r) + ("" if r["status"] == "ok" else f" ({r['status']})"))
            else:
                cells.append(r["status"])
        cells += [paper_text(g, paper[g][gpu]) if g in paper else "—" for gpu in paper_gpus]
        rows.append(cells)
    return markdown_table(head, rows)


def prng_markdown(rows: Sequence[Row]) -> str:
    """Tables 1 and 2 as Markdown, for a docs page: per generator, ours (one column per
    device; t_INIT / t_GEN / t_TOT in seconds, instances per second) beside the paper's
    numbers per GPU, and the status of every generator ours could not run."""
    gens = _generators(rows)
    out = [f"Paper: {PAPER_SOURCE}, Tables 1 and 2.", "",
           "**Table 1** (host API: fill 2^29 single-precision floats), t_INIT / t_GEN / "
           "t_TOT in seconds:", ""]  # fmt: skip
    out += _markdown_table(
        gens, _ours_by_device(rows, "host"), "t_tot",
        lambda g, r: f"{r['t_init']:.3g} / {r['t_gen']:.3g} / {r['t_tot']:.3g}",
        PAPER_TABLE1, PAPER_T1_GPUS, lambda g, t: _seconds(t),
    )  # fmt: skip
    out += ["", "**Table 2** (device API: 64 blocks of 256 threads, 2^15 numbers per thread, "
            "10 launches), instances per second:", ""]  # fmt: skip
    out += _markdown_table(
        gens, _ours_by_device(rows, "device"), "per_second",
        lambda g, r: _paper_t2(g, r["per_second"]),
        PAPER_TABLE2, PAPER_T2_GPUS, _paper_t2,
    )  # fmt: skip
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ Fig. 7: best k
def kernel_block() -> int:
    """Threads per block of the ea3d Philox kernel, read from its launcher
    (:class:`simcore.models.ea3d.gpu.EA3DKernel`'s default ``block``): 128."""
    from simcore.models.ea3d.gpu import EA3DKernel

    return int(inspect.signature(EA3DKernel.__init__).parameters["block"].default)


def branching_warps(L: int, block: int | None = None, warp: int = WARP) -> int:
    """Partly filled (branching) warps per coded word and colour of the ea3d Philox kernel,
    computed from its launch geometry, not profiled.

    The kernel (``cuda/ea3d_amsc.cu``, launched by :class:`~simcore.models.ea3d.gpu.EA3DKernel`)
    runs ceil(H / block) blocks of ``block`` threads in x for the H = L^3 / 2 sites of a
    colour, and one grid row per word (a thread loops over words w, w + 65535, ... when
    k > 65535, with the same x geometry): thread index j >= H returns at once.  Warps are
    formed inside a block, so only the block holding index H can hold a warp with both
    active and returning threads: the warp of lane H mod block, partly filled unless that
    lane starts a warp (lanes below it run, the lane and those above return).  Whole warps
    past H return together and do not branch.  For
    block = 128: 1 where H mod 32 != 0, which for even L is exactly L = 2(2m+1) (H =
    4(2m+1)^3), and 0 for L = 4m (H = 32 m^3): lulli2015 App. B, eq. B.1."""
    block = kernel_block() if block is None else int(block)
    active = (int(L) ** 3 // 2) % block  # lanes of the last block that run (0: it is full)
    return int(active % warp != 0)


def paper_branching_warps(L: int) -> int:
    """lulli2015 App. B: branching warps / k "always equal to zero" for L_0 = 4m and "always
    equal to one" for L_1 = 2(2m+1) (eq. B.1)."""
    return 0 if int(L) % 4 == 0 else 1


class BestK(NamedTuple):
    """The best k of one (layout, device, L): its k, the (median, min, max) psFlip, the k
    whose fastest repeat is within the best's slowest (tied: not distinguishable from it
    at this spread), whether the best is resolved (no neighbouring k tied with it) and
    whether it is the largest k measured (a larger k might be faster still)."""

    k: int
    psflip: tuple[float, float, float]
    tied: tuple[int, ...]
    resolved: bool
    largest: bool


def best_k_table(rows: Sequence[Row]) -> dict[tuple[str, str, int], BestK]:
    """(layout, device, L) -> :class:`BestK` over the measured k (one PRNG: philox if
    measured).  The best k has the lowest median psFlip; it is resolved when its
    neighbours in the measured k (the next smaller and larger, where measured) are slower
    in every repeat than the best in its slowest repeat; a size measured at one k only is
    unresolved.  A best k that is the largest measured is flagged (``largest``): the scan
    may end before the optimum."""
    rows = only(rows, "prng", "philox")
    per: dict[tuple[str, str, int], dict[int, tuple]] = defaultdict(dict)
    for (layout, dev, L, k), val in medians(rows, ("layout", "device", "L", "k")).items():
        per[(layout, dev, L)][k] = val
    out = {}
    for key, by_k in sorted(per.items()):
        ks = sorted(by_k)
        best = min(ks, key=lambda k: by_k[k][0])
        worst_of_best = by_k[best][2]
        tied = tuple(k for k in ks if by_k[k][1] <= worst_of_best)
        i = ks.index(best)
        neighbours = ks[max(i - 1, 0) : i] + ks[i + 1 : i + 2]
        resolved = bool(neighbours) and all(by_k[k][1] > worst_of_best for k in neighbours)
        out[key] = BestK(best, by_k[best], tied, resolved, len(ks) > 1 and best == ks[-1])
    return out


def plot_best_k(rows: Sequence[Row]) -> Figure:
    """lulli2015 Fig. 7: (a) the best k vs L per layout (the paper's colours and markers),
    filled where resolved, open where a neighbouring k is tied with it, bars spanning every
    tied k, a caret above a best k that is the largest measured; (b) branching warps per
    word and colour at every even L of the measured range, computed from the launch
    geometry (:func:`branching_warps`, not profiled), L = 4m and L = 2(2m+1) in two marker
    styles, with the paper's App. B statement (eq. B.1: 0 and 1) as crosses."""
    from matplotlib.lines import Line2D

    table = best_k_table(rows)
    devices = sorted({dev for _, dev, _ in table})
    block = kernel_block()
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(2, 1, 4.8, sharex=True)
        ax = axes[0, 0]
        series: dict[tuple[str, str], list[tuple[int, BestK]]] = defaultdict(list)
        for (layout, dev, L), b in table.items():
            series[(layout, dev)].append((L, b))
        for (layout, dev), pts in series.items():
            style = layout_style(layout, device_index=devices.index(dev))
            Ls = np.array([L for L, _ in pts], dtype=float)
            ks = np.array([b.k for _, b in pts], dtype=float)
            err = np.array([[b.k - min(b.tied) for _, b in pts],
                            [max(b.tied) - b.k for _, b in pts]], dtype=float)  # fmt: skip
            resolved = np.array([b.resolved for _, b in pts], dtype=bool)
            ax.errorbar(Ls, ks, yerr=err, color=style["color"], marker="none", linestyle="-",
                        lw=0.6, capsize=0, alpha=0.6)  # fmt: skip
            for sel, face, label in ((resolved, None, f"{layout}, {dev}"),
                                     (~resolved, "none", None)):  # fmt: skip
                if sel.any():
                    ax.errorbar(Ls[sel], ks[sel], yerr=err[:, sel], color=style["color"],
                                marker=style["marker"], mfc=face, linestyle="none", ms=4,
                                capsize=0, label=label)  # fmt: skip
            edge = np.array([b.largest for _, b in pts], dtype=bool)
            if edge.any():
                ax.scatter(Ls[edge], ks[edge] * 1.5, s=10, marker="^", color=style["color"],
                           label="_edge")  # fmt: skip
        handles, labels = ax.get_legend_handles_labels()
        if any(b.largest for b in table.values()):
            handles.append(Line2D([], [], color="0.3", marker="^", linestyle="none", ms=3))
            labels.append("the largest k measured (the optimum may lie above)")
        handles.append(Line2D([], [], color="0.3", marker="o", mfc="none", linestyle="none"))
        labels.append("open: not resolved (a neighbouring k within the spread)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.set_ylabel("best k (words of 64)")
        ax.set_title("(a) best k; bars: every k tied with it", fontsize=7)
        ax.legend(handles, labels, fontsize=5, loc="best")
        ax = axes[1, 0]
        Ls_all = sorted(L for _, _, L in table)
        lo, hi = (Ls_all[0], Ls_all[-1]) if Ls_all else (8, 256)
        even = np.arange(max(lo - lo % 2, 2), hi + 1, 2)
        for branch, marker, face in (("L = 4m", "s", "k"), ("L = 2(2m+1)", "o", "none")):
            sel = np.array([size_branch(L) == branch for L in even], dtype=bool)
            if sel.any():
                ax.scatter(even[sel], [branching_warps(L, block) for L in even[sel]], s=10,
                           marker=marker, facecolors=face, edgecolors="k",
                           label=f"ours, {branch} (every layout)")  # fmt: skip
        ax.scatter(even, [paper_branching_warps(L) for L in even], s=22, marker="+",
                   color="C1", linewidths=0.7, label="paper, App. B eq. B.1")  # fmt: skip
        ax.set_ylim(-0.3, 1.6)
        ax.set_yticks([0, 1])
        ax.set_xscale("log", base=2)
        ax.set_xlabel("L [sites]")
        ax.set_ylabel("branching warps\n/ word / colour")
        ax.set_title(f"(b) from the launch geometry (blocks of {block}), not profiled",
                     fontsize=7)  # fmt: skip
        ax.legend(fontsize=5, loc="upper left", ncols=2)
    return fig


# ------------------------------------------------------------------ Fig. 8: bandwidth
def bytes_per_sweep(L: int, k: int) -> int:
    """DRAM bytes of one sweep of the ea3d Philox kernel by the traffic model
    (:data:`TRAFFIC_BYTES_PER_SITE_WORD` per site and word: 144 k L^3)."""
    return TRAFFIC_BYTES_PER_SITE_WORD * int(k) * int(L) ** 3


def achieved_bandwidth(L: int, k: int, ps_per_flip: float) -> float:
    """Bytes per second the traffic model says a sweep moved at ``ps_per_flip``: bytes
    per sweep over seconds per sweep (psFlip x 64 k x 4 x L^3)."""
    seconds = ps_per_flip * 1e-12 * 64 * int(k) * 4 * int(L) ** 3
    return bytes_per_sweep(L, k) / seconds


def copy_peaks(rows: Sequence[Row]) -> dict[str, float]:
    """device -> median of the finite ``copy_bytes_per_second`` values (tables written
    before the column existed have none)."""
    vals: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        try:
            v = float(r.get("copy_bytes_per_second") or "nan")
        except (TypeError, ValueError):
            continue
        if math.isfinite(v) and v > 0:
            vals[r["device"]].append(v)
    return {d: float(np.median(v)) for d, v in sorted(vals.items())}


def plot_bandwidth(rows: Sequence[Row]) -> Figure:
    """lulli2015 Fig. 8: the bandwidth of the best k per L and layout by the traffic model
    (median psFlip of that k, bars from its slowest and fastest repeat), L = 4m and L =
    2(2m+1) in two marker styles, against each device's peak measured by the
    device-to-device copy of the same table (horizontal line).  Philox rows only: the
    model counts no generator state.  Where the whole state fits the L2 cache (L = 8 at
    large k on an H100) the model's bytes need not reach DRAM, and the point may exceed
    the peak."""
    rows = [r for r in rows if r["prng"] == "philox"]
    if not rows:
        raise ValueError("bandwidth needs philox rows (the traffic model counts no "
                         "generator state)")  # fmt: skip
    best: dict[tuple, tuple[int, tuple]] = {}
    for (layout, dev, L, k), val in medians(rows, ("layout", "device", "L", "k")).items():
        key = (layout, dev, L)
        if key not in best or val[0] < best[key][1][0]:
            best[key] = (k, val)
    devices = sorted({r["device"] for r in rows})
    peaks = copy_peaks(rows)
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(1, 1, 3.0)
        ax = axes[0, 0]
        series: dict[tuple[str, str, str], list] = defaultdict(list)
        tops = [p / 1e9 for p in peaks.values()]
        for (layout, dev, L), (k, (med, lo, hi)) in best.items():
            series[(layout, dev, size_branch(L))].append(
                (L, achieved_bandwidth(L, k, med), achieved_bandwidth(L, k, hi),
                 achieved_bandwidth(L, k, lo)))  # fmt: skip
        for (layout, dev, branch), pts in sorted(series.items()):
            pts.sort()
            Ls = np.array([p[0] for p in pts], dtype=float)
            bw = np.array([p[1] for p in pts]) / 1e9
            err = np.array([bw - np.array([p[2] for p in pts]) / 1e9,
                            np.array([p[3] for p in pts]) / 1e9 - bw])  # fmt: skip
            tops.append(float(np.max(bw + np.clip(err[1], 0, None))))
            ax.errorbar(Ls, bw, yerr=np.clip(err, 0, None), ms=3, capsize=0,
                        label=f"{layout}, {branch}, {dev}",
                        **layout_style(layout, branch, devices.index(dev)))  # fmt: skip
        for i, (dev, peak) in enumerate(peaks.items()):
            ax.axhline(peak / 1e9, **guide_style(f"C{7 + i % 3}", "-"),
                       label=f"copy peak, {dev}: {peak / 1e12:.2f} TB/s")  # fmt: skip
        if not peaks:
            fig.supxlabel("no copy peak in this table (written before simcore bench ea3d "
                          "measured it)", fontsize=6, color="0.3")  # fmt: skip
        ax.set_xscale("log", base=2)
        ax.set_xlabel("L [sites]")
        ax.set_ylabel("bandwidth, traffic model [GB/s]")
        ax.set_ylim(0, 1.1 * max(tops))
        ax.legend(fontsize=5)
    return fig


# ------------------------------------------------------------------ draw functions
def prng_tables(inputs: Sequence[str]) -> Drawn:
    """lulli2015 Tables 1 and 2 (:func:`plot_prng_tables`) from a ``simcore bench prng``
    table."""
    (path,) = inputs
    rows = load_prng_bench(path)
    gens = ", ".join(sorted({f"{r['api']} {r['generator']}" for r in rows}))
    prov = table_provenance([path], rows, gens, f"{len(rows)} generator rows")
    return plot_prng_tables(rows), {**prov, "backend": "gpu"}


def best_k(inputs: Sequence[str]) -> Drawn:
    """lulli2015 Fig. 7 (:func:`plot_best_k`) from a ``simcore bench ea3d`` table."""
    return from_ea3d_table(plot_best_k, inputs)


def bandwidth(inputs: Sequence[str]) -> Drawn:
    """lulli2015 Fig. 8 (:func:`plot_bandwidth`) from a ``simcore bench ea3d`` table."""
    return from_ea3d_table(plot_bandwidth, inputs)
