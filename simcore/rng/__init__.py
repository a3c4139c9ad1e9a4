"""Counter-based random numbers: Philox4x32-10 (Salmon et al., SC'11).

Every random number in simcore is a pure function of a 64-bit key and a
128-bit counter, so any split of the work over threads, blocks, GPUs or
resumed runs draws exactly the same numbers.  The conventions are fixed
here, once, for every model and schedule:

key      (k0, k1) = (seed & 0xFFFFFFFF, seed >> 32)
             the job's 64-bit seed (see :mod:`simcore.seeding`).
counter  (c0, c1, c2, c3) = (index, step, sample, stream)
             index   the site, worker or attempt number inside the step
             step    the Monte Carlo step (MCS) or sub-step counter
             sample  the sample index inside the job (0 .. samples-1)
             stream  what the numbers are for (a tag of the one table,
                     :mod:`simcore.rng.streams`, in the high byte) and the draw
                     number inside that purpose (low 24 bits); schedules that
                     need several sub-steps per MCS put the sub-step there too.

One call returns four independent uint32 words.  The functions below are
plain numba ``njit`` code on uint32/uint64 scalars with no allocation, so the
same source compiles for the CPU and with ``numba.cuda.jit(device=True)`` for
the GPU.
"""

from simcore.rng.philox import philox4x32, philox4x32_rounds, stream_tag, uniform_threshold
from simcore.rng.streams import STREAM_SEQUENTIAL

__all__ = [
    "STREAM_SEQUENTIAL",
    "philox4x32",
    "philox4x32_rounds",
    "stream_tag",
    "uniform_threshold",
]
