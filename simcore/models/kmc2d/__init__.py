"""Exact 2D kinetic Monte Carlo with the waiting-time method (darkins2024), in progress.

Conventions (fixed here for the serial integrator, the tile algorithm and its GPU twin):

Lattice
    n x m cells, periodic; cell (i, j), row i, column j, index c = i m + j.  State x[i, j]
    (int32): the surface height (SOS model) or the spin +-1 (Ising).

Rates
    A rate model gives the total rate A(i, j) of a cell from its 3 x 3 neighbourhood and
    the new state of the cell when its event fires (:mod:`.rates`).

Waiting times and random numbers
    tau[i, j] is the time of the cell's next event if nothing around it changes.  Every
    draw for cell c is Philox4x32-10 with key = the job seed and counter
    (c, k, 0, STREAM_KMC << 24), where k = cnt[c] is the number of draws the cell has made
    so far (then cnt[c] += 1): a per-cell stream that needs no generator state, and that
    every copy of the cell (the ghost copies of the tile algorithm too) draws alike.
    u = (53 top bits of outputs 0 and 1 + 1) / 2^53 in (0, 1]; tau = t - ln(u) / A
    (infinity when A = 0).
    At t = 0 every cell draws once.  When cell c fires at time tau[c]: t = tau[c], x[c]
    takes its new state, and the 9 cells of c's neighbourhood draw new waiting times in
    row-major order (rows i-1, i, i+1; columns j-1, j, j+1): exact, since waiting times
    are memoryless.  The next cell to fire is the one with the smallest tau; ties go to
    the smaller index.
"""
