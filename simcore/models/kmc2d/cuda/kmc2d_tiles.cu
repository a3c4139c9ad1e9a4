// The tile algorithm of darkins2024 on the GPU: the twin of simcore/models/kmc2d/tiles.py
// and events.py (numba), bit for bit.
//
// A block holds DPB patches (each a tile, HALO cells of halo around it and a fixed outer
// ring; HALO = B - 1 makes the patch the tile's 3 x 3-tile neighbourhood) in shared
// memory.  All NT threads of the block load the patches (coalesced; with HALO = B - 1 a
// block whose tiles lie in one row of tiles reads each distinct tile once, load_row) and
// note the live cells whose waiting time lies before the step's end; then one thread per
// patch fires its events in time order; then all threads store the central tiles.
//
// Shared memory is what bounds the patches per multiprocessor, so a patch keeps states
// for all S x S cells but times and draw counters for its W x W live interior only,
// numbered by leaf l = (a - 1) W + b - 1.  The next event is the earliest leaf (ties go to
// the smaller global cell index, as in the serial integrator), found in one of two ways:
// - list mode, for a patch with at most LIST_START leaves before the step's end: those
//   leaves in a list of up to LISTC (collected while loading, kept as events move times
//   across the step's end).  The events of a step are those of the list; the earliest is
//   a scan of it.  Most patches at phi >= 1 run so, with no tree to build or keep;
// - tree mode, for a patch with more: a min-tree, the earliest leaf of each group of 8
//   leaves (level 1, indices only), the earliest of each group of G2 (8 or 16) of those
//   (level 2, NG2 <= 8 nodes, kept in the event thread's registers), and a scan of
//   level 2.  A list that overflows while its events fire builds the tree there and goes
//   on in tree mode.
// Both modes fire an event the same way (fire), and rate classes are computed from the
// states when needed, never stored; the order of the events is the same, so the lattice
// is, bit for bit.
//
// Compile-time constants: B (tile side, 4, 8 or 16), HALO (cells of halo, 1 .. B - 1;
// default B - 1), MODEL (0 sos, 1 ising), NCLS (rate classes), DIAG (1: rates depend on
// the diagonal neighbours), DPB (patches per block, a power of two <= 32), NT (threads per
// block).  An accepted step is exact whatever the halo, so every (B, HALO) gives the same
// lattice; the halo sets how long a step may be, the tile how many patches there are.
// Global arrays are tile-major per sample: cell k = a B + b of tile T of sample s is
// element (s B^2 + k) ntiles + T; per-tile arrays (tmin, live) are element s ntiles + T.
//
// Event-free patches are skipped, without changing a bit of the results.  A patch fires
// an event only if one of its live cells has a waiting time before the step's end; its
// live cells lie in its 9 tiles, so if no tile's minimum waiting time (tmin, kept per tile
// and buffer like tau) is below t_end, run_patch would return before its first event: the
// central tile would come out as it went in, with zero checksums and zero central events.
// Such a patch is not loaded, set up or run.  Per tile, live (written by the tile's own
// block every step) says whether its patch ran: 0 means that this step left the tile's
// two buffers equal (x, tau, cnt and tmin), which stays true whether the step is accepted
// (the parity flips) or rejected (the front stays).  So a skipped tile copies its front to
// the back buffer only if its flag was 1 (it ran last step, or the front was set from the
// host, which sets every flag to 1); and the check kernel reads a tile's checksums and
// central events only where its flag is 1 (zero elsewhere, as for an unchanged patch).
#include "exponential.cuh"
#include "philox.cuh"

#ifndef HALO
#define HALO (B - 1)
#endif
#define C0 (HALO + 1)        // patch coordinate of the central tile's first row (column)
#define S (B + 2 * C0)       // patch side
#define W (S - 2)            // live interior side
#define NC (S * S)           // cells (states)
#define NI (W * W)           // live cells (leaves)
#define NG1 ((NI + 7) / 8)   // level-1 groups
#define G2 (NG1 <= 64 ? 8 : 16)         // level-1 groups per level-2 group
#define LOG2_G2 (G2 == 8 ? 3 : 4)
#define NG2 ((NG1 + G2 - 1) / G2)       // level-2 groups
#define NL (NG1 * 8)         // leaves padded with infinity to whole groups
#define NG1P (NG2 * G2)      // level-1 slots padded to whole groups
#define STATE_MIX 0x9E3779B97F4A7C15ull
#define LOG2_DPB (DPB >= 32 ? 5 : DPB >= 16 ? 4 : DPB >= 8 ? 3 : DPB >= 4 ? 2 : DPB >= 2 ? 1 : 0)
static_assert(NG2 <= 8, "level 2 must fit the registers of the event thread (NI < 1024)");
static_assert(HALO >= 1 && HALO <= B - 1, "HALO: 1 .. B - 1 cells");
static_assert(NL > NI, "a padded leaf (time infinity) stands for the padded level-1 slots");
static_assert((1 << LOG2_DPB) == DPB && DPB <= 32, "DPB: a power of two, one warp plans");
static_assert(NT % 32 == 0 && NT >= DPB, "whole warps, at least one thread per patch");
#ifndef LISTC
#define LISTC 64  // leaves a patch's list holds (list mode)
#endif
#ifndef LISTS
#define LISTS 64  // the most leaves before the step's end that start a patch in list mode
#endif
#define LIST_START (LISTS < LISTC ? LISTS : LISTC)
static_assert(LISTC >= 1 && LISTC <= 65535, "LISTC: 1 .. 65535 leaves");
#define NNB (DIAG ? 8 : 4)  // neighbours whose class an event can change

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned long long u64;

// Profiling only (benchmarks/kmc2d_phases.py compiles with -DKMC2D_PHASES=1 or 2): thread 0
// of each block writes the global timer at the phase boundaries (0-4), its SM (5) and its
// live patches (6); with 2 also the event threads add their events (7), the SM cycles of an
// event's search, firing and list or tree update (8-10), the events fired in list mode (11)
// and the lists that overflowed (12), at the cost of registers: 16 values per block.
#ifdef KMC2D_PHASES
__device__ u64 *kmc2d_phases;
__device__ __forceinline__ u64 *phase_row() {
  return kmc2d_phases + 16 * ((u64)blockIdx.y * gridDim.x + blockIdx.x);
}
__device__ __forceinline__ void phase_mark(int j) {
  if (threadIdx.x == 0) {
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    phase_row()[j] = t;
  }
}
#define PHASE(j) phase_mark(j)
#else
#define PHASE(j)
#endif
#if defined(KMC2D_PHASES) && KMC2D_PHASES >= 2
// per event thread, summed in registers and added to the block's row when it is done
#define PROF_DECL u64 prof[6] = {0, 0, 0, 0, 0, 0}
#define CLOCK_AT(v) const long long v = clock64()
#define CLOCK_ADD(j, v0, v1) prof[(j) - 7] += (u64)((v1) - (v0))
#define COUNT(j) prof[(j) - 7]++
#define PROF_FLUSH                                                 \
  for (int j_ = 0; j_ < 6; j_++)                                   \
    if (prof[j_]) atomicAdd(phase_row() + 7 + j_, prof[j_])
#else
#define PROF_DECL
#define PROF_FLUSH
#define COUNT(j)
#define CLOCK_AT(v)
#define CLOCK_ADD(j, v0, v1)
#endif

__device__ __forceinline__ double inf() { return __longlong_as_double(0x7ff0000000000000ll); }

// -- the rate model (simcore/models/kmc2d/rates.py) ------------------------------------
__device__ __forceinline__ int rate_class(int c, int n, int s, int w, int e, int nw, int ne,
                                          int sw, int se) {
#if MODEL == 0
  int level = c + 1;
  return (n >= level) + (s >= level) + (w >= level) + (e >= level);
#else
  return 5 * (c > 0) + (n + s + w + e + 4) / 2;
#endif
}

__device__ __forceinline__ int new_state(int c) {
#if MODEL == 0
  return c + 1;
#else
  return -c;
#endif
}

// -- shared memory: element k of the patch in slot d at [k DPB + d] -------------------
// The block's live patches occupy slots 0 .. nlive - 1 (plan_block).
struct Smem {
  double *tau, *inv, *ratio;  // tau: NL leaves
  u64 *sums;                  // 16 checksums
  int *x, *oi, *oj, *tile;    // x: NC cells; origin and tile of the slot's patch
  int *plan;                  // [0]: live patches nlive, [1]: tiles to copy, [2]: to run
  int *nl;                    // leaves with a time before the step's end (list length)
  u32 *cnt;                   // NI leaves
  u16 *i1, *i2;               // NG1P level-1, NG2 level-2 slots (tree mode)
  u16 *lst;                   // LISTC leaves (list mode)
};

// The block's dynamic shared memory (every part at a compile-time offset, so that a
// function that is not inlined finds it without a pointer argument).
extern __shared__ __align__(16) unsigned char smem[];

__device__ __forceinline__ Smem carve(unsigned char *p) {
  Smem m;
  m.tau = (double *)p;
  m.sums = (u64 *)(m.tau + NL * DPB);
  m.inv = (double *)(m.sums + 16 * DPB);
  m.ratio = m.inv + NCLS;
  m.x = (int *)(m.ratio + NCLS * NCLS);
  m.oi = m.x + NC * DPB;
  m.oj = m.oi + DPB;
  m.tile = m.oj + DPB;
  m.plan = m.tile + DPB;
  m.nl = m.plan + 3;
  m.cnt = (u32 *)(m.nl + DPB);
  m.i1 = (u16 *)(m.cnt + NI * DPB);
  m.i2 = m.i1 + NG1P * DPB;
  m.lst = m.i2 + NG2 * DPB;
  return m;
}

__device__ __forceinline__ int leaf_a(int l) { return 1 + l / W; }
__device__ __forceinline__ int leaf_b(int l) { return 1 + l - (l / W) * W; }

// Global row (or column) of patch coordinate a for a patch origin o in [0, L).
__device__ __forceinline__ int wrap(int o, int a, int L) {
  int g = o + a;
  return g >= L ? g - L : g;
}

__device__ __forceinline__ u32 global_index(int l, int oi, int oj, int L) {
  return (u32)wrap(oi, leaf_a(l), L) * (u32)L + (u32)wrap(oj, leaf_b(l), L);
}

// Is leaf q (time tq) earlier than leaf p (time tp)?  Ties go to the smaller global index;
// infinities never fire, so ties between them need no order.
__device__ __forceinline__ bool earlier(double tq, int q, double tp, int p, int oi, int oj,
                                        int L) {
  return tq < tp ||
         (tq == tp && tp < inf() && global_index(q, oi, oj, L) < global_index(p, oi, oj, L));
}

// N candidate leaves and their times.
template <int N>
struct Cand {
  double t[N];
  int leaf[N];
};

// The earliest of N candidates.  The hot path compares times only (the first of equal
// times wins) and notes any tie of finite times; a tie, of probability ~2^-53 per
// comparison, sends the search down the exact path (out of line, the candidates by value,
// so that they stay in registers on the hot path).
template <int N>
__device__ __noinline__ void earliest_exact(Cand<N> c, int oi, int oj, int L, double &tb,
                                            int &best) {
  tb = c.t[0];
  best = c.leaf[0];
  for (int j = 1; j < N; j++)
    if (earlier(c.t[j], c.leaf[j], tb, best, oi, oj, L)) {
      tb = c.t[j];
      best = c.leaf[j];
    }
}

template <int N>
__device__ __forceinline__ void earliest(const Cand<N> &c, int oi, int oj, int L, double &tb,
                                         int &best) {
  tb = c.t[0];
  best = c.leaf[0];
  bool tie = false;
#pragma unroll
  for (int j = 1; j < N; j++) {
    tie |= c.t[j] == tb && c.t[j] < inf();
    if (c.t[j] < tb) {
      tb = c.t[j];
      best = c.leaf[j];
    }
  }
  if (tie) earliest_exact<N>(c, oi, oj, L, tb, best);
}

// Level 1: the earliest leaf of group g.
__device__ __forceinline__ int group1(const Smem &m, int d, int g, int oi, int oj, int L,
                                      double &tb) {
  Cand<8> c;
#pragma unroll
  for (int j = 0; j < 8; j++) {
    c.leaf[j] = 8 * g + j;
    c.t[j] = m.tau[(8 * g + j) * DPB + d];
  }
  int best;
  earliest<8>(c, oi, oj, L, tb, best);
  m.i1[g * DPB + d] = (u16)best;
  return best;
}

// Level 2: the earliest leaf of the level-1 groups G2 h .. G2 h + G2 - 1, in runs of 8
// (each run's winner meets the best so far, so that at most 8 candidates are in registers;
// the first run writes the result directly).
__device__ __forceinline__ int group2(const Smem &m, int d, int h, int oi, int oj, int L,
                                      double &tb) {
  int best;
#pragma unroll
  for (int r = 0; r < G2 / 8; r++) {
    Cand<8> c;
#pragma unroll
    for (int j = 0; j < 8; j++) c.leaf[j] = m.i1[(G2 * h + 8 * r + j) * DPB + d];
#pragma unroll
    for (int j = 0; j < 8; j++) c.t[j] = m.tau[c.leaf[j] * DPB + d];
    if (r == 0) {
      earliest<8>(c, oi, oj, L, tb, best);
    } else {
      Cand<2> p;
      p.t[0] = tb;
      p.leaf[0] = best;
      earliest<8>(c, oi, oj, L, p.t[1], p.leaf[1]);
      earliest<2>(p, oi, oj, L, tb, best);
    }
  }
  return best;
}

// The waiting time of leaf l drawn at time t with its draw counter at n, for 1 / rate inv.
__device__ __forceinline__ double drawn_time(double t, double inv, int l, u32 n, int oi, int oj,
                                             int L, u32 sample, u32 k0, u32 k1) {
  const P4 r = philox(global_index(l, oi, oj, L), n, sample, STREAM_KMC << 24, k0, k1);
  return __dadd_rn(t, __dmul_rn(exp_variate(r.v[0], r.v[1]), inv));
}

// A fresh waiting time of leaf l (class cls) drawn at time t.
__device__ __forceinline__ double draw_time(const Smem &m, int d, int l, int cls, double t,
                                            int oi, int oj, int L, u32 sample, u32 k0, u32 k1) {
  const double inv = m.inv[cls];
  if (inv == inf()) return inf();
  const u32 n = m.cnt[l * DPB + d];
  m.cnt[l * DPB + d] = n + 1;
  return drawn_time(t, inv, l, n, oi, oj, L, sample, k0, k1);
}

// The rare neighbour that leaves a rate-0 class draws (kept out of line: small code).
__device__ __noinline__ double cold_draw(int d, int l, int cls, double t, int oi, int oj, int L,
                                         u32 sample, u32 k0, u32 k1) {
  return draw_time(carve(smem), d, l, cls, t, oi, oj, L, sample, k0, k1);
}

// The checksum terms of an event at patch cell (a, b) (events.py _account).
__device__ __forceinline__ void account(const Smem &m, int d, int a, int b, u64 term,
                                        u32 &central) {
  u64 *s = m.sums + d;
  const bool ca = a >= C0 && a < C0 + B, cb = b >= C0 && b < C0 + B;
  if (ca && cb) {
    central++;
    const bool top = a == C0, bottom = a == C0 + B - 1, left = b == C0, right = b == C0 + B - 1;
    if (top) s[0 * DPB] += term;
    if (bottom) s[1 * DPB] += term;
    if (left) s[2 * DPB] += term;
    if (right) s[3 * DPB] += term;
    if (top && left) s[4 * DPB] += term;
    if (top && right) s[5 * DPB] += term;
    if (bottom && left) s[6 * DPB] += term;
    if (bottom && right) s[7 * DPB] += term;
    return;
  }
  const bool ra = ca || a == C0 - 1 || a == C0 + B, rb = cb || b == C0 - 1 || b == C0 + B;
  if (ra && rb) {
    // direction of (side of a, side of b): U D L R UL UR DL DR
    const int dir =
        cb ? (a < C0 ? 0 : 1) : (ca ? (b < C0 ? 2 : 3) : 4 + 2 * (a > C0) + (b > C0));
    s[(8 + dir) * DPB] += term;
  }
}

// -- firing an event (events.py fire), the same in both modes ----------------------------
// Neighbour j of a cell: (DA[j], DB[j]), the nearest four first.
__device__ __forceinline__ int nb_da(int j) { return j == 0 ? -1 : j == 1 ? 1 : j < 4 ? 0 : (j < 6 ? -1 : 1); }
__device__ __forceinline__ int nb_db(int j) { return j < 2 ? 0 : j == 2 ? -1 : j == 3 ? 1 : (j % 2 ? 1 : -1); }

// Offset of the cell itself (p = 0) and of its neighbours n, s, w, e, nw, ne, sw, se in x.
__device__ __forceinline__ int stencil(int p) {
  return p == 0 ? 0 : p == 1 ? -S : p == 2 ? S : p == 3 ? -1 : p == 4 ? 1 : p == 5 ? -S - 1
         : p == 6 ? -S + 1 : p == 7 ? S - 1 : S + 1;
}

__device__ __forceinline__ int class_of(const int (&v)[9]) {
  return rate_class(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]);
}

// What an event did to the times: bit j of changed, for neighbour j whose time changed,
// and of was / now, whether that time lay before tend before / after; stays: whether the
// fired leaf's new time does.
struct Fired {
  u32 changed, was, now;
  bool stays;
};

// The event of leaf l at time t: its new state and a fresh waiting time, and for each
// neighbour whose rate changed its residual time rescaled (a draw when it leaves a rate-0
// class, infinity when it enters one); the checksums.  A neighbour's class before the
// event comes from the states with the fired cell's old one, not from a stored class (a
// live cell's stored class would always equal that).
__device__ __forceinline__ Fired fire(const Smem &m, int d, int l, double t, double tend, int oi,
                                      int oj, int L, u32 sample, u32 k0, u32 k1, u32 &central) {
  // All loads first, then the arithmetic, then all stores: nothing is stored before the
  // last load, so the compiler may keep every load in flight and run the fired cell's draw
  // alongside its neighbours' rescaling, with the same branch-free path for every lane.
  const int a = leaf_a(l), b = leaf_b(l), k = a * S + b;
  const int xo = m.x[k * DPB + d], xn = new_state(xo);
  int vk[9];  // the fired cell's stencil, itself in its new state
#pragma unroll
  for (int p = 0; p < 9; p++) vk[p] = p == 0 ? xn : m.x[(k + stencil(p)) * DPB + d];
  const int cf = class_of(vk);
  const double inv_f = m.inv[cf];
  const u32 nd = m.cnt[l * DPB + d];
  int cn[NNB];
  u32 rescale = 0, cold = 0;  // bit j: neighbour j's time rescaled (or infinity); drawn
  double t0[NNB], tq[NNB];
#pragma unroll
  for (int j = 0; j < NNB; j++) {
    const int da = nb_da(j), db = nb_db(j);
    const bool leaf = a + da >= 1 && a + da <= W && b + db >= 1 && b + db <= W;
    const int kq = k + da * S + db;
    int v[9];
#pragma unroll
    for (int p = 0; p < 9; p++)  // the fired cell's own entry (p with da S + db + its offset 0)
      v[p] = da * S + db + stencil(p) == 0 ? xn : leaf ? m.x[(kq + stencil(p)) * DPB + d] : 0;
    cn[j] = class_of(v);
#pragma unroll
    for (int p = 0; p < 9; p++)
      if (da * S + db + stencil(p) == 0) v[p] = xo;
    const int co = class_of(v);
    const double io = m.inv[co], in = m.inv[cn[j]];
    const bool changed = leaf && cn[j] != co && io != in;  // a class change: the rate too
    const int q = l + da * W + db;
    t0[j] = leaf ? m.tau[q * DPB + d] : 0.0;
    const double r = m.ratio[co * NCLS + cn[j]];
    tq[j] = in == inf() ? inf() : __dadd_rn(t, __dmul_rn(__dadd_rn(t0[j], -t), r));
    cold |= (u32)(changed && io == inf()) << j;  // it leaves a rate-0 class: a draw, below
    rescale |= (u32)(changed && io != inf()) << j;
  }
  double tl = inf();
  if (inv_f != inf()) {
    tl = drawn_time(t, inv_f, l, nd, oi, oj, L, sample, k0, k1);
    m.cnt[l * DPB + d] = nd + 1;
  }
  m.x[k * DPB + d] = xn;
  m.tau[l * DPB + d] = tl;
  Fired f{0u, 0u, 0u, tl < tend};
#pragma unroll
  for (int j = 0; j < NNB; j++) {
    const int q = l + nb_da(j) * W + nb_db(j);
    if ((cold >> j) & 1) tq[j] = cold_draw(d, q, cn[j], t, oi, oj, L, sample, k0, k1);
    if (((rescale | cold) >> j) & 1) {
      m.tau[q * DPB + d] = tq[j];
      f.changed |= 1u << j;
      f.was |= (u32)(t0[j] < tend) << j;
      f.now |= (u32)(tq[j] < tend) << j;
    }
  }
  account(m, d, a, b, (u64)__double_as_longlong(t) + STATE_MIX * (u64)(u32)xn, central);
  return f;
}

// -- tree mode ------------------------------------------------------------------------------
// Level 1 and 2 of a patch's tree from its times (group g >= NG1: a padded leaf).
__device__ __forceinline__ void tree_group1(const Smem &m, int d, int g, int oi, int oj, int L) {
  double tg;
  if (g < NG1)
    group1(m, d, g, oi, oj, L, tg);
  else
    m.i1[g * DPB + d] = (u16)NI;  // a padded leaf: time infinity
}

__device__ __forceinline__ void tree_group2(const Smem &m, int d, int h, int oi, int oj, int L) {
  double th;
  m.i2[h * DPB + d] = (u16)group2(m, d, h, oi, oj, L, th);
}

// Fire the patch's events in time order until the next is at or after tend (its tree
// built).
__device__ __noinline__ void run_tree(int d, double tend, int oi, int oj, int L, u32 sample,
                                      u32 k0, u32 k1, u32 &central) {
  const Smem m = carve(smem);
  PROF_DECL;
  Cand<NG2> top;  // level 2, in registers
#pragma unroll
  for (int h = 0; h < NG2; h++) {
    top.leaf[h] = m.i2[h * DPB + d];
    top.t[h] = m.tau[top.leaf[h] * DPB + d];
  }
  while (true) {
    double t;
    int l;
    CLOCK_AT(c0);
    earliest<NG2>(top, oi, oj, L, t, l);
    if (!(t < tend)) {
      PROF_FLUSH;
      return;
    }
    COUNT(7);
    CLOCK_AT(c1);
    const Fired f = fire(m, d, l, t, tend, oi, oj, L, sample, k0, k1, central);
    CLOCK_AT(c2);
    // groups of the tree to redo: bit 2 r + c is the group of leaf l + (r - 1) W - 1 + 2 c
    u32 redo = 1u << (2 + ((l >> 3) == ((l + 1) >> 3)));
#pragma unroll
    for (int j = 0; j < NNB; j++) {
      const int da = nb_da(j), q = l + da * W + nb_db(j);
      if ((f.changed >> j) & 1) redo |= 1u << (2 * (da + 1) + ((q >> 3) == ((l + da * W + 1) >> 3)));
    }
    // restore the tree: the groups, then their parents
    u32 h_todo = 0;
    while (redo) {
      const int bit = __ffs(redo) - 1;
      redo &= redo - 1;
      const int r = bit >> 1, c = bit & 1;
      const int g = (l + (r - 1) * W + 2 * c - 1) >> 3;
      if (!c && (redo & (2u << bit)) && g == ((l + (r - 1) * W + 1) >> 3))
        redo &= ~(2u << bit);  // both ends of the row are in one group
      double tg;
      group1(m, d, g, oi, oj, L, tg);
      h_todo |= 1u << (g >> LOG2_G2);
    }
    while (h_todo) {
      const int h = __ffs(h_todo) - 1;
      h_todo &= h_todo - 1;
      double th;
      const int best = group2(m, d, h, oi, oj, L, th);
#pragma unroll
      for (int j = 0; j < NG2; j++)
        if (j == h) {
          top.t[j] = th;
          top.leaf[j] = best;
        }
    }
    CLOCK_AT(c3);
    CLOCK_ADD(8, c0, c1);
    CLOCK_ADD(9, c1, c2);
    CLOCK_ADD(10, c2, c3);
  }
}

// -- list mode ------------------------------------------------------------------------------
// Fire the events of the patch's list (its leaves with a time before tend) in time order
// until it is empty; false if it overflowed (the events fired so far are done, the list is
// not: the patch goes on in tree mode).
__device__ __noinline__ bool run_list(int d, double tend, int oi, int oj, int L, u32 sample,
                                      u32 k0, u32 k1, u32 &central) {
  const Smem m = carve(smem);
  PROF_DECL;
  u16 *lst = m.lst + d;  // entry i at lst[i DPB]
  int n = m.nl[d];
  while (n > 0) {
    CLOCK_AT(c0);
    // the earliest entry: times only on the hot path, a tie of two finite times sends it
    // down the exact path; four entries' loads in flight at a time (past the end: a padded
    // leaf, time infinity)
    double t = inf();
    int l = 0, at = 0;
    bool tie = false;
    for (int i0 = 0; i0 < n; i0 += 4) {
      int q[4];
      double tq[4];
#pragma unroll
      for (int j = 0; j < 4; j++) q[j] = i0 + j < n ? lst[(i0 + j) * DPB] : NI;
#pragma unroll
      for (int j = 0; j < 4; j++) tq[j] = m.tau[q[j] * DPB + d];
#pragma unroll
      for (int j = 0; j < 4; j++) {
        tie |= tq[j] == t && tq[j] < inf();
        if (tq[j] < t) {
          t = tq[j];
          l = q[j];
          at = i0 + j;
        }
      }
    }
    if (tie)
      for (int i = 0; i < n; i++) {
        const int q = lst[i * DPB];
        const double tq = m.tau[q * DPB + d];
        if (earlier(tq, q, t, l, oi, oj, L)) {
          t = tq;
          l = q;
          at = i;
        }
      }
    COUNT(7);
    COUNT(11);
    CLOCK_AT(c1);
    const Fired f = fire(m, d, l, t, tend, oi, oj, L, sample, k0, k1, central);
    CLOCK_AT(c2);
    // the list again: the fired leaf leaves it unless its new time is before tend, a
    // neighbour joins or leaves it as its time crossed tend
    if (!f.stays) lst[at * DPB] = lst[--n * DPB];
    bool full = false;
#pragma unroll
    for (int j = 0; j < NNB; j++) {
      const int q = l + nb_da(j) * W + nb_db(j);
      if (((f.was & ~f.now) >> j) & 1) {
        int i = 0;
        while (i < n - 1 && lst[i * DPB] != q) i++;  // it is there: its time was before tend
        lst[i * DPB] = lst[--n * DPB];
      } else if (((f.now & ~f.was) >> j) & 1) {
        if (n < LISTC)
          lst[n++ * DPB] = (u16)q;
        else
          full = true;
      }
    }
    CLOCK_AT(c3);
    CLOCK_ADD(8, c0, c1);
    CLOCK_ADD(9, c1, c2);
    CLOCK_ADD(10, c2, c3);
    if (full) {
      COUNT(12);
      PROF_FLUSH;
      return false;
    }
  }
  PROF_FLUSH;
  return true;
}

// The patch's events up to tend: in list mode if its list held all its leaves before tend
// (its tree is then not built), else or after an overflow in tree mode.
__device__ void run_patch(const Smem &m, int d, double tend, int oi, int oj, int L, u32 sample,
                          u32 k0, u32 k1, u32 &central) {
  if (m.nl[d] <= LIST_START) {
    if (run_list(d, tend, oi, oj, L, sample, k0, k1, central)) return;
    for (int g = 0; g < NG1P; g++) tree_group1(m, d, g, oi, oj, L);
    for (int h = 0; h < NG2; h++) tree_group2(m, d, h, oi, oj, L);
  }
  run_tree(d, tend, oi, oj, L, sample, k0, k1, central);
}

__device__ __forceinline__ long long gaddr(int s, int k, int T, int ntiles) {
  return ((long long)s * B * B + k) * ntiles + T;
}

// One buffer (front or back) of a sample's tiles: cells x, tau, cnt (tile-major) and the
// per-tile minimum of tau.
struct Tiles {
  int *x;
  double *tau;
  u32 *cnt;
  double *tmin;
};

// Leaf of cell c = a B + b of the central tile.
__device__ __forceinline__ int central_leaf(int c) {
  return (C0 - 1 + c / B) * W + C0 - 1 + c % B;
}

// -- skipping event-free patches -------------------------------------------------------
// Can the patch of tile T fire an event before tend?  Only if a live cell's waiting time
// is below tend; the live cells lie in the patch's 9 tiles, so their minima (tmin) bound
// that time from below.  The test may say "live" for a patch without an event (the bound
// also covers the fixed ring), never the other way round: a skipped patch is one that
// run_patch would leave unchanged.
__device__ __forceinline__ bool may_fire(const double *tmin, int T, int nt, double tend) {
  const int ti = T / nt, tj = T - (T / nt) * nt;
  const int rows[3] = {ti == 0 ? nt - 1 : ti - 1, ti, ti == nt - 1 ? 0 : ti + 1};
  const int cols[3] = {tj == 0 ? nt - 1 : tj - 1, tj, tj == nt - 1 ? 0 : tj + 1};
  bool any = false;
#pragma unroll
  for (int r = 0; r < 3; r++)
#pragma unroll
    for (int c = 0; c < 3; c++) any |= tmin[rows[r] * nt + cols[c]] < tend;
  return any;
}

// Warp 0 decides which of the block's patches run, puts them into slots 0 .. nlive - 1
// (in tile order), notes the skipped tiles whose buffers may differ (they copy), and sets
// the live flag of each of the block's tiles for this step (tmin and live: the sample's
// rows of the front minima and of the flags).
__device__ __forceinline__ void plan_block(const Smem &m, const double *tmin, u8 *live, int T0,
                                           int nt, double tend) {
  if (threadIdx.x >= 32) return;
  const int d = threadIdx.x, T = T0 + d;
  bool run = false, copy = false;
  if (d < DPB && T < nt * nt) {
    const bool ran = live[T];  // loaded with the minima, not after them
    run = may_fire(tmin, T, nt, tend);
    copy = !run && ran;
    live[T] = run;
  }
  const u32 runs = __ballot_sync(0xffffffffu, run), copies = __ballot_sync(0xffffffffu, copy);
  if (run) {
    const int slot = __popc(runs & ((1u << d) - 1));
    const int ti = T / nt, tj = T - (T / nt) * nt;
    m.tile[slot] = T;
    // the patch's origin: C0 cells above and left of its tile (B - C0 into the tile before)
    m.oi[slot] = (ti == 0 ? nt - 1 : ti - 1) * B + B - C0;
    m.oj[slot] = (tj == 0 ? nt - 1 : tj - 1) * B + B - C0;
  }
  if (d < DPB) m.nl[d] = 0;
  if (d == 0) {
    m.plan[0] = __popc(runs);
    m.plan[1] = (int)copies;
    m.plan[2] = (int)runs;
  }
}

// Cells of the skipped tiles whose buffers may differ (bit d of mask: tile T0 + d) from
// the front to the back buffer, by threads first .. NT - 1.  Each thread loads a batch of
// CB cells before it stores them: one memory round trip per batch, not per cell (the
// compiler cannot move a load above a store to another buffer by itself).
#define CB 4
__device__ __forceinline__ void copy_cells(u32 mask, const Tiles &f, const Tiles &b, int s,
                                           int T0, int ntiles, int first) {
  const int step = NT - first;
  for (int i0 = threadIdx.x - first; i0 < DPB * B * B; i0 += CB * step) {
    long long g[CB];
    int xv[CB];
    double tv[CB];
    u32 cv[CB];
#pragma unroll
    for (int j = 0; j < CB; j++) {
      const int i = i0 + j * step, d = i % DPB;
      g[j] = i < DPB * B * B && ((mask >> d) & 1) ? gaddr(s, i / DPB, T0 + d, ntiles) : -1;
      if (g[j] >= 0) {
        xv[j] = f.x[g[j]];
        tv[j] = f.tau[g[j]];
        cv[j] = f.cnt[g[j]];
      }
    }
#pragma unroll
    for (int j = 0; j < CB; j++)
      if (g[j] >= 0) {
        b.x[g[j]] = xv[j];
        b.tau[g[j]] = tv[j];
        b.cnt[g[j]] = cv[j];
      }
  }
}

// A skipped tile whose two buffers may differ (it ran last step, or the host set the
// front): the unchanged tile, and its minimum time, into the back buffer.
__device__ void copy_tiles(u32 mask, const Tiles &f, const Tiles &b, int s, int T0, int ntiles,
                           int first) {
  if ((int)threadIdx.x < first) return;
  // thread first + d copies tile d's minimum (NT - first >= 32 >= DPB threads), its load
  // in flight with those of the cells
  const int d = threadIdx.x - first;
  const bool own = d < DPB && ((mask >> d) & 1);
  const long long at = (long long)s * ntiles + T0 + d;
  const double tm = own ? f.tmin[at] : 0.0;
  copy_cells(mask, f, b, s, T0, ntiles, first);
  if (own) b.tmin[at] = tm;
}

// Work item i of a loop over the live patches' elements -> slot d and element k.  A full
// block (all DPB patches live: FULL) keeps the compile-time mapping d = i mod DPB of
// consecutive tiles; otherwise the slots are rounded up to 2^lg >= nlive and the items of
// the slots nlive .. 2^lg - 1 are skipped, so a block with one live patch of four loops a
// quarter as long.
template <bool FULL>
struct Items {
  int lg;
  __device__ __forceinline__ explicit Items(int nlive)
      : lg(FULL ? LOG2_DPB : 32 - __clz(nlive - 1)) {}
  __device__ __forceinline__ int count(int per_patch) const { return per_patch << lg; }
  __device__ __forceinline__ int slot(int i) const { return i & ((1 << lg) - 1); }
  __device__ __forceinline__ int elem(int i) const { return i >> lg; }
};

// A live leaf loaded with time tl into slot d: onto the slot's list if tl is before tend
// (the count goes on past LISTC; above LIST_START the patch runs in tree mode).
__device__ __forceinline__ void note_leaf(const Smem &m, int d, int l, double tl, double tend) {
  if (tl < tend) {
    const int i = atomicAdd(m.nl + d, 1);
    if (i < LISTC) m.lst[i * DPB + d] = (u16)l;
  }
}

// -- loading a block whose tiles lie in one row of tiles ---------------------------------
// Its DPB patches read the 3 x (DPB + 2) tiles of rows ti - 1 .. ti + 1 and columns
// tj - 1 .. tj + DPB (column c: tile column tj - 1 + c, wrapped): patch d reads columns d,
// d + 1 and d + 2, so most tiles serve 3 patches.  The block reads each of those tiles once
// (only the columns that a live patch reads) and stores each cell into the slots of the live
// patches that hold it: the same values into the same shared elements as the per-patch
// loop, so nothing downstream changes.  Thread t reads column c = t mod NCOL (consecutive
// threads read consecutive tiles: coalesced) for the (tile row, cell) pairs
// rk = t / NCOL + QN j, and issues the loads of RB of them before it stores any: a block's
// whole load is two memory round trips instead of one per loop body (18 for the per-patch
// loop).  Floor (tiles of 8, 4 patches per block, 128 threads): 1,152 cells of x, tau and
// cnt, 10 per thread in 2 batches of 5, half the global loads of the per-patch loop and
// ~1.9x fewer L2 sectors (a cell of 6 adjacent tiles spans 7 sectors of x, tau and cnt;
// 3 cells of 4 tiles, one per patch column, ~13).
#define NCOL (DPB + 2)
#define ROW_OK (NCOL <= NT && C0 == B)  // else every block loads per patch
#define QN (ROW_OK ? NT / NCOL : 1)     // threads per column
#define ROW_RK (3 * B * B)              // (tile row, cell) pairs: rk = r B^2 + k
#define ROW_PER_THREAD ((ROW_RK + QN - 1) / QN)
#define ROW_MAXB 5  // 40 data registers per thread; 10 push the kernel from 80 to 96
#define ROW_BATCHES ((ROW_PER_THREAD + ROW_MAXB - 1) / ROW_MAXB)
#define RB ((ROW_PER_THREAD + ROW_BATCHES - 1) / ROW_BATCHES)  // items per batch

__device__ __noinline__ void load_row(const Smem m, u32 runs, const Tiles f, int s, int T0, int nt,
                                      int ntiles, double tend) {
  const int c = threadIdx.x % NCOL, q = threadIdx.x / NCOL;
  if (q >= QN) return;
  const u64 live = runs;
  if (!(((live | live << 1 | live << 2) >> c) & 1)) return;  // no live patch reads column c
  // the live patches that hold column c as their tile column bb = 0, 1, 2: the offset of
  // the cell (a, bb B + bi) from (a, bi) in their slot, in x and in the leaf arrays alike
  // (element index times DPB plus slot); -1: no live patch
  int off[3];
#pragma unroll
  for (int bb = 0; bb < 3; bb++) {
    const int d = c - bb;
    off[bb] = d >= 0 && d < DPB && ((runs >> d) & 1)
                  ? bb * B * DPB + __popc(runs & ((1u << d) - 1))
                  : -1;
  }
  const int ti = T0 / nt, tj = T0 - (T0 / nt) * nt;
  const int col = tj - 1 + c;  // in -1 .. nt, as tj + DPB <= nt
  const int tc = col < 0 ? nt - 1 : col == nt ? 0 : col;
  const int r0 = ti == 0 ? nt - 1 : ti - 1, r2 = ti == nt - 1 ? 0 : ti + 1;
  const int t0 = r0 * nt + tc, t1 = ti * nt + tc, t2 = r2 * nt + tc;  // the column's tiles
  // a cell of this column lies in the live interior of some live patch unless it is in the
  // patches' outer rows, or in the column's first (last) cell column and the only live
  // patches that hold it have it as tile column 0 (2)
  const bool mid = off[1] >= 0, first = mid || off[2] >= 0, last = mid || off[0] >= 0;
#pragma unroll 1
  for (int j0 = 0; j0 < ROW_PER_THREAD; j0 += RB) {
    int xv[RB];
    double tv[RB];
    u32 cv[RB];
#pragma unroll
    for (int j = 0; j < RB; j++) {
      const int rk = q + QN * (j0 + j), r = rk / (B * B), k = rk - r * (B * B);
      const int a = rk / B, bi = rk % B;  // patch row, cell column in the tile
      const bool ok = rk < ROW_RK;
      const bool time = ok && a > 0 && a < S - 1 && (bi == 0 ? first : bi == B - 1 ? last : true);
      const long long g = gaddr(s, k, r == 0 ? t0 : r == 1 ? t1 : t2, ntiles);
      xv[j] = 0;
      tv[j] = 0.0;
      cv[j] = 0;
      if (ok) xv[j] = __ldg(f.x + g);  // the front buffer: read-only in this kernel
      if (time) {
        tv[j] = __ldg(f.tau + g);
        cv[j] = __ldg(f.cnt + g);
      }
    }
#pragma unroll
    for (int j = 0; j < RB; j++) {
      const int rk = q + QN * (j0 + j), a = rk / B, bi = rk % B;
      if (rk >= ROW_RK) continue;
      const bool ai = a > 0 && a < S - 1;
      const int xb = (a * S + bi) * DPB, lb = ((a - 1) * W + bi - 1) * DPB;
#pragma unroll
      for (int bb = 0; bb < 3; bb++) {
        if (off[bb] < 0) continue;
        m.x[xb + off[bb]] = xv[j];
        if (ai && (bb > 0 || bi > 0) && (bb < 2 || bi < B - 1)) {  // 0 < bb B + bi < S - 1
          m.tau[lb + off[bb]] = tv[j];
          m.cnt[lb + off[bb]] = cv[j];
          const int d = off[bb] & (DPB - 1);  // off = bb B DPB + slot
          note_leaf(m, d, (lb + off[bb] - d) / DPB, tv[j], tend);
        }
      }
    }
  }
}

// The element in the front buffer of cell (a, b) of slot d's patch.
__device__ __forceinline__ long long patch_cell(const Smem &m, int d, int a, int b, int s,
                                                int nt, int ntiles, int L) {
  const int gi = wrap(m.oi[d], a, L), gj = wrap(m.oj[d], b, L);
  return gaddr(s, (gi % B) * B + gj % B, (gi / B) * nt + gj / B, ntiles);
}

// Each live patch loads its own cells (patches whose halo is thinner than the tile, which
// share few cells with their neighbours).  Item i is cell k of slot d (Items), so
// consecutive threads read the same cell of consecutive tiles: adjacent elements of the
// tile-major arrays.  Each thread issues the loads of PB items before it stores any, one
// memory round trip per batch: a block of 4 patches of 32 x 32 cells (tile 16, halo 7) is
// 32 items per thread, 7 round trips instead of 32.  Out of line, as load_row: the
// kernel's own code stays as small as without it.
#define PB 5  // items per batch: 20 data registers per thread (as load_row's 5 per batch)
template <bool FULL>
__device__ __noinline__ void load_patches(const Smem m, const Items<FULL> it, int nlive,
                                          const Tiles f, int s, int nt, int ntiles, int L,
                                          double tend) {
  const int n = it.count(NC);
  for (int i0 = threadIdx.x; i0 < n; i0 += PB * NT) {
    int xv[PB];
    double tv[PB];
    u32 cv[PB];
#pragma unroll
    for (int j = 0; j < PB; j++) {
      const int i = i0 + j * NT, d = it.slot(i), k = it.elem(i);
      const bool ok = i < n && (FULL || d < nlive);
      const int a = k / S, b = k - (k / S) * S;
      const bool live = ok && a > 0 && a < S - 1 && b > 0 && b < S - 1;
      const long long g = ok ? patch_cell(m, d, a, b, s, nt, ntiles, L) : 0;
      xv[j] = ok ? __ldg(f.x + g) : 0;  // the front buffer: read-only in this kernel
      tv[j] = live ? __ldg(f.tau + g) : 0.0;
      cv[j] = live ? __ldg(f.cnt + g) : 0u;
    }
#pragma unroll
    for (int j = 0; j < PB; j++) {
      const int i = i0 + j * NT, d = it.slot(i), k = it.elem(i);
      if (i >= n || (!FULL && d >= nlive)) continue;
      const int a = k / S, b = k - (k / S) * S;
      m.x[k * DPB + d] = xv[j];
      if (a > 0 && a < S - 1 && b > 0 && b < S - 1) {
        const int l = (a - 1) * W + b - 1;
        m.tau[l * DPB + d] = tv[j];
        m.cnt[l * DPB + d] = cv[j];
        note_leaf(m, d, l, tv[j], tend);
      }
    }
  }
}

// Load the live patches (states of all cells; times and counters of the live ones, the
// lists of those before tend) and build the next-event trees of the patches whose lists
// overflowed.  A block of 3 x 3-tile patches whose tiles lie in one row of tiles (row)
// loads each distinct tile once (load_row), one that wraps to the next row of tiles patch
// by patch, one cell per memory round trip (rare: only where the row of tiles is not a
// whole number of blocks); patches with a thinner halo load in batches (load_patches).
template <bool FULL>
__device__ __forceinline__ void setup_patches(const Smem &m, int nlive, u32 runs, bool row,
                                              const Tiles &f, int s, int T0, int L,
                                              double tend) {
  const int nt = L / B, ntiles = nt * nt;
  const Items<FULL> it(nlive);
#if C0 == B
  // the round-3 kernel's load, so that its PTX is built unchanged: with the batched load
  // in its place (out of line or inline) the kernel ran 5 % slower at phi = 0 and n = 4096,
  // where no block wraps and that code never runs (code layout, not work)
  if (row) load_row(m, runs, f, s, T0, nt, ntiles, tend);
  for (int i = threadIdx.x; !row && i < it.count(NC); i += NT) {
    const int d = it.slot(i), k = it.elem(i);
    if (!FULL && d >= nlive) continue;
    const int a = k / S, b = k - (k / S) * S;
    const long long g = patch_cell(m, d, a, b, s, nt, ntiles, L);
    m.x[k * DPB + d] = f.x[g];
    if (a > 0 && a < S - 1 && b > 0 && b < S - 1) {
      const int l = (a - 1) * W + b - 1;
      const double tl = f.tau[g];
      m.tau[l * DPB + d] = tl;
      m.cnt[l * DPB + d] = f.cnt[g];
      note_leaf(m, d, l, tl, tend);
    }
  }
#else
  load_patches<FULL>(m, it, nlive, f, s, nt, ntiles, L, tend);
#endif
  for (int i = threadIdx.x; i < DPB * (NL - NI); i += NT) m.tau[NI * DPB + i] = inf();
  for (int i = threadIdx.x; i < 16 * DPB; i += NT) m.sums[i] = 0ull;
  __syncthreads();
  bool trees = false;  // the same for all threads: the branch agrees
  for (int d = 0; d < nlive; d++) trees |= m.nl[d] > LIST_START;
  if (!trees) return;
  for (int i = threadIdx.x; i < it.count(NG1P); i += NT) {
    const int d = it.slot(i), g = it.elem(i);
    if ((!FULL && d >= nlive) || m.nl[d] <= LIST_START) continue;
    tree_group1(m, d, g, m.oi[d], m.oj[d], L);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < it.count(NG2); i += NT) {
    const int d = it.slot(i), h = it.elem(i);
    if ((!FULL && d >= nlive) || m.nl[d] <= LIST_START) continue;
    tree_group2(m, d, h, m.oi[d], m.oj[d], L);
  }
  __syncthreads();
}

// The live patches' central tiles and their minimum times into the back buffer, and their
// checksums.
template <bool FULL>
__device__ __forceinline__ void store_patches(const Smem &m, int nlive, const Tiles &bk, int s,
                                              int T0, int ntiles, u64 *sums_g) {
  const Items<FULL> it(nlive);
  for (int i = threadIdx.x; i < it.count(B * B); i += NT) {
    const int d = it.slot(i), c = it.elem(i);
    if (!FULL && d >= nlive) continue;
    const int a = C0 + c / B, b = C0 + c % B, l = central_leaf(c);
    const long long g = gaddr(s, c, FULL ? T0 + d : m.tile[d], ntiles);
    bk.x[g] = m.x[(a * S + b) * DPB + d];
    bk.tau[g] = m.tau[l * DPB + d];
    bk.cnt[g] = m.cnt[l * DPB + d];
  }
  for (int i = threadIdx.x; i < 16 * DPB; i += NT) {
    const int d = i % DPB, j = i / DPB;
    if (d < nlive) sums_g[((long long)s * 16 + j) * ntiles + m.tile[d]] = m.sums[i];
  }
  // tmin of the stored tiles: warp w reduces slots w, w + NT / 32, ... (min is exact)
  const int lane = threadIdx.x & 31;
  for (int d = threadIdx.x >> 5; d < nlive; d += NT / 32) {
    double t = inf();
    for (int c = lane; c < B * B; c += 32) t = fmin(t, m.tau[central_leaf(c) * DPB + d]);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) t = fmin(t, __shfl_xor_sync(0xffffffffu, t, o));
    if (lane == 0) bk.tmin[(long long)s * ntiles + m.tile[d]] = t;
  }
}

// Algorithm 2 for every tile of every active sample: front buffer (parity[s]) -> back.
// At most 80 registers per thread (the registers of 6 blocks of 128 threads, as many as
// shared memory holds with the default 4 patches per block); beyond, fire's loads in flight
// would cost a block per SM.
extern "C" __global__ void __launch_bounds__(NT, 768 / NT)
    kmc2d_advance(int *x0, int *x1, double *tau0, double *tau1, u32 *cnt0, u32 *cnt1,
                  double *tmin0, double *tmin1, u8 *live_g, const int *parity,
                  const int *active, const double *t_end, const double *inv_g,
                  const double *ratio_g, u64 *sums_g, u32 *central_g, int L, u32 k0, u32 k1) {
  const int s = blockIdx.y;
  if (!active[s]) return;
  const Smem m = carve(smem);
  const int nt = L / B, ntiles = nt * nt;
  const int T0 = blockIdx.x * DPB;
  const int par = parity[s];
  const Tiles f = par ? Tiles{x1, tau1, cnt1, tmin1} : Tiles{x0, tau0, cnt0, tmin0};
  const Tiles bk = par ? Tiles{x0, tau0, cnt0, tmin0} : Tiles{x1, tau1, cnt1, tmin1};
  const double tend = t_end[s];
  PHASE(0);

  // the rate tables (m.ratio follows m.inv) via registers: their loads are in flight
  // together with the plan's, one memory round trip before the barrier instead of two
  constexpr int NTAB = NCLS + NCLS * NCLS, TPT = (NTAB + NT - 1) / NT;
  double tab[TPT];
#pragma unroll
  for (int j = 0; j < TPT; j++) {
    const int i = threadIdx.x + j * NT;
    tab[j] = i < NCLS ? inv_g[i] : i < NTAB ? ratio_g[i - NCLS] : 0.0;
  }
  plan_block(m, f.tmin + (long long)s * ntiles, live_g + (long long)s * ntiles, T0, nt, tend);
#pragma unroll
  for (int j = 0; j < TPT; j++)
    if (threadIdx.x + j * NT < NTAB) m.inv[threadIdx.x + j * NT] = tab[j];
  __syncthreads();
  const int nlive = m.plan[0];  // the same for all threads: the branches below agree
  const u32 copies = (u32)m.plan[1], runs = (u32)m.plan[2];
  // the block's tiles in one row, loaded by load_row (if the patch is 3 x 3 tiles)
  const bool row = ROW_OK && T0 - (T0 / nt) * nt + DPB <= nt;
  PHASE(1);
#ifdef KMC2D_PHASES
  if (threadIdx.x == 0) {
    u32 sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    phase_row()[5] = sm;
    phase_row()[6] = nlive;
  }
#endif

  if (nlive == DPB)
    setup_patches<true>(m, nlive, runs, row, f, s, T0, L, tend);
  else if (nlive > 0)
    setup_patches<false>(m, nlive, runs, row, f, s, T0, L, tend);
  PHASE(2);

  // warp 0 fires the live patches' events; meanwhile the other warps copy the skipped
  // tiles (all threads if none runs; a block of one warp copies after its events)
  if ((int)threadIdx.x < nlive) {
    const int d = threadIdx.x;
    u32 central = 0;
    run_patch(m, d, tend, m.oi[d], m.oj[d], L, (u32)s, k0, k1, central);
    central_g[(long long)s * ntiles + m.tile[d]] = central;
  }
  if (copies) copy_tiles(copies, f, bk, s, T0, ntiles, nlive > 0 && NT > 32 ? 32 : 0);
  if (nlive == 0) {
    PHASE(3);
    PHASE(4);
    return;
  }
  __syncthreads();
  PHASE(3);

  if (nlive == DPB)
    store_patches<true>(m, nlive, bk, s, T0, ntiles, sums_g);
  else
    store_patches<false>(m, nlive, bk, s, T0, ntiles, sums_g);
  PHASE(4);
}

// Eqs. 3-4: every halo sum equals its owner's border sum; mismatches, the step's central
// events and its live patches per sample.  The checksums and central events of a tile
// whose patch was skipped (live 0) are zero: they are not read.
extern "C" __global__ void kmc2d_check(const int *active, const u8 *live, const u64 *sums,
                                       const u32 *central, int *mismatch, u64 *step_events,
                                       u64 *live_patches, int nt) {
  const int ntiles = nt * nt;
  const int T = blockIdx.x * blockDim.x + threadIdx.x;
  const int s = blockIdx.y;
  if (!active[s]) return;
  u32 ev = 0, runs = 0;
  if (T < ntiles) {
    const u8 *lv = live + (long long)s * ntiles;
    const int ti = T / nt, tj = T % nt;
    const int DA[8] = {-1, 1, 0, 0, -1, -1, 1, 1}, DB[8] = {0, 0, -1, 1, -1, 1, -1, 1};
    const int OPP[8] = {1, 0, 3, 2, 7, 6, 5, 4};
    runs = lv[T] != 0;
    bool bad = false;
#pragma unroll
    for (int d = 0; d < 8; d++) {
      int U = ((ti + DA[d] + nt) % nt) * nt + (tj + DB[d] + nt) % nt;
      const u64 halo = runs ? sums[((long long)s * 16 + 8 + d) * ntiles + T] : 0ull;
      const u64 own = lv[U] ? sums[((long long)s * 16 + OPP[d]) * ntiles + U] : 0ull;
      bad |= halo != own;
    }
    if (bad) atomicOr(&mismatch[s], 1);
    if (runs) ev = central[(long long)s * ntiles + T];
  }
  u64 tot = ev, nrun = runs;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    tot += __shfl_down_sync(0xffffffffu, tot, o);
    nrun += __shfl_down_sync(0xffffffffu, nrun, o);
  }
  if ((threadIdx.x & 31) == 0 && tot) atomicAdd(&step_events[s], tot);
  if ((threadIdx.x & 31) == 0 && nrun) atomicAdd(&live_patches[s], nrun);
}

// Algorithm 1 per sample (tiles.py StepControl): settle the step just taken (settle != 0),
// then plan the next one up to target, or retire the sample when it got there.
extern "C" __global__ void kmc2d_control(int samples, int settle, double target, int *active,
                                         int *parity, double *t_now, double *dt, double *t_end,
                                         int *cut, int *rejected_once, int *mismatch,
                                         u64 *step_events, u64 *events, u64 *accepted,
                                         u64 *rejected, double *hist_dt, int *hist_ok,
                                         int hist_cap) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= samples || !active[s]) return;
  if (settle) {
    bool ok = mismatch[s] == 0;
    double t = t_now[s], te = t_end[s];
    u64 n = accepted[s] + rejected[s];
    if (n < (u64)hist_cap) {
      hist_dt[(long long)s * hist_cap + n] = __dadd_rn(te, -t);
      hist_ok[(long long)s * hist_cap + n] = ok;
    }
    if (ok) {
      accepted[s] += 1;
      t_now[s] = te;
      parity[s] ^= 1;
      events[s] += step_events[s];
      if (!cut[s]) dt[s] = __dmul_rn(dt[s], rejected_once[s] ? 1.03 : 10.0);
    } else {
      rejected[s] += 1;
      dt[s] = __dmul_rn(__dadd_rn(te, -t), 0.5);
      rejected_once[s] = 1;
    }
    mismatch[s] = 0;
    step_events[s] = 0;
  }
  double t = t_now[s];
  if (!(t < target)) {
    active[s] = 0;
    return;
  }
  double te = __dadd_rn(t, dt[s]);
  if (te >= target) {
    t_end[s] = target;
    cut[s] = 1;
  } else {
    t_end[s] = te;
    cut[s] = 0;
  }
}
