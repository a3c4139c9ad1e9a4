"""Checks of configuration values, shared by the engine and every model's spec.

Every failure is a :class:`ConfigError` whose text is one line naming the key, the
offending value and the rule it breaks, so a campaign of thousands of jobs fails fast
and says what to fix.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping
from typing import Any


class ConfigError(ValueError):
    """A bad configuration value; ``str()`` is the one-line message for the user."""

    def __init__(self, key: str, value: Any, reason: str):
        self.key, self.value, self.reason = key, value, reason
        super().__init__(f"config key '{key}' = {value!r}: {reason}")


class ConfigFileError(ConfigError):
    """A config file that cannot be read as a YAML mapping; ``str()`` is one line naming
    the file and what is wrong with it (``key`` is ``'<file>'``, ``value`` the path)."""

    def __init__(self, path: str, reason: str):
        self.key, self.value, self.reason = "<file>", path, reason
        ValueError.__init__(self, f"{path}: {reason}")


def closest(word: str, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the known word closest to a typo, else ``''``."""
    match = difflib.get_close_matches(str(word), list(known), n=1, cutoff=0.6)
    return f" (did you mean '{match[0]}'?)" if match else ""


def check_int(cfg: Mapping, key: str, lo: int | None = None, hi: int | None = None) -> int:
    """``cfg[key]`` as an integer in ``[lo, hi]`` (booleans are not integers)."""
    v = cfg[key]
    if isinstance(v, bool) or not isinstance(v, int):
        raise ConfigError(key, v, "must be an integer")
    if lo is not None and v < lo:
        raise ConfigError(key, v, f"must be >= {lo}")
    if hi is not None and v > hi:
        raise ConfigError(key, v, f"must be <= {hi}")
    return v


def check_real(cfg: Mapping, key: str, positive: bool = False) -> float:
    """``cfg[key]`` as a finite float (``positive``: > 0)."""
    v = cfg[key]
    try:
        x = float(v) if isinstance(v, int | float) and not isinstance(v, bool) else math.nan
    except OverflowError:  # an int beyond the doubles
        x = math.inf
    if not math.isfinite(x):
        raise ConfigError(key, v, "must be a finite number" + (" > 0" if positive else ""))
    if positive and not x > 0:
        raise ConfigError(key, v, "must be a number > 0")
    return x


def check_probability(cfg: Mapping, key: str) -> float:
    """``cfg[key]`` as a float in [0, 1]."""
    v = cfg[key]
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise ConfigError(key, v, "must be a number")
    if not 0.0 <= float(v) <= 1.0:
        raise ConfigError(key, v, "must lie in [0, 1]")
    return float(v)


def check_choice(cfg: Mapping, key: str, allowed: Iterable[Any]) -> Any:
    """``cfg[key]``, which must be one of ``allowed``."""
    allowed = tuple(allowed)
    v = cfg[key]
    if isinstance(v, list) or v not in allowed:
        hint = closest(v, map(str, allowed)) if isinstance(v, str) else ""
        raise ConfigError(key, v, f"must be one of {', '.join(map(str, allowed))}{hint}")
    return v


def check_pair(cfg: Mapping, key: str) -> list[int]:
    """``cfg[key]`` as a list of two integers."""
    v = cfg[key]
    if (
        not isinstance(v, list | tuple)
        or len(v) != 2
        or any(isinstance(x, bool) or not isinstance(x, int) for x in v)
    ):
        raise ConfigError(key, v, "must be a list of two integers")
    return [int(x) for x in v]


def check_string(cfg: Mapping, key: str) -> str:
    """``cfg[key]``, which must be a string."""
    if not isinstance(cfg[key], str):
        raise ConfigError(key, cfg[key], "must be a string")
    return cfg[key]


def check_wall_seconds(key: str, value: Any) -> float:
    """A wall-time limit in seconds (``--max-wall``, a campaign's ``max_wall``): a finite
    number >= 0.  0 stops after the first step; a negative limit or NaN would be a typo,
    and infinity no limit at all (leave the option out for that)."""
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not (ok and math.isfinite(value) and value >= 0):
        raise ConfigError(key, value, "must be a finite number of seconds >= 0")
    return float(value)


#: The earliest stop time ``--stop-at`` takes: 2000-01-01T00:00:00Z in seconds since the
#: epoch.  A time long past stops a run after its first step; one before 2000 is almost
#: surely a duration given where a time belongs (``--stop-at 3600``).
EARLIEST_STOP_AT = 946_684_800.0


def check_stop_time(key: str, value: Any) -> float:
    """A stop time in seconds since the epoch (``--stop-at``, ``$SIMCORE_STOP_AT``): finite
    and not before 2000 (:data:`EARLIEST_STOP_AT`); a time in the past is fine (the run
    stops after its first step)."""
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not (ok and math.isfinite(value) and value >= EARLIEST_STOP_AT):
        raise ConfigError(
            key,
            value,
            "must be a time in seconds since the epoch, e.g. $(date -d '+1 hour' +%s), not "
            "before 2000; for seconds from now use --max-wall",
        )
    return float(value)
