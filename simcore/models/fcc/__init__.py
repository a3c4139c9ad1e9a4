"""Lattice KMC of a binary alloy on the fcc lattice (kelling2012 secs. 2.2, 3.2), in progress.

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
"""
