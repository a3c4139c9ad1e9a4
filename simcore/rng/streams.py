"""Every stream tag of simcore, in one table: the high byte of Philox counter word c3 says
what a random number is for (:mod:`simcore.rng`), so two purposes never share a number.

Tags are allocated here and nowhere else (a test checks that they are distinct and that
the CUDA sources use these names, passed to them as ``-DSTREAM_<NAME>`` by
:func:`simcore.backends.cuda.compile_options`).  Blocks: 0x01-0x0f KPZ, 0x10-0x1f the
stateful generators' seeding, 0x20-0x2f EA3D, 0x30-0x3f exact 2D KMC, 0x40-0x4f the fcc
alloy; 0x80-0xff are left to models of other packages (they choose their own tags there).
"""

from __future__ import annotations

#: name -> tag (high byte of counter word c3).
STREAMS: dict[str, int] = {
    "SEQUENTIAL": 0x01,  # kpz: random-sequential site selection
    "DEVICE": 0x02,  # kpz DD: round origin and set order
    "BLOCKSET": 0x03,  # kpz DD: block-layer sub-cell of a hit
    "THREAD": 0x04,  # kpz DD: thread draws of the block layer
    "DOMAIN": 0x05,  # kpz DD: one-worker domains
    "PRNG_SEED": 0x10,  # seeds of the stateful generators (simcore.rng.classic)
    "EA_COUPLINGS": 0x20,  # ea3d: couplings
    "EA_SPINS": 0x21,  # ea3d: start spins
    "EA_METROPOLIS": 0x22,  # ea3d: Metropolis numbers
    "EA_PT_SPINS": 0x23,  # ea3d_pt: start spins of the temperature slots
    "EA_PT_METROPOLIS": 0x24,  # ea3d_pt: Metropolis numbers
    "EA_PT_EXCHANGE": 0x25,  # ea3d_pt: replica-exchange decisions
    "KMC": 0x30,  # kmc2d: a cell's waiting times (keyed by its draw count)
    "BKL": 0x31,  # kmc2d: BKL steps
    "FCC_INIT": 0x40,  # fcc: the random mixture
    "FCC": 0x41,  # fcc: random-sequential attempts
    "FCC_ORDER": 0x42,  # fcc dt: order of the block sets
    "FCC_SET": 0x43,  # fcc dt: cell sets of a block
    "FCC_DT": 0x44,  # fcc dt: cell-group draws
    "FCC_SLAB_ORIGIN": 0x45,  # fcc slabs: origin of the slabs
    "FCC_SLAB": 0x46,  # fcc slabs: attempts in a slab
}

STREAM_SEQUENTIAL = STREAMS["SEQUENTIAL"]
STREAM_DEVICE = STREAMS["DEVICE"]
STREAM_BLOCKSET = STREAMS["BLOCKSET"]
STREAM_THREAD = STREAMS["THREAD"]
STREAM_DOMAIN = STREAMS["DOMAIN"]
STREAM_PRNG_SEED = STREAMS["PRNG_SEED"]
STREAM_EA_COUPLINGS = STREAMS["EA_COUPLINGS"]
STREAM_EA_SPINS = STREAMS["EA_SPINS"]
STREAM_EA_METROPOLIS = STREAMS["EA_METROPOLIS"]
STREAM_EA_PT_SPINS = STREAMS["EA_PT_SPINS"]
STREAM_EA_PT_METROPOLIS = STREAMS["EA_PT_METROPOLIS"]
STREAM_EA_PT_EXCHANGE = STREAMS["EA_PT_EXCHANGE"]
STREAM_KMC = STREAMS["KMC"]
STREAM_BKL = STREAMS["BKL"]
STREAM_FCC_INIT = STREAMS["FCC_INIT"]
STREAM_FCC = STREAMS["FCC"]
STREAM_FCC_ORDER = STREAMS["FCC_ORDER"]
STREAM_FCC_SET = STREAMS["FCC_SET"]
STREAM_FCC_DT = STREAMS["FCC_DT"]
STREAM_FCC_SLAB_ORIGIN = STREAMS["FCC_SLAB_ORIGIN"]
STREAM_FCC_SLAB = STREAMS["FCC_SLAB"]


def cuda_defines() -> tuple[str, ...]:
    """``-DSTREAM_<NAME>=0x..u`` for every tag, for the CUDA compilers."""
    return tuple(f"-DSTREAM_{name}={tag:#04x}u" for name, tag in STREAMS.items())
