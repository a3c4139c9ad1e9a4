// The exchange of the multi-GPU EA3D sweep signalled from the device (simcore/models/ea3d/
// multigpu.py): after a colour's boundary kernel has written the neighbour's ghost plane,
// slab_signal sets the neighbour's flag of that colour to the sweep count; before the
// next boundary kernel may read this GPU's ghost, slab_wait spins until the flag from the
// other side has reached it.  Both run as one thread on the boundary stream, so the host
// only queues work and never waits inside a sweep.  Flags only grow, so they need no reset
// between sweeps.  A wait that passes timeout_ns (wall time) stops and sets *failed, and
// the host reports it instead of hanging.

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

extern "C" __global__ void slab_signal(int *peer_flag, int value, const int *count) {
  __threadfence_system();  // the ghost words written before are visible first
  atomicExch_system(peer_flag, flag_value(value, count));
}

extern "C" __global__ void slab_wait(const int *flag, int value, const int *count, u64 timeout_ns,
                                     int *failed) {
  value = flag_value(value, count);
  const volatile int *f = flag;
  const u64 start = wall_ns();
  while (*f < value) {
    if (wall_ns() - start > timeout_ns) {
      *failed = 1;
      break;
    }
    __nanosleep(200);
  }
  __threadfence_system();  // the ghost words are read after the flag
}

// after a captured graph of n sweeps: the sweep count goes up by n
extern "C" __global__ void slab_next(int *count, int n) { *count += n; }
