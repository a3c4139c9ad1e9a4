"""A campaign's comparison figures of the papers (``paper_figures:``), each with the
points it selects and its checked options, and its ``benchmarks`` lines."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from simcore.campaign.figure_options import check_options, option_text
from simcore.campaign.points import SELECT_SETTINGS, Point, as_list
from simcore.campaign.schema import CampaignError
from simcore.checks import closest
from simcore.models import registry
from simcore.models.spec import ModelSpec, PaperFigure


@dataclass(frozen=True)
class CampaignFigure:
    """A comparison figure that a campaign draws: its file stem, the figure of the
    registry's table, its points (``None``: all; empty for a figure of benchmarks) and
    the keyword options of its draw function (``options:`` of the entry, checked)."""

    name: str
    figure: PaperFigure
    points: tuple[str, ...] | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

    def set_arguments(self) -> list[str]:
        """The options as arguments of ``python -m analysis.papers``: ``--set KEY=VALUE``
        each, in the entry's order (:func:`option_text`)."""
        args: list[str] = []
        for key, value in self.options.items():
            args += ["--set", f"{key}={option_text(value)}"]
        return args


def _selected(value: Any, wanted: Any) -> bool:
    """Whether a point setting ``value`` is among the ``wanted`` value(s) of a select."""
    if isinstance(value, list | tuple):  # tc, domain: one pair, or a list of pairs
        pairs = wanted if wanted and isinstance(wanted[0], list) else [wanted]
        return any(list(value) == list(w) for w in pairs)
    return any(value == w for w in as_list(wanted))


def read_paper_figures(
    spec: ModelSpec, entries: list[Any], points: list[Point]
) -> tuple[CampaignFigure, ...]:
    """The campaign's comparison figures, each with its selected points (see the schema)."""
    if not entries:  # the table loads every model: only a campaign with figures asks
        return ()
    table = registry.paper_figures()
    figures: list[CampaignFigure] = []
    for idx, entry in enumerate(entries):
        where = f"paper_figures[{idx}]"
        entry = {"figure": entry} if isinstance(entry, str) else entry
        kind = entry["figure"]
        if kind not in table:
            raise CampaignError(
                f"{where}.figure: {kind!r}: not a paper figure of the registered models"
                f"{closest(kind, table)} (known: {', '.join(table)})"
            )
        figure = table[kind][1]
        name = str(entry.get("name", kind))
        select = entry.get("select")
        chosen: tuple[str, ...] | None = () if figure.bench else None
        if select is not None:
            if figure.bench:
                raise CampaignError(
                    f"{where}.select: {kind} is drawn from benchmarks "
                    f"({', '.join(figure.bench)}), not points"
                )
            chosen = _select_points(spec, f"{where}.select", select, points)
        options = check_options(where, kind, figure, entry.get("options"))
        if name in {f.name for f in figures}:
            raise CampaignError(f"{where}.name: {name!r} is used twice")
        figures.append(CampaignFigure(name=name, figure=figure, points=chosen, options=options))
    return tuple(figures)


def _select_points(
    spec: ModelSpec, where: str, select: Any, points: list[Point]
) -> tuple[str, ...]:
    """The names of the points a ``select`` draws, in campaign order: those matching the
    mapping (every key one of its values), or any mapping of a list of them; each mapping
    must match a point (else it is a typo)."""
    alternatives = select if isinstance(select, list) else [select]
    allowed = (*spec.keys, *SELECT_SETTINGS)
    matched: set[str] = set()
    for i, wanted in enumerate(alternatives):
        at = f"{where}[{i}]" if isinstance(select, list) else where
        for key in wanted:
            if key not in allowed:
                raise CampaignError(
                    f"{at}.{key}: unknown key of model {spec.name}{closest(key, allowed)}"
                )
        hits = {
            pt.name
            for pt in points
            if all(_selected(pt.get(key), want) for key, want in wanted.items())
        }
        if not hits:
            raise CampaignError(f"{at}: matches no point (value: {wanted!r})")
        matched |= hits
    return tuple(pt.name for pt in points if pt.name in matched)


def read_benchmarks(lines: list[str]) -> tuple[str, ...]:
    """The ``benchmarks`` lines, each of which must start with a known kernel."""
    if not lines:
        return ()
    kernels = registry.bench_kernel_names()
    for idx, line in enumerate(lines):
        first = line.strip().partition(" ")[0]
        if first not in kernels:
            raise CampaignError(
                f"benchmarks[{idx}]: {line!r}: must start with a simcore bench kernel"
                f"{closest(first, kernels)} (known: {', '.join(kernels)})"
            )
    return tuple(line.strip() for line in lines)
