// The exchange of the multi-GPU EA3D sweep signalled from the device (simcore/models/ea3d/
// multigpu.py): after a colour's boundary kernel has written the neighbour's ghost plane,
// slab_signal sets the neighbour's flag of that colour to the sweep count; before the
// next boundary kernel may read this GPU's ghost, slab_wait spins until the flag from the
// other side has reached it.  Both run as one thread on the boundary stream, so the host
// only queues work and never waits inside a sweep.  A wait that passes timeout_ns (wall
// time) stops and sets *failed, and the host reports it instead of hanging.

#include "slab_sync.cuh"

extern "C" __global__ void slab_signal(int *peer_flag, int value, const int *count) {
  set_flag(peer_flag, flag_value(value, count));  // after the ghost words written before
}

extern "C" __global__ void slab_wait(const int *flag, int value, const int *count, u64 timeout_ns,
                                     int *failed) {
  wait_flag(flag, flag_value(value, count), timeout_ns, failed);
  __threadfence_system();  // the ghost words are read after the flag
}

// after a captured graph of n sweeps: the sweep count goes up by n
extern "C" __global__ void slab_next(int *count, int n) { *count += n; }
