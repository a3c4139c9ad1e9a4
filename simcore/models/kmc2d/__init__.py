"""Exact 2D kinetic Monte Carlo with the waiting-time method (darkins2024).

Conventions (fixed here for the serial integrator, the tile algorithm and its GPU twin):

Lattice
    L x L cells, periodic; cell (i, j), row i, column j, global index g = i L + j.
    State x[i, j] (int32): the surface height (SOS model) or the spin +-1 (Ising).

Rates
    A rate model gives the class of a cell from its 3 x 3 neighbourhood and the new
    state of a cell when its event fires; the total rate A of each class is a table
    computed once on the host (:mod:`.rates`).

Waiting times and random numbers
    tau[i, j] is the time of the cell's next event if nothing around it changes.  Every
    draw of cell g is Philox4x32-10 with key = the job seed and counter
    (g, k, sample, STREAM_KMC << 24), k = cnt[g] the number of draws the cell made so far
    (then cnt[g] += 1): a per-cell stream that needs no generator state, and that every
    copy of the cell (the ghost copies of the tile algorithm too) draws alike.  The
    draw is the Exp(1) variate E of :mod:`simcore.rng.exponential` (outputs 0 and 1), and
    tau = t + E / A (infinity, and no draw, when A = 0).
    At t = 0 every cell draws once.  When cell g fires at time tau[g]: t = tau[g], x[g]
    takes its new state and draws a new waiting time; each of its 8 neighbours whose
    class changed to one of another rate keeps its residual waiting time rescaled,
    tau = t + (tau - t) A_old / A_new (exact: residual exponential times are memoryless;
    a neighbour leaving a rate-0 class draws).  The next cell to fire is the one with
    the smallest tau; ties go to the smaller global index.

Modules: :mod:`.rates` (models), :mod:`.events` (the event rule and the next-event tree,
shared by every schedule), :mod:`.serial` (whole lattice), :mod:`.tiles` (the tile
algorithm on the CPU), :mod:`.gpu` (its CUDA twin), :mod:`.bkl` (BKL, the serial speed
reference and the CPU default, samples in parallel over the cores), :mod:`.bench`
(events per second).
"""

#: Side of the corner of the lattice kept as a snapshot at t_max: the job writes it, the
#: spec counts its bytes.
SNAPSHOT = 128
