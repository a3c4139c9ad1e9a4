"""1D random deposition (RD): particles fall on uniformly random columns of a ring of L
columns and stick.  Its surface width is known exactly, W^2(t) = t (1 - 1/L) for t in
MCS (L depositions), which makes it the test model of simcore's model interface."""
