"""The campaign schema (shipped with the package) and the validation of a campaign's
campaign-wide keys, with defaults filled and one-line errors."""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from simcore.checks import closest

#: The JSON schema of a campaign file (package data; :func:`validate_config` checks with it).
SCHEMA_PATH = Path(__file__).with_name("config.schema.yaml")


class CampaignError(ValueError):
    """An invalid campaign; ``str()`` is one line naming the key, its value and the rule,
    and the campaign file where it is known (``source``)."""

    def __init__(self, message: str, source: str | None = None):
        self.message, self.source = message, source
        where = f"campaign config {source}" if source else "campaign config"
        super().__init__(f"{where}: {message}")

    def in_file(self, source: str) -> CampaignError:
        """The same error, naming the campaign file ``source`` it was found in."""
        return CampaignError(self.message, source)


@lru_cache(maxsize=4)
def load_schema(path: str | os.PathLike[str] = SCHEMA_PATH) -> dict[str, Any]:
    """The campaign schema as a dict."""
    with open(path, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def _default_filling_validator(schema: dict[str, Any]) -> Any:
    """A Draft 2020-12 validator that fills ``default`` values, like ``snakemake.utils.validate``.

    Defaults are deep-copied so a mutable default (``{}``) is never shared between configs.
    """
    from jsonschema import Draft202012Validator, validators

    validate_properties = Draft202012Validator.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, schema_):
        if isinstance(instance, dict):
            for key, sub in properties.items():
                if "default" in sub:
                    instance.setdefault(key, copy.deepcopy(sub["default"]))
        yield from validate_properties(validator, properties, instance, schema_)

    cls = validators.extend(Draft202012Validator, {"properties": set_defaults})
    return cls(schema)


def path_text(path: Any) -> str:
    """``points[1].L`` style location of a schema error."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "<campaign>"


_TYPES = {
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "boolean": "true or false",
    "array": "a list",
    "object": "a mapping of keys to values",
}


def _kind(schema: Mapping[str, Any]) -> str:
    """What a (sub)schema accepts, in words: ``a string``, ``a mapping with keys a, b``."""
    kind = schema.get("type")
    text = " or ".join(_TYPES.get(t, t) for t in _as_list(kind)) if kind else "a value"
    if kind == "object" and schema.get("properties"):
        text = f"a mapping with keys {', '.join(schema['properties'])}"
    return text


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


def _rule(err: Any) -> str:
    """The rule a schema error breaks, in words (``must be an integer >= 1``)."""
    v, sub = err.validator_value, err.schema
    if err.validator == "type":
        bound = ""
        if "minimum" in sub:
            bound = f" >= {sub['minimum']}"
        elif "exclusiveMinimum" in sub:
            bound = f" > {sub['exclusiveMinimum']}"
        return f"must be {' or '.join(_TYPES.get(t, t) for t in _as_list(v))}{bound}"
    simple = {
        "minimum": f"must be >= {v}",
        "maximum": f"must be <= {v}",
        "exclusiveMinimum": f"must be > {v}",
        "exclusiveMaximum": f"must be < {v}",
        "pattern": f"must match the pattern {v}",
        "minItems": "must not be empty" if v == 1 else f"must have at least {v} entries",
        "minProperties": "must not be empty" if v == 1 else f"must have at least {v} keys",
    }
    if err.validator in simple:
        return simple[err.validator]
    if err.validator == "enum":
        hint = closest(err.instance, map(str, v)) if isinstance(err.instance, str) else ""
        return f"must be one of {', '.join(map(str, v))}{hint}"
    if err.validator in ("oneOf", "anyOf"):
        return "must be " + ", or ".join(_kind(option) for option in v)
    return err.message


def _error_text(err: Any) -> str:
    """One line naming the offending key, its value and the rule it breaks."""
    where = path_text(err.absolute_path)
    prefix = "" if where == "<campaign>" else where + "."
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        allowed = list(err.schema.get("properties", {}))
        extra = [k for k in err.instance if k not in allowed]
        if extra:
            key = extra[0]
            return (
                f"{prefix}{key}: {err.instance[key]!r}: unknown key{closest(str(key), allowed)}"
                f" (known: {', '.join(allowed)})"
            )
    if err.validator == "required" and isinstance(err.instance, dict):
        missing = [k for k in err.validator_value if k not in err.instance]
        if missing:
            return f"{prefix}{missing[0]}: missing (required)"
    return f"{where}: {err.instance!r}: {_rule(err)}"


def validate_config(
    config: Mapping[str, Any], schema_path: str | os.PathLike[str] | None = None
) -> dict[str, Any]:
    """Validate a campaign's campaign-wide keys against the schema; a copy with defaults.

    Raises :class:`CampaignError` (one line naming the key and value), so a typo in a
    campaign file is found before any job is planned.
    """
    import jsonschema

    schema = load_schema(str(schema_path or SCHEMA_PATH))
    data = copy.deepcopy(dict(config))
    errors = list(_default_filling_validator(schema).iter_errors(data))
    if errors:
        raise CampaignError(_error_text(jsonschema.exceptions.best_match(errors)))
    return data
