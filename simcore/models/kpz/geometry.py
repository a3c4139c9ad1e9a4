"""Domain-decomposition (DD) schedules of kelling2017 sec. 3 for 2D lattices.

A scheme name is a device-layer part followed by an optional block-layer part
(kelling2017 sec. 3.1.1): ``DTrDT`` is double tiling with random origin at the
device layer and single-hit double tiling at the block layer.

Device layer (how the lattice is cut into domains that are updated at once):

* ``DT``  double tiling, fixed origin: tiles of 2Dx x 2Dy sites, each cut into
  four Dx x Dy domains; the four sets (sx, sy) are updated one after the
  other in an order shuffled every round.
* ``DTr`` the same with the origin moved to a uniformly random site every round.
* ``DB``  dead border: tiles of Dx x Dy sites all updated at once; the last
  ``border`` columns and rows of each tile are inactive (selections there are
  discarded); the origin is a random site every round.  ``border`` >= 4 keeps
  the 4x4-site words of neighbouring tiles apart (kelling2017 uses 5).
* ``cDB`` coarse dead border: the origin moves on the 4x4 word grid, border 1.

A round is ``t_async`` MCS: every set (DT, DTr) or the single set (DB, cDB)
gets ``t_async * Dx * Dy`` selections per domain; 1 / t_async rounds make one
MCS.  Under DB the selections in the border are lost, so one "MCS" of these
schemes is N selections of which the active fraction
``(Dx - w)(Dy - w) / (Dx Dy)`` are performed (kelling2017 eq. 9; the run file
records the fraction).

Block layer (how one domain is shared by the threads of a GPU block): the
domain is cut into thread cells of cx x cy = 4*2^a x 4*2^b sites (TC = a, b);
each hit gives every cell one update attempt, and ``t_async * cx * cy`` hits
sweep the domain once (single-hit, kelling2012 sec. 3.1):

* ``DT`` each hit picks one of the four sub-cells (cx/2 x cy/2) for the whole
  block at random, and every thread updates a random site of its sub-cell;
* ``DB`` every thread updates a random site of its whole cell, with delayed
  borders: first the bulk and the corner sites, then (after a barrier) the
  sites of the last column or row.  Within each half no two attempts touch the
  same bit, so the result does not depend on the order of the threads;
* ``DBs`` DB with snapshot hits, for p = 1, q = 0 or p = 0, q = 1 only: the same
  cells and draws as ``DB``, but every attempt of a hit decides on the lattice as it
  was before the hit, and then the accepted ones flip.  With one direction, two
  accepted sites are never neighbours (a local minimum's neighbours are higher), so the
  flips commute and a hit is the random-sequential order in which its rejected attempts
  come first.  It differs from ``DB`` only where a bulk flip enables the edge attempt
  next to it in the same hit.  It is the deterministic form of what kelling2017's DB
  runs did for one direction (sec. 3.1: they ignore the block-layer borders, whose
  threads then read and write the shared words unordered).  On the GPU a hit needs no
  per-cell records and no second pass of the rule, which ``DB`` needs to be
  bit-identical to its two phases;
* no block part (e.g. ``DTr``): one worker sweeps the domain random-sequentially
  (the multi-core CPU scheme of kelling2017 sec. 4.3).

Random numbers (Philox4x32-10, key = job seed, see :mod:`simcore.rng`), with
P phases per MCS (4/t_async for DT/DTr, 1/t_async for DB/cDB), phase
``ph = 4 r + k`` (the k-th set of round r) or ``ph = r``, and ``c1 = t P + ph``:

* round origin and set order: counter (r, t, sample, STREAM_DEVICE << 24);
  ox = r0 mod L, oy = r1 mod L; the set order is a Fisher-Yates shuffle with
  16-bit draws from r2 and r3;
* block-layer set of hit h (DT): counter (domain, c1, sample,
  STREAM_BLOCKSET << 24 | h >> 6), 2 bits per hit;
* thread draws: counter (domain * threads + thread, c1, sample,
  STREAM_THREAD << 24 | call).  Positions take 8 bits where a thread picks
  among at most 256 sites (its DT sub-cell, or its DB cell), else 16.  Where
  acceptance is certain (p = 1, q = 0 or p = 0, q = 1) a call gives 128 / bits
  attempts (the positions, in order from the low bits of r0); otherwise each
  word gives one attempt, a 24-bit uniform (high bits) and an 8-bit position
  (low byte), or with 16-bit positions (r0, r1) and (r2, r3) give two, u from
  the high 24 bits of r0 / r2.  The block layers accept with u24 < T >> 8, T the
  32-bit threshold of :func:`simcore.rng.uniform_threshold` (exact for 0 and 1);
* one-worker domains: counter (domain, c1, sample, STREAM_DOMAIN << 24 | a >> 1),
  2 attempts per call as above.

The sites are located by (domain origin + local position) mod L, so the same
draws give the same lattice whatever the order in which domains of one phase
are run: the numba twin runs them in parallel on CPU cores, the GPU one block
per domain (:mod:`simcore.models.kpz.decomposed`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from simcore.rng.philox import philox4x32
from simcore.rng.streams import STREAM_DEVICE

DEVICE_SCHEMES = ("DTr", "DT", "cDB", "DB")  # longest prefix first where they overlap
BLOCK_SCHEMES = ("", "DT", "DB", "DBs")

# integer codes used by the kernels
DEV_CODE = {"DT": 0, "DTr": 1, "DB": 2, "cDB": 3}
BLK_CODE = {"": 0, "DT": 1, "DB": 2, "DBs": 3}

#: default dead-border width per device scheme (kelling2017 sec. 3.1)
DEFAULT_BORDER = {"DB": 5, "cDB": 1, "DT": 0, "DTr": 0}


def parse_scheme(name: str) -> tuple[str, str] | None:
    """(device part, block part) of a DD scheme name, or None if it is not one."""
    for dev in DEVICE_SCHEMES:
        if name.startswith(dev) and name[len(dev) :] in BLOCK_SCHEMES:
            return dev, name[len(dev) :]
    return None


def all_schemes() -> tuple[str, ...]:
    """Every DD scheme name (device part with or without a block part)."""
    return tuple(d + b for d in ("DB", "cDB", "DT", "DTr") for b in BLOCK_SCHEMES)


@dataclass(frozen=True)
class Geometry:
    """Sizes and counts of a DD schedule for an L x L lattice (see the module docstring)."""

    L: int
    device: str
    block: str
    Dx: int
    Dy: int
    a: int
    b: int
    t_async: float
    border: int

    @property
    def cx(self) -> int:
        """Thread-cell width in sites."""
        return 4 << self.a

    @property
    def cy(self) -> int:
        """Thread-cell height in sites."""
        return 4 << self.b

    @property
    def double_tiling(self) -> bool:
        """True for DT and DTr at the device layer (four sets per round)."""
        return self.device in ("DT", "DTr")

    @property
    def rounds(self) -> int:
        """Rounds (asynchronous intervals) per MCS."""
        return int(round(1.0 / self.t_async))

    @property
    def phases(self) -> int:
        """Kernel launches (sets) per MCS."""
        return self.rounds * (4 if self.double_tiling else 1)

    @property
    def tiles(self) -> tuple[int, int]:
        """Domains per set along x and y."""
        if self.double_tiling:
            return self.L // (2 * self.Dx), self.L // (2 * self.Dy)
        return self.L // self.Dx, self.L // self.Dy

    @property
    def threads(self) -> int:
        """Workers per domain: thread cells, or 1 without a block layer."""
        return (self.Dx // self.cx) * (self.Dy // self.cy) if self.block else 1

    @property
    def hits(self) -> int:
        """Attempts per worker and phase."""
        if self.block:
            return int(round(self.t_async * self.cx * self.cy))
        return int(round(self.t_async * self.Dx * self.Dy))

    @property
    def active_fraction(self) -> float:
        """Fraction of selections that are performed (1 except under DB, kelling2017 eq. 9)."""
        w = self.border
        return (self.Dx - w) * (self.Dy - w) / (self.Dx * self.Dy)

    def as_array(self) -> np.ndarray:
        """The integer parameters the kernels take, in :data:`GEO_FIELDS` order."""
        tx, ty = self.tiles
        vals = {
            "L": self.L,
            "dev": DEV_CODE[self.device],
            "blk": BLK_CODE[self.block],
            "Dx": self.Dx,
            "Dy": self.Dy,
            "cx": self.cx,
            "cy": self.cy,
            "tx": tx,
            "ty": ty,
            "threads": self.threads,
            "hits": self.hits,
            "border": self.border,
            "rounds": self.rounds,
            "phases": self.phases,
        }
        return np.array([vals[k] for k in GEO_FIELDS], dtype=np.int64)


GEO_FIELDS = (
    "L", "dev", "blk", "Dx", "Dy", "cx", "cy", "tx", "ty", "threads", "hits", "border",
    "rounds", "phases",
)  # fmt: skip
G_L, G_DEV, G_BLK, G_DX, G_DY, G_CX, G_CY, G_TX, G_TY, G_THR, G_HITS, G_BORDER, G_R, G_P = range(
    len(GEO_FIELDS)
)


def geometry_from_config(cfg: dict) -> Geometry:
    """The geometry of a validated run config whose scheme is a DD scheme."""
    parsed = parse_scheme(cfg["scheme"])
    if parsed is None:
        raise ValueError(f"scheme {cfg['scheme']!r} is not a domain-decomposition scheme")
    dev, blk = parsed
    border = cfg.get("border")
    if border is None:
        border = DEFAULT_BORDER[dev]
    if dev in ("DT", "DTr"):
        border = 0
    return Geometry(
        L=int(cfg["L"]),
        device=dev,
        block=blk,
        Dx=int(cfg["domain"][0]),
        Dy=int(cfg["domain"][1]),
        a=int(cfg["tc"][0]),
        b=int(cfg["tc"][1]),
        t_async=float(cfg["t_async"]),
        border=int(border),
    )


def geometry_problem(g: Geometry) -> tuple[str, object, str] | None:
    """(key, value, reason) of the first inconsistency of a geometry, or None if it is usable."""
    L, Dx, Dy = g.L, g.Dx, g.Dy
    for v in (Dx, Dy):
        if v < 8 or v & (v - 1):
            return "domain", [Dx, Dy], "domain sizes must be powers of two >= 8 sites"
    f = 2 if g.double_tiling else 1
    if f * Dx > L or f * Dy > L:
        return "domain", [Dx, Dy], f"{f} x domain must fit into L = {L} in each direction"
    r = 1.0 / g.t_async
    if abs(r - round(r)) > 1e-9 or round(r) & (round(r) - 1):
        return "t_async", g.t_async, "must be 1, 1/2, 1/4, ... MCS"
    if g.device == "DB" and not 4 <= g.border < min(Dx, Dy):
        return "border", g.border, "DB needs 4 <= border < domain size (4x4-site words)"
    if g.device == "cDB" and not 1 <= g.border < min(Dx, Dy):
        return "border", g.border, "cDB needs 1 <= border < domain size"
    if g.block:
        if g.a < 0 or g.b < 0 or g.a + g.b > 6:
            return "tc", [g.a, g.b], "thread cells need a, b >= 0 and a + b <= 6"
        if g.block == "DT" and (g.a < 1 or g.b < 1):
            return "tc", [g.a, g.b], "block-layer DT needs TC >= 1,1 (sub-cells of one word)"
        if g.cx > Dx or g.cy > Dy:
            return "tc", [g.a, g.b], f"thread cells larger than the domain {Dx}x{Dy}"
        if g.threads > 1024:
            return "domain", [Dx, Dy], f"{g.threads} thread cells per domain (max 1024)"
    if g.hits < 1 or g.hits >= 1 << 25:  # call numbers must fit into 24 bits
        return "t_async", g.t_async, f"gives {g.hits} attempts per worker and phase"
    return None


@numba.njit(cache=True)
def round_origin_and_order(t, r, sample, k0, k1, L, dev, order):
    """Origin (ox, oy) of round r of MCS t; fills ``order`` with the set sequence."""
    r0, r1, r2, r3 = philox4x32(r, t, sample, np.uint32(STREAM_DEVICE << 24), k0, k1)
    m = np.uint32(L - 1)
    ox = r0 & m
    oy = r1 & m
    if dev == 0:  # DT: fixed origin
        ox = np.uint32(0)
        oy = np.uint32(0)
    elif dev == 3:  # cDB: coarse grid of 4 x 4 sites
        ox &= ~np.uint32(3)
        oy &= ~np.uint32(3)
    for i in range(4):
        order[i] = i
    draws = (r2 & np.uint32(0xFFFF), r2 >> np.uint32(16), r3 & np.uint32(0xFFFF))
    for n in range(3):
        i = 3 - n
        j = (np.uint32(draws[n]) * np.uint32(i + 1)) >> np.uint32(16)
        order[i], order[j] = order[j], order[i]
    return np.int64(ox), np.int64(oy)


@numba.njit(cache=True)
def round_table(t0, n_steps, rounds, samples, sample0, k0, k1, L, dev):
    """Origins and set orders of MCS t0 .. t0 + n_steps for samples sample0 ...

    Returns ox, oy of shape (n_steps, rounds, samples) and order of shape
    (n_steps, rounds, 4, samples), as int32: what a GPU launch per phase reads.
    """
    ox = np.empty((n_steps, rounds, samples), dtype=np.int32)
    oy = np.empty((n_steps, rounds, samples), dtype=np.int32)
    order = np.empty((n_steps, rounds, 4, samples), dtype=np.int32)
    tmp = np.empty(4, dtype=np.int64)
    for i in range(n_steps):
        for r in range(rounds):
            for s in range(samples):
                x, y = round_origin_and_order(t0 + i, r, sample0 + s, k0, k1, L, dev, tmp)
                ox[i, r, s] = x
                oy[i, r, s] = y
                for k in range(4):
                    order[i, r, k, s] = tmp[k]
    return ox, oy, order
