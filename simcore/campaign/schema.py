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

#: The JSON schema of a campaign file (package data; the Snakefile validates with it too).
SCHEMA_PATH = Path(__file__).with_name("config.schema.yaml")


class CampaignError(ValueError):
    """An invalid campaign; ``str()`` is one line naming the key, its value and the rule."""

    def __init__(self, message: str):
        super().__init__(f"campaign config: {message}")


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


def _error_text(err: Any) -> str:
    """One line naming the offending key and its value."""
    where = path_text(err.absolute_path)
    prefix = "" if where == "<campaign>" else where + "."
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        allowed = set(err.schema.get("properties", {}))
        extra = [k for k in err.instance if k not in allowed]
        if extra:
            key = extra[0]
            return f"{prefix}{key}: unknown key (value: {err.instance[key]!r})"
    if err.validator == "required" and isinstance(err.instance, dict):
        missing = [k for k in err.validator_value if k not in err.instance]
        if missing:
            return f"{prefix}{missing[0]}: required key is missing"
    return f"{where}: {err.message} (value: {err.instance!r})"


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
