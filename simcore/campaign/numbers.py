"""Numbers that a YAML 1.1 reader left as strings, read as numbers wherever a campaign
expects one (:func:`numbers_from_text`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from simcore.campaign.points import ENTRY_SETTINGS, SELECT_SETTINGS
from simcore.config import number_from_text
from simcore.models.spec import ModelSpec

#: Words of a key's type (:attr:`simcore.models.spec.Key.type`) that say it holds numbers:
#: ``int``, ``float``, ``list[int]``, ``[int, int]``, ``int|auto``, the default ``number``.
_NUMBER_TYPE = re.compile(r"\b(?:int|float|number)\b")


def _as_number(value: Any) -> Any:
    """``value`` with each string that reads as a number (:func:`simcore.config.number_from_text`)
    replaced by that number, in lists (and lists of pairs) too; anything else unchanged."""
    if isinstance(value, str):
        number = number_from_text(value)
        return value if number is None else number
    if isinstance(value, list):
        return [_as_number(v) for v in value]
    return value


def _resolve(sub: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    """A subschema with its local ``$ref`` (``#/$defs/name``) merged in."""
    ref = sub.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return sub
    target: Any = root
    for part in ref[2:].split("/"):
        target = target[part]
    return {**_resolve(target, root), **{k: v for k, v in sub.items() if k != "$ref"}}


def _wants_number(sub: Any, root: Mapping[str, Any]) -> bool:
    """Whether the subschema ``sub`` takes a number (type integer or number)."""
    if not isinstance(sub, Mapping):
        return False
    kind = _resolve(sub, root).get("type")
    return bool({"integer", "number"} & set(kind if isinstance(kind, list) else [kind]))


def _schema_numbers(value: Any, sub: Any, root: Mapping[str, Any]) -> Any:
    """``value`` with numbers read from strings wherever the subschema ``sub`` wants a
    number, through its objects' properties (and additionalProperties) and array items."""
    if not isinstance(sub, Mapping):
        return value
    sub = _resolve(sub, root)
    if _wants_number(sub, root):
        return _as_number(value)
    if isinstance(value, Mapping):
        props, extra = sub.get("properties", {}), sub.get("additionalProperties")
        return {k: _schema_numbers(v, props.get(k, extra), root) for k, v in value.items()}
    if isinstance(value, list):
        return [_schema_numbers(v, sub.get("items"), root) for v in value]
    return value


def numbers_from_text(
    raw: Mapping[str, Any], spec: ModelSpec | None, schema: Mapping[str, Any]
) -> dict[str, Any]:
    """A campaign with the numbers that a YAML 1.1 reader left as strings read as numbers,
    wherever a number is expected: a campaign-wide key the ``schema`` types as a number
    (``job_resources`` rates, ``max_wall``, ``samples``, ...), a model key whose
    :attr:`~simcore.models.spec.Key.type` is numeric (kpz's ``p``, ``waiting_times``), in
    the campaign, in its ``points`` entries and in ``paper_figures`` selections, and every
    value of a ``paper_figures`` entry's ``options`` that reads as a number.

    Why: Snakemake reads a campaign file itself, with PyYAML (YAML 1.1), before the
    Snakefile runs, so ``p: 1e-1`` or ``updates_per_second: 1e7`` reach the workflow as
    the strings ``'1e-1'`` and ``'1e7'``; YAML 1.2 and JSON read numbers there, and users
    write them.  The dict Snakemake hands over is the one to fix rather than the files to
    re-read: it is Snakemake's merge of every ``--configfile`` and the ``--config``
    overrides (whose nested values Snakemake's parser leaves as strings too), which a
    re-read would have to redo and could get wrong.  Converting only where the schema or
    the model's key table wants a number leaves every string key a string (a campaign
    named ``1e5``, a benchmark line), and a string that reads as no number stays as it is,
    for the checks to refuse by its value.  ``simcore.config.load_yaml`` reads the same
    numbers from a file (``simcore status --config``), so both paths see one campaign.
    """
    props = schema.get("properties", {})
    keys = spec.keys if spec is not None else {}
    model_numbers = {name for name, key in keys.items() if _NUMBER_TYPE.search(str(key.type))}
    entry_numbers = model_numbers | {
        k for k in ENTRY_SETTINGS if _wants_number(props.get(k), schema)
    }
    select_numbers = model_numbers | {
        k for k in SELECT_SETTINGS if _wants_number(props.get(k), schema)
    }

    def fix(mapping: Mapping[str, Any], numeric: set[str]) -> dict[str, Any]:
        return {k: _as_number(v) if k in numeric else v for k, v in mapping.items()}

    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key in props:
            out[key] = _schema_numbers(value, props[key], schema)
        else:
            out[key] = _as_number(value) if key in model_numbers else value
    if isinstance(out.get("points"), list):
        out["points"] = [
            fix(e, entry_numbers) if isinstance(e, Mapping) else e for e in out["points"]
        ]
    if isinstance(out.get("paper_figures"), list):
        out["paper_figures"] = [
            _figure_numbers(e, lambda m: fix(m, select_numbers)) for e in out["paper_figures"]
        ]
    return out


def _figure_numbers(entry: Any, fix: Callable[[Mapping[str, Any]], dict[str, Any]]) -> Any:
    """A ``paper_figures`` entry with numbers read in its ``select`` (a mapping, or a list
    of mappings: ``fix`` reads the model's numeric keys of one) and in its ``options``
    (every value that reads as a number: the draw function's types are not known here,
    and a string option that reads as a number is meant as one)."""
    if not isinstance(entry, Mapping):
        return entry
    out = dict(entry)
    select = out.get("select")
    if isinstance(select, Mapping):
        out["select"] = fix(select)
    elif isinstance(select, list):
        out["select"] = [fix(m) if isinstance(m, Mapping) else m for m in select]
    if isinstance(out.get("options"), Mapping):
        out["options"] = {k: _as_number(v) for k, v in out["options"].items()}
    return out
