"""Published values as the analyses and figures quote them: a value with its one-sigma
error, the text the paper writes and the source.  Names no model: each model's analysis
keeps its own table of them (:data:`analysis.kpz_literature.BETA`,
:data:`analysis.ea3d_pt_crossings.T_C`)."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["LiteratureValue"]


class LiteratureValue(NamedTuple):
    """A published value with its one-sigma error, as the paper writes it, and its source."""

    value: float
    error: float
    text: str
    source: str
