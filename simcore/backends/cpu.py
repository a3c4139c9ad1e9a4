"""What CPU jobs share: where their state lives (:class:`OnCPU`), and helpers for numba
kernels: a cache prefetch hint and a popcount."""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic


@intrinsic
def prefetch(typingctx, arr, idx):
    """Hint the cache to fetch ``arr[idx]`` for writing; no effect on results.

    Random-sequential updates are bound by memory latency once the lattice
    leaves the cache; prefetching a batch of future sites overlaps the misses.
    """
    sig = types.void(arr, idx)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]])
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(1), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


@numba.njit(inline="always", cache=True)
def popcount32(v):
    """Number of set bits of a uint32."""
    v = np.uint32(v)
    v = v - ((v >> np.uint32(1)) & np.uint32(0x55555555))
    v = (v & np.uint32(0x33333333)) + ((v >> np.uint32(2)) & np.uint32(0x33333333))
    v = (v + (v >> np.uint32(4))) & np.uint32(0x0F0F0F0F)
    return np.int64(np.uint32(v * np.uint32(0x01010101)) >> np.uint32(24))


class OnCPU:
    """Mixin of a model's CPU job: its state is host arrays already, so a checkpoint takes
    it as it is, and the device for provenance is the CPU (``None``).  The GPU subclass
    puts :class:`simcore.backends.cuda.OnGPU` first and overrides where the state lives."""

    #: Update attempts one step of a job may do at most, where its model bounds its steps
    #: (:func:`simcore.sampling.bounded_step_end`): seconds on a few cores.
    STEP_ATTEMPTS: int = 2**30

    def to_host(self, st: dict) -> dict:
        """The state as host arrays (it is one)."""
        return st

    def from_host(self, st: dict) -> dict:
        """The state of a checkpoint, ready to step."""
        return st

    def device_name(self) -> str | None:
        """The CPU: None (provenance names the CPU model)."""
        return None
