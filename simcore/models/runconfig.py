"""The keys of a run config and their validation: the keys every model shares
(:data:`COMMON_KEYS`) and the keys of its model (its spec's
:attr:`~simcore.models.spec.ModelSpec.keys`, found through the registry).  Every error names
the key and the offending value in one line.  ``simcore models NAME`` lists a model's keys.

It sits with the models, below :mod:`simcore.config` (which reads run config files), so a
model's benchmark can validate the configs it times without importing upward.
"""

from __future__ import annotations

from typing import Any

from simcore.checks import ConfigError, check_choice, check_int, check_string, closest
from simcore.models import registry
from simcore.models.spec import BACKENDS, REQUIRED, Key, ModelSpec

__all__ = ["COMMON_KEYS", "common_keys", "describe_keys", "validate_run_config"]

#: The keys of every model's run config, in the order they are written.
COMMON_KEYS: dict[str, Key] = {
    "model": Key("model name (simcore models lists them)", type="str"),
    "backend": Key(
        "where it runs: cpu or gpu, of the backends its model declares",
        default="cpu",
        type="str",
        choices=BACKENDS,
    ),
    "samples": Key("independent samples in this job", type="int"),
    "seed": Key("64-bit job seed (a campaign derives one per job)", type="int"),
    "t_max": Key("last time, in the model's time unit", type="int"),
    "points_per_decade": Key("log-spaced sampling density", default=10, type="int"),
    "sample_offset": Key("global index of the first sample", default=0, type="int"),
    "campaign": Key("campaign name (provenance)", default="", type="str"),
    "point": Key("parameter point name (provenance)", default="", type="str"),
    "block": Key("block index inside the point", default=0, type="int"),
    "checkpoint_interval": Key(
        "seconds of wall time between checkpoints", default=300.0, type="float"
    ),
}


def _default(key: Key) -> Any:
    return list(key.default) if isinstance(key.default, list) else key.default


def _fill(cfg: dict, raw: dict, name: str, key: Key, spec: ModelSpec | None) -> None:
    """Copy key ``name`` from ``raw`` into ``cfg`` or fill its default, unless it does not
    apply to the settings so far (then it must not be given)."""
    if spec is not None and not spec.applies(name, cfg):
        if name in raw:
            raise ConfigError(
                name, raw[name], f"is a key of {key.applies_to}, which this run is not"
            )
        return
    if name in raw:
        cfg[name] = raw[name]
    elif key.required:
        raise ConfigError(name, None, "missing (required)")
    else:
        cfg[name] = _default(key)
    if key.choices and cfg[name] is not None:
        check_choice(cfg, name, key.choices)


def validate_run_config(raw: Any) -> dict:
    """Check a run config and return it completed with defaults; raises :class:`ConfigError`.

    The common keys are checked here, the model's by its spec (the table, then
    :meth:`~simcore.models.spec.ModelSpec.validate`).
    """
    if not isinstance(raw, dict):
        raise ConfigError("<config>", raw, "must be a mapping of keys to values")
    if "model" not in raw:
        raise ConfigError(
            "model", None, f"missing (required; known: {', '.join(registry.names())})"
        )
    if not isinstance(raw["model"], str):
        raise ConfigError("model", raw["model"], "must be a model name")
    spec = registry.get(raw["model"])
    known = {**COMMON_KEYS, **spec.keys}
    for key in raw:
        if key not in known:
            raise ConfigError(
                str(key),
                raw[key],
                f"unknown key for model {spec.name}{closest(str(key), known)} "
                f"(known: {', '.join(known)})",
            )
    cfg: dict[str, Any] = {}
    for name, key in COMMON_KEYS.items():
        _fill(cfg, raw, name, key, None)
    if cfg["backend"] not in spec.backends:  # before any device is looked at
        raise ConfigError(
            "backend",
            cfg["backend"],
            f"model {spec.name} runs on {' and '.join(spec.backends)} only "
            f"(the backends its spec declares)",
        )
    check_int(cfg, "samples", lo=1, hi=2**32 - 1)
    check_int(cfg, "seed", lo=0, hi=2**64 - 1)
    check_int(cfg, "t_max", lo=1, hi=2**32 - 1)
    check_int(cfg, "points_per_decade", lo=1, hi=1000)
    check_int(cfg, "sample_offset", lo=0)
    check_int(cfg, "block", lo=0)
    check_string(cfg, "campaign")
    check_string(cfg, "point")
    ci = cfg["checkpoint_interval"]
    if isinstance(ci, bool) or not isinstance(ci, int | float) or ci <= 0:
        raise ConfigError("checkpoint_interval", ci, "must be a positive number of seconds")
    cfg["checkpoint_interval"] = float(ci)
    for name, key in spec.keys.items():
        _fill(cfg, raw, name, key, spec)
    spec.validate(cfg)
    return cfg


def common_keys(spec: ModelSpec) -> dict[str, Key]:
    """The common keys as a run config of ``spec``'s model has them: ``backend`` offers
    only the backends the model declares (``simcore models NAME`` lists these)."""
    backend = COMMON_KEYS["backend"]
    only = Key(
        f"where it runs: one of the backends {spec.name} declares",
        default=backend.default,
        type=backend.type,
        choices=tuple(spec.backends),
    )
    return {**COMMON_KEYS, "backend": only}


def describe_keys(keys: dict[str, Key]) -> list[str]:
    """One line per key: name, type, default and description (``simcore models``)."""
    lines = []
    for name, key in keys.items():
        default = (
            "required"
            if key.default is REQUIRED
            else ("computed" if key.default is None else repr(key.default))
        )
        where = f"; only for {key.applies_to}" if key.applies_to else ""
        choices = f" ({', '.join(map(str, key.choices))})" if key.choices else ""
        lines.append(f"  {name:<20} {key.type:<10} {default:<14} {key.description}{choices}{where}")
    return lines
