"""Octahedron model (d = 2) and single-step / roof-top model (d = 1) of KPZ growth.

The surface is stored as its slopes: a lattice gas with one bit per site and
direction (1 = up slope, +1; 0 = down slope, -1).  See :mod:`.lattice` for the
bit layout, :mod:`.rule` for the update rule and :mod:`.observables` for the
heights, W^2 and the autocorrelations.
"""
