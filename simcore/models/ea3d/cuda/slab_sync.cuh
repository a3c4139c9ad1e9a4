// Device-side signalling of the multi-GPU EA3D exchange (simcore/models/ea3d/slab.py),
// shared by the one-thread flag kernels (slab_flags.cu) and the fused colour kernel
// (ea3d_amsc.cu with SLAB).  A flag holds the sweeps whose plane has arrived; flags only
// grow, so they need no reset between sweeps.
#pragma once

typedef unsigned long long u64;

__device__ __forceinline__ u64 wall_ns() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// The value a flag kernel uses: its argument, plus, where count is not null, the sweep
// count in device memory (so that a captured CUDA graph runs at any count).
__device__ __forceinline__ int flag_value(int value, const int *count) {
  return count ? *(const volatile int *)count + value : value;
}

// Spin until *flag >= value (a system-scope acquire: what the setter wrote before it is
// visible after); past timeout_ns of wall time set *failed and return, so that the host
// reports a lost neighbour in one line instead of hanging.
__device__ __forceinline__ void wait_flag(const int *flag, int value, u64 timeout_ns,
                                          int *failed) {
  const u64 start = wall_ns();
  for (;;) {
    int v;
    asm volatile("ld.acquire.sys.global.s32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
    if (v >= value) break;
    if (wall_ns() - start > timeout_ns) {
      *failed = 1;
      break;
    }
    __nanosleep(100);
  }
}

// Set a (neighbour's) flag to value after everything this thread and those it has
// synchronised with wrote before (a system-scope release).
__device__ __forceinline__ void set_flag(int *flag, int value) {
  __threadfence_system();
  atomicExch_system(flag, value);
}
