"""Run configuration: the keys of one job, validated before any work starts.

Every error names the key and the offending value in one line, so that a
campaign of thousands of jobs fails fast and says what to fix.  The keys are
listed in ARCHITECTURE.md and in :data:`RUN_KEYS`.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any

import yaml

from simcore.models.kmc2d.rates import PARAMS
from simcore.schedules.decomposed import (
    all_schemes,
    geometry_from_config,
    geometry_problem,
    parse_scheme,
)

MODELS = ("kpz", "ea3d", "kmc2d", "fcc")

#: Smallest lateral size per dimension (one full uint32 word along each axis of the
#: packed KPZ lattice, see simcore.models.kpz.lattice).
MIN_L = {1: 32, 2: 4}

#: The keys that define a parameter point, per model: runs differing in any of them are
#: never averaged together (kelling2017 sec. 4.2), and they name the point.
MODEL_POINT_KEYS = {
    "kpz": ("model", "dim", "L", "p", "q", "scheme", "backend", "tc", "domain", "t_async",
            "border"),
    "ea3d": ("model", "L", "T", "layout", "prng", "backend"),
    "kmc2d": ("model", "rates", "L", "k2", "phi", "J", "h", "T", "scheme", "tile", "start",
              "backend"),
    "fcc": ("model", "L", "c", "epsilon", "active", "scheme", "block_side", "n_slabs",
            "backend"),
}  # fmt: skip
#: All point keys of all models (a key a model lacks is simply absent from its runs).
POINT_KEYS = tuple(dict.fromkeys(k for keys in MODEL_POINT_KEYS.values() for k in keys))
SCHEMES = ("sequential", *all_schemes())
BACKENDS = ("cpu", "gpu")
EA3D_LAYOUTS = ("standard", "sliced", "bitwise")
EA3D_PRNGS = ("philox", "minstd", "pr64", "mt19937")
#: The kmc2d rate models and the keys of their parameters (a run config holds only those
#: of its own rate model).
KMC2D_PARAMS = PARAMS
KMC2D_SCHEMES = ("tiles", "serial", "bkl")
KMC2D_STARTS = ("flat", "random")
#: The start of each kmc2d rate model when ``start`` is not given.
KMC2D_DEFAULT_START = {"sos": "flat", "ising": "random"}
#: Tile sides the GPU kernel of the kmc2d tile algorithm is compiled for.
KMC2D_GPU_TILES = (4, 8)
#: fcc: which species move (B only: the physics; both: the paper's GPU code) and the
#: schedules (simcore.models.fcc: random-sequential, two-layer double tiling, slabs).
FCC_ACTIVE = ("B", "both")
FCC_SCHEMES = ("sequential", "dt", "slabs")
#: The key of each fcc schedule's geometry (a run config holds only its own scheme's).
FCC_SCHEME_KEYS = {"dt": "block_side", "slabs": "n_slabs"}
#: Smallest fcc L: one slab of 8 planes (scheme dt needs 16: two blocks of side 8 per axis).
FCC_MIN_L = 8

#: key -> (required, default, description): the keys of every model.
COMMON_KEYS: dict[str, tuple[bool, Any, str]] = {
    "model": (True, None, "model name: " + ", ".join(MODELS)),
    "backend": (False, "cpu", "where it runs: cpu or gpu"),
    "samples": (True, None, "independent samples (disorder samples for ea3d) in this job"),
    "seed": (True, None, "64-bit job seed"),
    "t_max": (
        True,
        None,
        "last time in MCS (ea3d: sweeps; kmc2d: model time; fcc: MCS of L^3/2 attempts)",
    ),
    "points_per_decade": (False, 10, "log-spaced sampling density"),
    "sample_offset": (False, 0, "global index of the first sample"),
    "campaign": (False, "", "campaign name (provenance)"),
    "point": (False, "", "parameter point name (provenance)"),
    "block": (False, 0, "block index inside the point"),
    "checkpoint_interval": (False, 300.0, "seconds of wall time between checkpoints"),
}
#: key -> (required, default, description), per model.
MODEL_KEYS: dict[str, dict[str, tuple[bool, Any, str]]] = {
    "kpz": {
        "dim": (True, None, "substrate dimension: 1 or 2"),
        "L": (True, None, "lateral size, a power of two"),
        "p": (True, None, "deposition probability"),
        "q": (True, None, "removal probability"),
        "scheme": (False, "sequential", "site selection: sequential or a DD scheme, e.g. DTrDB"),
        "tc": (False, [1, 1], "DD thread cell (log2 words in x, y) of the block layer"),
        "domain": (False, [128, 128], "DD device-layer domain size in sites (x, y)"),
        "t_async": (False, 1.0, "DD asynchronous interval in MCS (1, 1/2, 1/4, ...)"),
        "border": (False, None, "DB/cDB dead-border width in sites (default 5 / 1)"),
        "waiting_times": (False, [], "waiting times s of C(t, s), MCS"),
    },
    "ea3d": {
        "L": (True, None, "linear size of the periodic L^3 lattice, even"),
        "T": (True, None, "temperature (J = k_B = 1)"),
        "layout": (False, "sliced", "memory layout: standard, sliced, bitwise (L = 2^l)"),
        "prng": (
            False,
            "philox",
            "random number generator: " + ", ".join(EA3D_PRNGS) + " (philox: counter based, "
            "keyed by site; the others: a battery of stateful generators)",
        ),
    },
    "kmc2d": {
        "rates": (True, None, "rate model: sos (crystal growth, darkins2024) or ising (Glauber)"),
        "L": (
            True,
            None,
            "side of the periodic L x L lattice (tiles: a multiple of tile, >= 3 tiles)",
        ),
        "k2": (False, 1.0, "sos: attachment rate k2 of a cell with 2 bonds (> 0)"),
        "phi": (False, None, "sos: bond parameter phi, rate k2 exp((2 n_b - 4) phi) (required)"),
        "J": (False, 1.0, "ising: coupling J"),
        "h": (False, 0.0, "ising: field h"),
        "T": (False, None, "ising: temperature T > 0 (required)"),
        "scheme": (False, "tiles", "integrator: tiles (darkins2024), serial or bkl"),
        "tile": (False, 8, "tiles: tile side B, a power of two >= 2 (gpu: 4 or 8)"),
        "start": (
            False,
            None,
            "flat (sos: heights 0, ising: all spins up) or random (sos: heights 0 or 1, ising: "
            "spins +-1); default flat for sos, random for ising",
        ),
    },
    "fcc": {
        "L": (True, None, "side of the periodic L^3 simple cubic box of the fcc sites, even, >= 8"),
        "c": (True, None, "B concentration, 0 < c < 1 (random mixture at t = 0)"),
        "epsilon": (True, None, "B-B bond energy over k_B T, >= 0 (quench depth)"),
        "active": (
            False,
            None,
            "species that move: B (the physics) or both (the paper's GPU code); default B for "
            "scheme sequential, both for dt and slabs (which need it)",
        ),
        "scheme": (
            False,
            "sequential",
            "schedule: sequential (random-sequential), dt (two-layer double tiling: the GPU "
            "kernel and the CPU DD) or slabs (1D dead border: the MPI code's twin)",
        ),
        "block_side": (
            False,
            32,
            "dt: block side b, a power of two >= 8 (gpu: <= 64), L a multiple of 2 b (other "
            "schemes: refused)",
        ),
        "n_slabs": (
            False,
            4,
            "slabs: number of slabs P, L % P == 0, L / P >= 8 (other schemes: refused)",
        ),
    },
}
#: Every key of every model (the documentation's list, ARCHITECTURE.md); a key of several
#: models (L, T, scheme) with the entry of the first model that has it.
RUN_KEYS: dict[str, tuple[bool, Any, str]] = dict(COMMON_KEYS)
for _keys in MODEL_KEYS.values():
    for _key, _entry in _keys.items():
        RUN_KEYS.setdefault(_key, _entry)
del _keys, _key, _entry


def point_keys(model: str) -> tuple[str, ...]:
    """The point keys of ``model`` (see :data:`MODEL_POINT_KEYS`)."""
    return MODEL_POINT_KEYS[model]


class ConfigError(ValueError):
    """A bad configuration value; ``str()`` is the one-line message for the user."""

    def __init__(self, key: str, value: Any, reason: str):
        self.key, self.value, self.reason = key, value, reason
        super().__init__(f"config key '{key}' = {value!r}: {reason}")


def _int(cfg: dict, key: str, lo: int | None = None, hi: int | None = None) -> int:
    v = cfg[key]
    if isinstance(v, bool) or not isinstance(v, int):
        raise ConfigError(key, v, "must be an integer")
    if lo is not None and v < lo:
        raise ConfigError(key, v, f"must be >= {lo}")
    if hi is not None and v > hi:
        raise ConfigError(key, v, f"must be <= {hi}")
    return v


def _prob(cfg: dict, key: str) -> float:
    v = cfg[key]
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise ConfigError(key, v, "must be a number")
    if not 0.0 <= float(v) <= 1.0:
        raise ConfigError(key, v, "must lie in [0, 1]")
    return float(v)


def _choice(cfg: dict, key: str, allowed: tuple) -> Any:
    v = cfg[key]
    if v not in allowed:
        raise ConfigError(key, v, f"must be one of {', '.join(map(str, allowed))}")
    return v


def validate_run_config(raw: Any) -> dict:
    """Check a run config and return it completed with defaults; raises :class:`ConfigError`."""
    if not isinstance(raw, dict):
        raise ConfigError("<config>", raw, "must be a mapping of keys to values")
    if "model" not in raw:
        raise ConfigError("model", None, "missing (required)")
    model = _choice(raw, "model", MODELS)
    keys = {**COMMON_KEYS, **MODEL_KEYS[model]}
    for key in raw:
        if key not in keys:
            raise ConfigError(
                str(key), raw[key], f"unknown key for model {model} (known: {', '.join(keys)})"
            )
    cfg: dict[str, Any] = {}
    for key, (required, default, _) in keys.items():
        if key in raw:
            cfg[key] = raw[key]
        elif required:
            raise ConfigError(key, None, "missing (required)")
        else:
            cfg[key] = list(default) if isinstance(default, list) else default
    _choice(cfg, "backend", BACKENDS)
    _int(cfg, "samples", lo=1, hi=2**32 - 1)
    _int(cfg, "seed", lo=0, hi=2**64 - 1)
    _int(cfg, "t_max", lo=1, hi=2**32 - 1)
    _int(cfg, "points_per_decade", lo=1, hi=1000)
    _int(cfg, "sample_offset", lo=0)
    _int(cfg, "block", lo=0)
    for key in ("campaign", "point"):
        if not isinstance(cfg[key], str):
            raise ConfigError(key, cfg[key], "must be a string")
    ci = cfg["checkpoint_interval"]
    if isinstance(ci, bool) or not isinstance(ci, int | float) or ci <= 0:
        raise ConfigError("checkpoint_interval", ci, "must be a positive number of seconds")
    cfg["checkpoint_interval"] = float(ci)
    if model == "ea3d":
        _check_ea3d(cfg)
    elif model == "kmc2d":
        _check_kmc2d(cfg, raw)
    elif model == "fcc":
        _check_fcc(cfg, raw)
    else:
        _check_kpz(cfg)
    return cfg


def _check_kpz(cfg: dict) -> None:
    """The KPZ keys: size, probabilities, waiting times, scheme and decomposition."""
    dim = _choice(cfg, "dim", (1, 2))
    L = _int(cfg, "L", lo=MIN_L[dim])
    if L & (L - 1):
        raise ConfigError("L", L, "must be a power of two")
    if L**dim > 2**32:
        raise ConfigError("L", L, f"L^{dim} must not exceed 2^32 sites")
    p, q = _prob(cfg, "p"), _prob(cfg, "q")
    if p + q > 1.0 + 1e-12:
        raise ConfigError("q", q, f"p + q = {p + q:g} must not exceed 1")
    cfg["p"], cfg["q"] = p, q
    _choice(cfg, "scheme", SCHEMES)
    t_max = cfg["t_max"]
    wt = cfg["waiting_times"]
    if not isinstance(wt, list):
        raise ConfigError("waiting_times", wt, "must be a list of integers")
    for s in wt:
        if isinstance(s, bool) or not isinstance(s, int) or s < 1:
            raise ConfigError("waiting_times", s, "each waiting time must be an integer >= 1")
        if s > t_max:
            raise ConfigError("waiting_times", s, f"waiting time exceeds t_max = {t_max}")
    cfg["waiting_times"] = sorted(set(wt))
    _check_decomposition(cfg)


def _check_ea3d(cfg: dict) -> None:
    """The EA3D keys: an even size the layout supports, T > 0, whole coded words."""
    L = _int(cfg, "L", lo=2, hi=1024)
    layout = _choice(cfg, "layout", EA3D_LAYOUTS)
    if L % 2:
        raise ConfigError("L", L, "must be even (checkerboard)")
    if layout == "bitwise" and L & (L - 1):
        raise ConfigError("layout", layout, f"needs L = 2^l, got L = {L}")
    T = cfg["T"]
    if isinstance(T, bool) or not isinstance(T, int | float) or not T > 0:
        raise ConfigError("T", T, "must be a number > 0")
    cfg["T"] = float(T)
    _choice(cfg, "prng", EA3D_PRNGS)
    if cfg["samples"] % 64:
        raise ConfigError("samples", cfg["samples"], "must be a multiple of 64 (one coded word)")
    if cfg["sample_offset"] % 64:
        raise ConfigError("sample_offset", cfg["sample_offset"], "must be a multiple of 64")


def _real(cfg: dict, key: str, positive: bool = False) -> float:
    """A finite number (``positive``: > 0) as a float."""
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


def _check_kmc2d(cfg: dict, raw: dict) -> None:
    """The kmc2d keys: rate model and its parameters (those of the other rate model are
    refused when given and dropped otherwise), lattice, scheme, tile, start, backend."""
    rates = _choice(cfg, "rates", tuple(KMC2D_PARAMS))
    for other, keys in KMC2D_PARAMS.items():
        if other == rates:
            continue
        for key in keys:
            if key in raw:
                raise ConfigError(
                    key,
                    raw[key],
                    f"is a parameter of rates {other}, not of rates {rates} "
                    f"(its parameters: {', '.join(KMC2D_PARAMS[rates])})",
                )
            del cfg[key]
    for key in KMC2D_PARAMS[rates]:
        if cfg[key] is None:
            raise ConfigError(key, None, f"missing (required for rates {rates})")
    if rates == "sos":
        cfg["k2"], cfg["phi"] = _real(cfg, "k2", positive=True), _real(cfg, "phi")
        try:  # the fastest class: every rate of the table must be a finite double
            fastest = cfg["k2"] * math.exp(4.0 * abs(cfg["phi"]))
        except OverflowError:
            fastest = math.inf
        if not math.isfinite(fastest):
            raise ConfigError("phi", cfg["phi"], "k2 exp(4 |phi|) overflows a double")
    else:
        cfg["J"], cfg["h"] = _real(cfg, "J"), _real(cfg, "h")
        cfg["T"] = _real(cfg, "T", positive=True)
    scheme = _choice(cfg, "scheme", KMC2D_SCHEMES)
    tile = _int(cfg, "tile", lo=2)
    if tile & (tile - 1):
        raise ConfigError("tile", tile, "must be a power of two")
    L = _int(cfg, "L", lo=2)
    if L * L >= 2**32:
        raise ConfigError("L", L, "L^2 must be < 2^32 (the cell index is a 32-bit counter word)")
    if scheme == "tiles" and (L % tile or L < 3 * tile):
        raise ConfigError(
            "L", L, f"scheme tiles needs a multiple of the tile {tile} that is >= 3 tiles"
        )
    if cfg["start"] is None:
        cfg["start"] = KMC2D_DEFAULT_START[rates]
    _choice(cfg, "start", KMC2D_STARTS)
    if cfg["backend"] == "gpu":
        if scheme != "tiles":
            raise ConfigError("scheme", scheme, "the gpu backend runs scheme tiles only")
        if tile not in KMC2D_GPU_TILES:
            raise ConfigError("tile", tile, "the gpu backend needs tile 4 or 8")


def _check_fcc(cfg: dict, raw: dict) -> None:
    """The fcc keys: lattice, concentration, bond energy, active species, scheme and its
    geometry, backend.  ``block_side`` belongs to scheme dt and ``n_slabs`` to scheme slabs:
    given with another scheme it is refused (a key that would do nothing), and its default
    is dropped from the config of the other schemes (as kmc2d drops the parameters of the
    other rate model), so that a config names only what its run uses."""
    L = _int(cfg, "L", lo=FCC_MIN_L)
    if L % 2:
        raise ConfigError("L", L, "must be even (the fcc sublattice of the periodic L^3 box)")
    if L**3 // 2 > 2**32:
        raise ConfigError("L", L, "L^3 / 2 sites must be <= 2^32 (32-bit Philox counter words)")
    c = _real(cfg, "c")
    if not 0.0 < c < 1.0:
        raise ConfigError("c", cfg["c"], "must lie in (0, 1), strictly")
    cfg["c"] = c
    eps = _real(cfg, "epsilon")
    if eps < 0:
        raise ConfigError("epsilon", cfg["epsilon"], "must be a number >= 0")
    cfg["epsilon"] = eps
    scheme = _choice(cfg, "scheme", FCC_SCHEMES)
    if cfg.get("active") is None:
        cfg["active"] = "B" if scheme == "sequential" else "both"
    if _choice(cfg, "active", FCC_ACTIVE) == "B" and scheme != "sequential":
        raise ConfigError(
            "active",
            "B",
            f"scheme {scheme} needs both species active (with only B active a particle can "
            "leave the region being updated but not come back: biased equilibrium)",
        )
    for other, key in FCC_SCHEME_KEYS.items():
        if other == scheme:
            continue
        if key in raw:
            raise ConfigError(key, raw[key], f"is a key of scheme {other}, not of scheme {scheme}")
        del cfg[key]
    if scheme == "dt":
        from simcore.models.fcc.decomposed import MAX_BLOCK, MIN_BLOCK

        b = _int(cfg, "block_side", lo=MIN_BLOCK)
        if b & (b - 1) or b > MAX_BLOCK:
            raise ConfigError("block_side", b, f"must be a power of two <= {MAX_BLOCK}")
        if L % (2 * b):
            raise ConfigError("L", L, f"scheme dt needs a multiple of 2 x block_side = {2 * b}")
    elif scheme == "slabs":
        from simcore.models.fcc.slabs import MIN_LZ

        P = _int(cfg, "n_slabs", lo=1)
        if L % P:
            raise ConfigError("L", L, f"scheme slabs needs a multiple of n_slabs = {P}")
        if L // P < MIN_LZ:
            raise ConfigError("n_slabs", P, f"slabs of L / n_slabs = {L // P} < {MIN_LZ} planes")
    if cfg["backend"] == "gpu":
        if scheme != "dt":
            raise ConfigError("scheme", scheme, "the gpu backend runs scheme dt only")


def _pair(cfg: dict, key: str) -> list[int]:
    v = cfg[key]
    if (
        not isinstance(v, list | tuple)
        or len(v) != 2
        or any(isinstance(x, bool) or not isinstance(x, int) for x in v)
    ):
        raise ConfigError(key, v, "must be a list of two integers")
    return [int(x) for x in v]


def _check_decomposition(cfg: dict) -> None:
    """Check the DD keys (see simcore.schedules.decomposed) against scheme, backend and L."""
    cfg["tc"], cfg["domain"] = _pair(cfg, "tc"), _pair(cfg, "domain")
    ta = cfg["t_async"]
    if isinstance(ta, bool) or not isinstance(ta, int | float) or not 0 < ta <= 1:
        raise ConfigError("t_async", ta, "must be a number in (0, 1] (MCS)")
    cfg["t_async"] = float(ta)
    b = cfg["border"]
    if b is not None and (isinstance(b, bool) or not isinstance(b, int)):
        raise ConfigError("border", b, "must be an integer number of sites")
    parsed = parse_scheme(cfg["scheme"])
    if parsed is None:
        if cfg["backend"] != "cpu":
            raise ConfigError("backend", cfg["backend"], "the sequential scheme runs on cpu only")
        return
    if cfg["dim"] != 2:
        raise ConfigError("scheme", cfg["scheme"], "domain decomposition is implemented for dim 2")
    if cfg["backend"] == "gpu" and not parsed[1]:
        raise ConfigError(
            "scheme", cfg["scheme"], "the gpu backend needs a block layer (e.g. DTrDT, DTrDB)"
        )
    geo = geometry_from_config(cfg)
    problem = geometry_problem(geo)
    if problem is not None:
        raise ConfigError(*problem)
    if cfg["t_max"] * geo.phases >= 2**32:
        raise ConfigError("t_max", cfg["t_max"], f"t_max x {geo.phases} phases must be < 2^32")


def load_run_config(path: str | Path) -> dict:
    """Read and validate a YAML run config."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError("<file>", str(path), f"cannot read: {exc.strerror}") from None
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        first = str(exc).splitlines()[0]
        raise ConfigError("<file>", str(path), f"not valid YAML: {first}") from None
    return validate_run_config(raw)


def config_hash(cfg: dict) -> str:
    """Stable hash of the physics-relevant config (checkpoints must match it to resume)."""
    keep = {k: v for k, v in cfg.items() if k != "checkpoint_interval"}
    text = json.dumps(keep, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
