"""Lattice KMC of a binary alloy on the fcc lattice (kelling2012 secs. 2.2, 3.2).

Conventions (fixed here for every schedule, CPU and GPU):

Lattice
    The fcc lattice is the sublattice of an L x L x L simple cubic lattice (L even,
    periodic) with (x xor y xor z) & 1 == 0 (eq. 7): N = L^3 / 2 sites, each with the 12
    neighbours (+-1, +-1, 0), (+-1, 0, +-1), (0, +-1, +-1).  In a row (y, z) the sites have
    x = 2 k + ((y + z) & 1), k = 0 .. L/2 - 1; site s = (z L + y) L/2 + k.

Encoding
    One bit per site, species A = 0, B = 1, packed along k into uint64 words: row (y, z)
    holds W = ceil(L / 128) words, bit k & 63 of word k >> 6 (unused high bits stay 0).

Dynamics (eq. 8, Gamma = 1)
    One attempt picks a site i and one of its 12 neighbours f.  If the B particle of the
    pair can move (the pair holds one A and one B), n_b counts the B neighbours of the
    B site and n_a those of the A site, without the B site itself; the exchange is
    accepted with probability 1 if n_a >= n_b, else exp(-(n_b - n_a) epsilon).  With
    species B active only (the physics; ``both = False``) an attempt whose i holds A ends
    at once; with both species active (the paper's GPU code, ``both = True``) i and f
    simply change roles when i holds A.  Either satisfies detailed balance for
    p(config) ~ exp(epsilon x (number of B-B bonds)); the second proposes each pair twice
    as often.  1 MCS = N attempts.

Random numbers
    Attempt a of MCS t of sample j: Philox4x32-10, key = the job seed, counter
    (a, t, j, STREAM_FCC << 24); word 0 picks the site ((r0 N) >> 32), word 1 the
    direction ((r1 12) >> 32), word 2 is the acceptance uniform (r2 < T[n_b - n_a], an
    integer threshold T[d] = round(2^32 exp(-d epsilon))).

Parallel schedules (every one has a CPU twin that gives the same lattice bit for bit)

Both decomposed schedules need both species active.  With only B active a B particle can
leave the region being updated (a cell, block or slab) but cannot come back while that
region is updated, since the site it went to is not picked: the equilibrium is biased
(measured: 9 % too few moves at epsilon = 0 in slabs of 8 planes, a pair bond probability
6 sigma off; tests/test_fcc_slabs.py keeps that as an expected failure).  With both
species active every pair that can be proposed is proposed from the same active end
in both directions, so each phase keeps the Boltzmann distribution.

``dt``: two-layer double tiling (sec. 3.2; the GPU kernel, and on the CPU the
    cache-blocked CPU DD on one core or on all cores).  Blocks are cubes of side b (sc
    units; b a power of two >= 8, L a multiple of 2 b); block (bx, by, bz) has origin
    b (bx, by, bz) and set sigma = (bx & 1) | (by & 1) << 1 | (bz & 1) << 2.  MCS t runs
    the eight sets in the order p_t, a permutation of 0 .. 7: words w[0..7] = Philox
    counters (0, t, sample, STREAM_FCC_ORDER << 24) and (1, ...), p = identity, then for
    i = 7 .. 1: j = (w[i] (i + 1)) >> 32, swap p[i], p[j].  Every block of the active set
    is fully updated: H = 256 single-hit rounds of its thread cells.  A block is cut into
    cell groups of 8 x 8 x 8 (thread j = (gz b/8 + gy) b/8 + gx), each of 2 x 2 x 2 cells of
    4 x 4 x 4 (32 fcc sites).  Hit h picks one cell set s for the whole block: word h & 3
    of Philox (block id, t, sample, STREAM_FCC_SET << 24 | h >> 2), s = word >> 29, block id
    = (bz nb + by) nb + bx with nb = L / b; the cell of set s in group g has origin
    group origin + 4 (s & 1, s >> 1 & 1, s >> 2 & 1).  The thread's attempt: Philox
    (global group id, t, sample, STREAM_FCC_DT << 24 | h), global group id =
    (Z L/8 + Y) L/8 + X of the group's origin / 8; word 0 picks the site (kl = r0 >> 31,
    ly = r0 >> 29 & 3, lz = r0 >> 27 & 3: y = cell y + ly, z = cell z + lz,
    x = cell x + 2 kl + ((y + z) & 1)), words 1 and 2 the direction and the uniform as
    above.  An attempt writes within 1 and reads within 2 sites of its cell, so cells of one
    set (4 apart) and blocks of one set (b apart) never touch the same site: a hit or a
    set gives the same lattice in any order.  256 hits x b^3 / 512 threads = b^3 / 2
    attempts per block, N per MCS.

``slabs``: one-dimensional dead border along z (the paper's MPI code; on the CPU a slab
    per core).  P slabs of Lz = L / P planes (Lz >= 8).  MCS t is one round with origin
    o = (r0 Lz) >> 32 of Philox (0, t, sample, STREAM_FCC_SLAB_ORIGIN << 24): slab r
    holds planes (o + r Lz + i) mod L, i = 0 .. Lz - 1, of which i = 2 .. Lz - 3 are
    active (a dead border of 2 planes on each side keeps every read and write of an
    attempt inside its slab).  Slab r makes Lz L^2 / 2 attempts (N / P): attempt a uses
    Philox (a, t, sample, STREAM_FCC_SLAB << 24 | r), word 0 picks an active site
    (s = (r0 n) >> 32, n = (Lz - 4) L^2 / 2; k = s mod L/2, y = s / (L/2) mod L,
    i = 2 + s / (L^2 / 2), z = (o + r Lz + i) mod L, x = 2 k + ((y + z) & 1)), words 1 and 2
    as above.
"""

#: Largest side of the z = 0 plane kept in the run file (its top-left corner): the job
#: writes it, the spec counts its bytes.
SLICE = 256
