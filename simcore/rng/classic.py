"""Classic stateful generators for the 3D Edwards-Anderson model (Lulli et al. 2015, sec. 3).

Besides the counter-based Philox4x32-10 (:mod:`simcore.rng.philox`), the spin-glass
engine offers the three generators the paper compares, as batteries of G independent
generators that a kernel advances one draw at a time:

``minstd``   Lehmer / Park-Miller MINSTD, R <- 16807 R mod (2^31 - 1); the output is the
             new state, in [1, 2^31 - 2].  The fast baseline of the paper.
``pr64``     Parisi-Rapuano lagged Fibonacci generator summed with a 64-bit LCG, the
             combination Ballesteros & Martin-Mayor (PRE 58, 6787) found safe for
             long parallel runs.  Exact definition: :func:`pr64_next`.
``mt19937``  Mersenne Twister MT19937 (Matsumoto & Nishimura 1998), one full generator per
             g, the standard output sequence (tempering included).

State layout, identical for numba (here) and CUDA (``cuda/classic_prng.cuh``), so a CPU
kernel and a GPU kernel drawing from generator g in the same order get the same bits:

``state``  uint32, shape (n_words, G), C order: word m of generator g is ``state[m, g]``,
           flat index m*G + g ("strided state": at a given m, consecutive generators are
           consecutive addresses, so the loads of a warp are coalesced).
           n_words = :data:`N_WORDS` [kind]: minstd 1; pr64 62 ring words + the ring
           position; mt19937 624 words + the position.
``aux``    uint64, shape (G,): the 64-bit LCG of pr64; present, and zero, for the others.

Seeding (:func:`init_state`): generator g of a job with 64-bit seed ``seed`` is seeded from
Philox4x32-10 words with key (seed & 0xFFFFFFFF, seed >> 32) and counters
(g, 0, 0, stream_tag(STREAM_PRNG_SEED, d)), d = 0, 1, ... ; word j of draw d is seed word
4 d + j.  The seed of generator g depends only on (seed, g) (and, for the rare redraw of a
32-bit seed already taken, on the generators before g), never on G, so a job can grow its
battery without changing the streams it already had.
"""

from __future__ import annotations

import numba
import numpy as np

from simcore.rng.philox import philox4x32, stream_tag
from simcore.rng.streams import STREAM_PRNG_SEED
from simcore.seeding import philox_key

#: The generators an EA3D run can use; philox (counter based, no state) is the default.
PRNGS = ("philox", "minstd", "pr64", "mt19937")

#: State words per generator, by kind (rows of ``state``).
N_WORDS = {"minstd": 1, "pr64": 63, "mt19937": 625}

# ---------------------------------------------------------------------------- constants
MINSTD_A = np.uint64(16807)
#: MINSTD modulus 2^31 - 1 (a Mersenne prime); the states are 1 .. MINSTD_M - 1.
MINSTD_M = 2147483647
_M31 = np.uint64(MINSTD_M)
_S31 = np.uint64(31)

PR64_RING = 62
#: Multiplier and increment of the 64-bit LCG of pr64 (Knuth's MMIX constants: full period).
PR64_LCG_A = 6364136223846793005
PR64_LCG_C = 1442695040888963407
_LCG_A = np.uint64(PR64_LCG_A)
_LCG_C = np.uint64(PR64_LCG_C)
_S32 = np.uint64(32)

MT_N = 624
_MT_MATRIX_A = np.uint64(0x9908B0DF)
_MT_UPPER = np.uint64(0x80000000)
_MT_LOWER = np.uint64(0x7FFFFFFF)
_MT_B = np.uint64(0x9D2C5680)
_MT_C = np.uint64(0xEFC60000)
_ONE = np.uint64(1)
_U11 = np.uint64(11)
_U7 = np.uint64(7)
_U15 = np.uint64(15)
_U18 = np.uint64(18)


# ---------------------------------------------------------------------------- generators
@numba.njit(inline="always", cache=True)
def minstd_next(state: np.ndarray, aux: np.ndarray, g: int) -> np.uint32:
    """Advance MINSTD generator g: R <- 16807 R mod (2^31 - 1); return the new R.

    The reduction folds the bits above bit 31 back in (2^31 = 1 mod 2^31 - 1), so no
    division and no branch; the result is exactly the modular product (the state never
    reaches 0 or 2^31 - 1), as on the GPU, where the same value comes from 32-bit
    arithmetic only (Carta's method).
    """
    x = np.uint64(state[0, g]) * MINSTD_A  # < 2^46
    x = (x & _M31) + (x >> _S31)  # < 2^31 + 2^15
    x = (x & _M31) + (x >> _S31)  # in [1, 2^31 - 2]
    r = np.uint32(x)
    state[0, g] = r
    return r


@numba.njit(inline="always", cache=True)
def pr64_next(state: np.ndarray, aux: np.ndarray, g: int) -> np.uint32:
    """Advance pr64 generator g by one draw and return it.

    Definition.  The Parisi-Rapuano sequence x_n (uint32) obeys
    x_n = x_{n-24} + x_{n-55} mod 2^32 and gives r_n = x_n XOR x_{n-61}; the LCG gives
    z_n = A z_{n-1} + C mod 2^64 (A = 6364136223846793005, C = 1442695040888963407).  Draw
    number n returns (r_n + (z_n >> 32)) mod 2^32: the XOR of the lagged Fibonacci words,
    summed with the high half of the LCG, which repairs the known failures of the 32-bit
    Parisi-Rapuano generator alone (Ballesteros & Martin-Mayor 1998).

    State.  Only x_{n-62} .. x_{n-1} are needed (lag 61 plus the word being replaced), so the
    ring has 62 words: ``state[k, g]`` holds x_j for j = k mod 62, and ``state[62, g]`` the
    position p = n mod 62 of the next word to write (x_{n-62} sits there).  ``aux[g]`` is
    z_{n-1}.  The fresh ring of :func:`init_state` holds x_0 .. x_61 with p = 0.
    """
    p = np.int64(state[62, g])
    i24 = p + 38  # n - 24 = n + 38 (mod 62)
    if i24 >= 62:
        i24 -= 62
    i55 = p + 7  # n - 55
    if i55 >= 62:
        i55 -= 62
    i61 = p + 1  # n - 61, also the next position
    if i61 == 62:
        i61 = 0
    x = np.uint32(np.uint64(state[i24, g]) + np.uint64(state[i55, g]))
    r = np.uint64(x ^ state[i61, g])
    state[p, g] = x
    state[62, g] = np.uint32(i61)
    z = aux[g] * _LCG_A + _LCG_C
    aux[g] = z
    return np.uint32(r + (z >> _S32))


@numba.njit(inline="always", cache=True)
def mt19937_next(state: np.ndarray, aux: np.ndarray, g: int) -> np.uint32:
    """Advance MT19937 generator g by one draw and return it (the standard output sequence).

    Each draw replaces one word, x_{k+624} = x_{k+397} XOR twist(x_k, x_{k+1}), and returns
    it tempered: the same words, in the same order, as the reference implementation's
    624-word regeneration, without its burst of work every 624 draws (which would stall a
    GPU warp).  ``state[624, g]`` is the index i of the word to replace next; after
    :func:`mt19937_from_seeds` (init_genrand) it is 0.
    """
    i = np.int64(state[624, g])
    i1 = i + 1
    if i1 == 624:
        i1 = 0
    im = i + 397
    if im >= 624:
        im -= 624
    y = (np.uint64(state[i, g]) & _MT_UPPER) | (np.uint64(state[i1, g]) & _MT_LOWER)
    x = np.uint64(state[im, g]) ^ (y >> _ONE) ^ ((y & _ONE) * _MT_MATRIX_A)
    state[i, g] = np.uint32(x)
    state[624, g] = np.uint32(i1)
    x ^= x >> _U11
    x ^= (x << _U7) & _MT_B
    x ^= (x << _U15) & _MT_C
    x ^= x >> _U18
    return np.uint32(x)


#: The one-draw functions by kind, all ``next_u32(state, aux, g) -> np.uint32``.
NEXT_U32 = {"minstd": minstd_next, "pr64": pr64_next, "mt19937": mt19937_next}
_CODE = {"minstd": 1, "pr64": 2, "mt19937": 3}


@numba.njit(cache=True)
def _draw_block(code, state, aux, g0, g1, n):
    out = np.empty((n, g1 - g0), dtype=np.uint32)
    for g in range(g0, g1):
        for k in range(n):
            if code == 1:
                v = minstd_next(state, aux, g)
            elif code == 2:
                v = pr64_next(state, aux, g)
            else:
                v = mt19937_next(state, aux, g)
            out[k, g - g0] = v
    return out


def _check(kind: str, state: np.ndarray, aux: np.ndarray) -> None:
    if kind not in N_WORDS:
        raise ValueError(f"unknown stateful generator {kind!r} (one of {tuple(N_WORDS)})")
    if state.dtype != np.uint32 or state.ndim != 2 or state.shape[0] != N_WORDS[kind]:
        raise ValueError(f"{kind} state must be uint32 of shape ({N_WORDS[kind]}, G)")
    if aux.dtype != np.uint64 or aux.shape != (state.shape[1],):
        raise ValueError("aux must be uint64 of shape (G,)")


def draw(kind: str, state: np.ndarray, aux: np.ndarray, g: int, n: int) -> np.ndarray:
    """The next ``n`` outputs (uint32) of generator ``g``; advances it in place."""
    _check(kind, state, aux)
    if not 0 <= g < state.shape[1]:
        raise IndexError(f"generator {g} not in 0..{state.shape[1] - 1}")
    return _draw_block(_CODE[kind], state, aux, g, g + 1, n)[:, 0]


def draw_all(kind: str, state: np.ndarray, aux: np.ndarray, n: int) -> np.ndarray:
    """The next ``n`` outputs of every generator, shape (n, G); the CPU twin of ``draw_gpu``."""
    _check(kind, state, aux)
    return _draw_block(_CODE[kind], state, aux, 0, state.shape[1], n)


# ---------------------------------------------------------------------------- seeding
def _key(seed: int) -> tuple[int, int]:
    if not 0 <= seed < (1 << 64):
        raise ValueError(f"seed {seed} is not a 64-bit unsigned integer")
    return philox_key(seed)


@numba.njit(cache=True)
def _philox_words(k0, k1, g0, G, tag, calls):
    out = np.empty((4 * calls, G), dtype=np.uint32)
    for g in range(G):
        for d in range(calls):
            r0, r1, r2, r3 = philox4x32(g0 + g, 0, 0, tag + d, k0, k1)
            out[4 * d, g] = r0
            out[4 * d + 1, g] = r1
            out[4 * d + 2, g] = r2
            out[4 * d + 3, g] = r3
    return out


@numba.njit(cache=True)
def _distinct(k0, k1, G, tag, offset, span):
    out = np.empty(G, dtype=np.int64)
    taken = set()
    for g in range(G):
        d = 0
        while True:
            w = philox4x32(g, 0, 0, tag + d, k0, k1)[0]
            v = offset + np.int64(w) % span
            if v not in taken:
                break
            d += 1
        taken.add(v)
        out[g] = v
    return out


def seed_words(seed: int, G: int, n: int) -> np.ndarray:
    """The first ``n`` Philox seed words of every generator, shape (n, G), uint32 (see module)."""
    k0, k1 = _key(seed)
    calls = (n + 3) // 4
    return _philox_words(k0, k1, 0, G, stream_tag(STREAM_PRNG_SEED), calls)[:n]


def distinct_seeds(seed: int, G: int, span: int = 1 << 32, offset: int = 0) -> np.ndarray:
    """One distinct seed per generator, ``offset + w % span`` for a Philox word w (int64).

    Generator g takes word 0 of draw d = 0; if an earlier generator already has that value
    it takes word 0 of draw d = 1, 2, ...  Identical 32-bit seeds would give identical
    streams, and with G ~ 10^5 generators a few collisions of 32-bit words are expected.
    """
    if G > span:
        raise ValueError(f"{G} generators cannot have distinct seeds among {span} values")
    k0, k1 = _key(seed)
    return _distinct(k0, k1, G, stream_tag(STREAM_PRNG_SEED), offset, span)


def minstd_from_states(states) -> tuple[np.ndarray, np.ndarray]:
    """MINSTD generators with the given states (each in [1, 2^31 - 2]), e.g. [1] for Park-Miller."""
    s = np.asarray(states, dtype=np.int64).reshape(-1)
    if np.any((s < 1) | (s >= MINSTD_M)):
        raise ValueError("MINSTD states must lie in [1, 2^31 - 2]")
    return s.astype(np.uint32).reshape(1, -1).copy(), np.zeros(s.size, dtype=np.uint64)


def mt19937_from_seeds(seeds) -> tuple[np.ndarray, np.ndarray]:
    """MT19937 generators seeded with the reference init_genrand(s), one per 32-bit seed.

    ``mt19937_from_seeds([5489])`` is the default-seeded reference generator (std::mt19937).
    """
    s = np.asarray(seeds, dtype=np.int64).reshape(-1)
    if np.any((s < 0) | (s >= (1 << 32))):
        raise ValueError("MT19937 seeds must be 32-bit unsigned integers")
    state = np.empty((N_WORDS["mt19937"], s.size), dtype=np.uint32)
    state[0] = s.astype(np.uint32)
    mult = np.uint32(1812433253)
    for i in range(1, MT_N):  # row by row: contiguous, vectorised over the generators
        prev = state[i - 1]
        state[i] = mult * (prev ^ (prev >> np.uint32(30))) + np.uint32(i)  # wraps mod 2^32
    state[MT_N] = 0
    return state, np.zeros(s.size, dtype=np.uint64)


def pr64_from_words(ring, lcg) -> tuple[np.ndarray, np.ndarray]:
    """pr64 generators from their first 62 Parisi-Rapuano words x_0..x_61 (shape (62, G))
    and their LCG states z_0 (shape (G,)); the ring position starts at 0.

    The additive recursion has its full period only if one of the 55 words it starts from,
    x_7 .. x_61, is odd; all-even rings are refused.
    """
    ring = np.asarray(ring, dtype=np.uint32)
    lcg = np.asarray(lcg, dtype=np.uint64).reshape(-1)
    if ring.ndim != 2 or ring.shape[0] != PR64_RING or ring.shape[1] != lcg.size:
        raise ValueError("ring must have shape (62, G) and lcg shape (G,)")
    if np.any(np.all(ring[7:] & np.uint32(1) == 0, axis=0)):
        raise ValueError("a pr64 ring needs an odd word among x_7 .. x_61")
    state = np.zeros((N_WORDS["pr64"], ring.shape[1]), dtype=np.uint32)
    state[:PR64_RING] = ring
    return state, lcg.copy()


def init_state(kind: str, seed: int, G: int) -> tuple[np.ndarray, np.ndarray]:
    """Fresh (state, aux) for G generators of ``kind`` from a job's 64-bit seed.

    minstd   state = 1 + w mod (2^31 - 2), distinct over g (:func:`distinct_seeds`).
    pr64     ring x_0..x_61 = seed words 0..61, LCG z_0 = word 62 + 2^32 word 63; if all of
             x_7..x_61 are even (probability 2^-55) word 7 is made odd.
    mt19937  init_genrand(s), s = a 32-bit seed word, distinct over g.
    """
    if kind == "philox":
        raise ValueError("philox is counter based and has no state")
    if kind not in N_WORDS:
        raise ValueError(f"unknown generator {kind!r} (one of {PRNGS})")
    if G < 1:
        raise ValueError(f"need at least one generator, got G = {G}")
    if kind == "minstd":
        return minstd_from_states(distinct_seeds(seed, G, MINSTD_M - 1, 1))
    if kind == "mt19937":
        return mt19937_from_seeds(distinct_seeds(seed, G))
    words = seed_words(seed, G, 64)
    ring = words[:PR64_RING].copy()
    even = np.all(ring[7:] & np.uint32(1) == 0, axis=0)
    ring[7, even] |= np.uint32(1)
    lcg = words[62].astype(np.uint64) | (words[63].astype(np.uint64) << np.uint64(32))
    return pr64_from_words(ring, lcg)
