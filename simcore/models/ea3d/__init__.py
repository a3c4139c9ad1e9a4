"""3D Edwards-Anderson +-J spin glass with asynchronous multispin coding (lulli2015).

Conventions, fixed here once for the CPU kernels, the GPU kernels and the tests:

Lattice
    Periodic L^3, L even; site (x, y, z) has the physical index p = x + L (y + L z) and
    the colour c = (x + y + z) & 1 (0 "red", 1 "blue"); every neighbour of a site has
    the other colour.  A sweep updates all red sites, then all blue ones.

Samples and words (asynchronous multispin coding)
    Bit b of coded word w holds disorder sample s = 64 w + b; a job of ``samples`` =
    64 k samples has k words per site.  Every sample has its own couplings; the four
    replicas a = 0..3 of a sample share them and start from different random spins.
    Spin bit 1 means sigma = +1; coupling bit 1 means J = -1.

Layouts
    A layout orders the V/2 sites of each colour in memory (index j):
    ``standard``  j = p >> 1 (the checkerboard of lulli2015 sec. 2);
    ``sliced``    x' = x, y' = y - x, z' = x - y + z (mod L); a z' plane has one colour
                  (z' & 1) and j = x' + L (y' + L (z' >> 1))  (lulli2015 eq. 4);
    ``bitwise``   the standard order, for L = 2^l, with shifts and masks for the index
                  arithmetic (it differs from ``standard`` only inside GPU kernels).
    Arrays: spins ``S[a, c, w, j]`` (uint64, shape (4, 2, k, V/2)); couplings
    ``J[c, d, w, j]`` (uint64, shape (2, 6, k, V/2)), the bond from site (c, j) in
    direction d = 0..5 (+x, -x, +y, -y, +z, -z): every bond is stored at both ends so a
    colour's update reads its six couplings contiguously.

Random numbers (Philox4x32-10, key = the job seed, see :mod:`simcore.rng`), all keyed by
the *physical* site, so every layout and every device draws the same numbers:
    couplings   bond (p, axis e) joining p and p + e (e = 0, 1, 2 for x, y, z), word w:
                counter (p, w, e, STREAM_EA_COUPLINGS); outputs 0 | 1 << 32 = the word;
    start spins replica a, site p, word w: counter (p, w, a, STREAM_EA_SPINS), same;
    Metropolis  sweep t (0-based), colour c, site p, word w: counter
                (p, w, t, STREAM_EA_METROPOLIS << 24 | c); output a is the uint32 R of
                replica a: **one random number per word and update** (lulli2015 sec. 4).
    A flip with energy change dE > 0 is accepted when R < T_dE = round(2^32 e^{-dE/T}).
    All 64 samples of a word compare the same R: samples with the same dE at that site
    and time accept or reject together.  Their couplings differ, so dE differs between
    samples most of the time, but the samples of one word are not independent; the
    paper accepts this correlation for out-of-equilibrium relaxation, and the analysis
    treats the 64 samples of a word as one jackknife block when that matters.
"""
