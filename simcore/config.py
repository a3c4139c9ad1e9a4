"""Run configuration: the keys of one job, validated before any work starts.

Here: reading run configs and YAML files (duplicate keys, numbers written as text, one-line
errors).  The keys themselves and their validation live with the models
(:mod:`simcore.models.runconfig`, re-exported here), the config hash with the run files'
provenance (:mod:`simcore.io.provenance`).  Every error names the key and the offending
value in one line, so a campaign of thousands of jobs fails fast and says what to fix.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import yaml

from simcore.checks import ConfigError, ConfigFileError
from simcore.io.provenance import config_hash
from simcore.models import registry
from simcore.models.runconfig import COMMON_KEYS, validate_run_config

__all__ = [
    "COMMON_KEYS",
    "ConfigError",
    "ConfigFileError",
    "DuplicateKeyError",
    "config_hash",
    "load_run_config",
    "load_yaml",
    "number_from_text",
    "read_yaml_mapping",
    "validate_run_config",
]


class YamlLoader(yaml.SafeLoader):
    """PyYAML's safe loader with floats as YAML 1.2 reads them.

    PyYAML implements YAML 1.1, whose floats need a dot and a signed exponent, so
    ``1e-1``, ``1e7`` and ``1.0e7`` are strings there; users write them anyway, and YAML
    1.2 (and JSON) read them as numbers.  Every float of YAML 1.1 stays a float; the
    forms with an exponent that 1.1 misses are added (``[-+]? digits [. digits] e [-+]?
    digits``, or ``.digits e ...``).  Nothing else changes, so every config that parsed
    before parses to the same values.
    """


YamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."),
)


class DuplicateKeyError(yaml.YAMLError):
    """A key given more than once in one mapping of a YAML text; ``str()`` says which
    (``points[0].L``) and on which lines.  YAML loaders keep the last value silently, so
    ``L: 64`` followed by ``L: 128`` would run L = 128 without a word."""

    def __init__(self, key: str, lines: list[int]):
        self.key, self.lines = key, lines
        where = ", ".join(map(str, lines[:-1])) + f" and {lines[-1]}"
        times = "twice" if len(lines) == 2 else f"{len(lines)} times"
        super().__init__(
            f"key '{key}' is given {times}, at lines {where} (YAML would silently keep the "
            "last): keep one"
        )


def _check_duplicate_keys(node: yaml.Node, where: str = "", seen: set[int] | None = None) -> None:
    """Raise :class:`DuplicateKeyError` for the first mapping under ``node`` (a composed
    YAML document) that names a key twice.  Keys merged in with ``<<`` are not the
    mapping's own, so overriding them is no duplicate."""
    seen = set() if seen is None else seen
    if id(node) in seen:  # an alias of a node already checked
        return
    seen.add(id(node))
    if isinstance(node, yaml.MappingNode):
        lines: dict[tuple[str, str], list[int]] = {}
        for key, _ in node.value:
            if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                lines.setdefault((key.tag, key.value), []).append(key.start_mark.line + 1)
        for (_, name), at in lines.items():
            if len(at) > 1:
                raise DuplicateKeyError(f"{where}.{name}" if where else name, at)
        for key, value in node.value:
            name = key.value if isinstance(key, yaml.ScalarNode) else "?"
            _check_duplicate_keys(value, f"{where}.{name}" if where else name, seen)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _check_duplicate_keys(item, f"{where}[{i}]", seen)


def load_yaml(text: str) -> Any:
    """The YAML document ``text`` as simcore reads every config: YAML 1.2 floats
    (:class:`YamlLoader`) and no key twice in a mapping (:class:`DuplicateKeyError`, a
    ``yaml.YAMLError``); ``None`` for an empty document."""
    loader = YamlLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_duplicate_keys(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def number_from_text(text: str) -> int | float | None:
    """The number a YAML text reads as with :func:`load_yaml` (``"1e-1"`` -> 0.1,
    ``"16"`` -> 16), else ``None`` (also for booleans and anything not a plain number)."""
    try:
        value = load_yaml(text)
    except yaml.YAMLError:
        return None
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """One line saying where and why a YAML text does not parse."""
    if isinstance(exc, DuplicateKeyError):
        return str(exc)
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return f"not valid YAML{where}: {problem}"


def read_yaml_mapping(path: str | Path, what: str = "a run config") -> dict:
    """The YAML mapping in the file ``path``; raises :class:`ConfigFileError`.

    Every way a file can fail to be a config (missing, a directory, unreadable, binary,
    empty, a YAML syntax error, a key given twice, a list or a scalar at the top) is one
    line naming the file, so ``simcore run`` and ``simcore status --config`` never show a
    traceback for them.  ``what`` names what the file should hold, for the message.
    Read by :func:`load_yaml`: ``1e-1`` is a number, as in YAML 1.2.
    """
    name = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ConfigFileError(name, f"cannot read: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigFileError(
            name,
            f"not a text file (byte 0x{data[exc.start]:02x} at offset {exc.start} is not "
            f"UTF-8); {what} is a YAML text file",
        ) from None
    try:
        raw = load_yaml(text)
    except yaml.YAMLError as exc:
        raise ConfigFileError(name, _yaml_problem(exc)) from None
    if raw is None:
        raise ConfigFileError(name, f"is empty; {what} is a YAML mapping of keys to values")
    if not isinstance(raw, dict):
        kinds = {list: "a list", str: "a string", bool: "a boolean", int: "a number"}
        kind = kinds.get(type(raw), "a number" if isinstance(raw, float) else "a scalar")
        raise ConfigFileError(
            name, f"holds {kind} where {what} needs a YAML mapping of keys to values"
        )
    return raw


def _is_campaign(raw: dict) -> bool:
    """Whether a config read for ``simcore run`` is a campaign file: it lists ``points``
    (every campaign must; no run config has them, unless its model names a key so)."""
    if not isinstance(raw.get("points"), list):
        return False
    if not isinstance(raw.get("model"), str):
        return True
    try:
        return "points" not in registry.get(raw["model"]).keys
    except (ConfigError, registry.RegistryError):  # an unknown or broken model
        return True


def load_run_config(path: str | Path) -> dict:
    """Read and validate a YAML run config (one-line :class:`ConfigError` if it is bad).

    A campaign file given instead is recognised as one (it lists ``points``), and the
    error says how to run it, rather than naming its first key that a run config lacks.
    """
    raw = read_yaml_mapping(path)
    if _is_campaign(raw):
        raise ConfigFileError(
            str(path),
            "is a campaign file, not a run config: run it with `snakemake --workflow-profile "
            f"workflow/profiles/default --configfile {shlex.quote(str(path))}` (simcore run "
            "runs one job, e.g. results/<campaign>/jobs/<point>/b<block>.yaml)",
        )
    return validate_run_config(raw)
