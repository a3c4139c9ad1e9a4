// The tile algorithm of darkins2024 on the GPU: the twin of simcore/models/kmc2d/tiles.py
// and events.py (numba), bit for bit.
//
// A block holds DPB patches (each a tile's 3 x 3-tile neighbourhood, outer ring fixed) in
// shared memory.  All NT threads of the block load the patches (coalesced), compute the
// rate classes and build the next-event trees; then one thread per patch fires its events
// in time order; then all threads store the central tiles.  The next event comes from an
// 8-ary min-tree over the patch (groups of 8 cells, groups of 8 groups, a scan of those),
// ties to the smaller global cell index as in the serial integrator.
//
// Compile-time constants: B (tile side), MODEL (0 sos, 1 ising), NCLS (rate classes),
// DIAG (1: rates depend on the diagonal neighbours), DPB (patches per block), NT (threads
// per block).  Global arrays are tile-major per sample: cell k = a B + b of tile T of
// sample s is element (s B^2 + k) ntiles + T, so neighbouring tiles are neighbouring words.
#include "exponential.cuh"
#include "philox.cuh"

#define S (3 * B)
#define NC (S * S)
#define NG1 (NC / 8)
#define NG2 ((NG1 + 7) / 8)
#define NG1P (NG2 * 8)  // level-1 slots, padded with infinity to whole groups of 8
#define STREAM_KMC 0x30u
#define STATE_MIX 0x9E3779B97F4A7C15ull

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned long long u64;

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

// -- shared memory: element k of patch d at [k DPB + d] -------------------------------
struct Smem {
  double *tau, *t1, *t2, *inv, *ratio;
  u64 *sums;
  int *x, *oi, *oj;
  u32 *cnt;
  u16 *i1, *i2;
  u8 *cls;
};

__device__ __forceinline__ Smem carve(unsigned char *p) {
  Smem m;
  m.tau = (double *)p;
  m.t1 = m.tau + NC * DPB;
  m.t2 = m.t1 + NG1P * DPB;
  m.sums = (u64 *)(m.t2 + NG2 * DPB);
  m.inv = (double *)(m.sums + 16 * DPB);
  m.ratio = m.inv + NCLS;
  m.x = (int *)(m.ratio + NCLS * NCLS);
  m.oi = m.x + NC * DPB;
  m.oj = m.oi + DPB;
  m.cnt = (u32 *)(m.oj + DPB);
  m.i1 = (u16 *)(m.cnt + NC * DPB);
  m.i2 = m.i1 + NG1P * DPB;
  m.cls = (u8 *)(m.i2 + NG2 * DPB);
  return m;
}

// Global row (or column) of patch coordinate a for a patch origin o in [0, L).
__device__ __forceinline__ int wrap(int o, int a, int L) {
  int g = o + a;
  return g >= L ? g - L : g;
}

// The cold path of the tie-break: is leaf q's global index below leaf p's?
__device__ __noinline__ bool lower_index(int q, int p, int oi, int oj, int L) {
  u32 gq = (u32)wrap(oi, q / S, L) * (u32)L + (u32)wrap(oj, q % S, L);
  u32 gp = (u32)wrap(oi, p / S, L) * (u32)L + (u32)wrap(oj, p % S, L);
  return gq < gp;
}

// Is leaf q (time tq) earlier than leaf p (time tp)?  Ties go to the smaller global index;
// infinities never fire, so ties between them need no order.
__device__ __forceinline__ bool earlier(double tq, int q, double tp, int p, int oi, int oj,
                                        int L) {
  return tq < tp || (tq == tp && tp < inf() && lower_index(q, p, oi, oj, L));
}

// The earliest of n (time, leaf) pairs at stride DPB.  The hot path compares times only
// (the first of equal times wins) and notes any tie of finite times; a tie, which has
// probability ~2^-53 per comparison, sends the search down the exact path.
__device__ __noinline__ void earliest_exact(const double *t, const u16 *leaf, int first, int n,
                                            int oi, int oj, int L, double &tb, int &best) {
  tb = t[0];
  best = leaf ? (int)leaf[0] : first;
  for (int j = 1; j < n; j++) {
    const int q = leaf ? (int)leaf[j * DPB] : first + j;
    if (earlier(t[j * DPB], q, tb, best, oi, oj, L)) {
      tb = t[j * DPB];
      best = q;
    }
  }
}

template <int N>
__device__ __forceinline__ void earliest(const double *t, const u16 *leaf, int first, int oi,
                                         int oj, int L, double &tb, int &best) {
  tb = t[0];
  int jb = 0;
  bool tie = false;
#pragma unroll
  for (int j = 1; j < N; j++) {
    const double tq = t[j * DPB];
    tie |= tq == tb && tq < inf();
    if (tq < tb) {
      tb = tq;
      jb = j;
    }
  }
  best = leaf ? (int)leaf[jb * DPB] : first + jb;
  if (tie) earliest_exact(t, leaf, first, N, oi, oj, L, tb, best);
}

__device__ __forceinline__ void group1(const Smem &m, int d, int g, int oi, int oj, int L) {
  double tb;
  int best;
  earliest<8>(m.tau + 8 * g * DPB + d, nullptr, 8 * g, oi, oj, L, tb, best);
  m.t1[g * DPB + d] = tb;
  m.i1[g * DPB + d] = (u16)best;
}

__device__ __forceinline__ void group2(const Smem &m, int d, int h, int oi, int oj, int L) {
  double tb;
  int best;
  earliest<8>(m.t1 + 8 * h * DPB + d, m.i1 + 8 * h * DPB + d, 0, oi, oj, L, tb, best);
  m.t2[h * DPB + d] = tb;
  m.i2[h * DPB + d] = (u16)best;
}

__device__ __forceinline__ int patch_class(const Smem &m, int d, int k) {
  const int *x = m.x + d;
  return rate_class(x[k * DPB], x[(k - S) * DPB], x[(k + S) * DPB], x[(k - 1) * DPB],
                    x[(k + 1) * DPB], x[(k - S - 1) * DPB], x[(k - S + 1) * DPB],
                    x[(k + S - 1) * DPB], x[(k + S + 1) * DPB]);
}

// A fresh waiting time of patch cell k (class cls) drawn at time t.
__device__ __forceinline__ double draw_time(const Smem &m, int d, int k, int cls, double t,
                                            int oi, int oj, int L, u32 sample, u32 k0, u32 k1) {
  double inv = m.inv[cls];
  if (inv == inf()) return inf();
  u32 n = m.cnt[k * DPB + d];
  m.cnt[k * DPB + d] = n + 1;
  int a = k / S, b = k - (k / S) * S;
  u32 g = (u32)wrap(oi, a, L) * (u32)L + (u32)wrap(oj, b, L);
  P4 r = philox(g, n, sample, STREAM_KMC << 24, k0, k1);
  return __dadd_rn(t, __dmul_rn(exp_variate(r.v[0], r.v[1]), inv));
}

// The rare neighbour that leaves a rate-0 class draws (kept out of line: small code).
__device__ __noinline__ double cold_draw(Smem m, int d, int k, int cls, double t, int oi,
                                         int oj, int L, u32 sample, u32 k0, u32 k1) {
  return draw_time(m, d, k, cls, t, oi, oj, L, sample, k0, k1);
}

// The checksum terms of an event at patch cell (a, b) (events.py _account).
__device__ __forceinline__ void account(const Smem &m, int d, int a, int b, u64 term,
                                        u32 &central) {
  u64 *s = m.sums + d;
  bool ca = a >= B && a < 2 * B, cb = b >= B && b < 2 * B;
  if (ca && cb) {
    central++;
    bool top = a == B, bottom = a == 2 * B - 1, left = b == B, right = b == 2 * B - 1;
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
  bool ra = ca || a == B - 1 || a == 2 * B, rb = cb || b == B - 1 || b == 2 * B;
  if (ra && rb) {
    // direction of (side a, side b): U D L R UL UR DL DR
    int dir = cb ? (a < B ? 0 : 1) : (ca ? (b < B ? 2 : 3) : 4 + 2 * (a > B) + (b > B));
    s[(8 + dir) * DPB] += term;
  }
}

// Fire the patch's events in time order until the next is at or after tend.
__device__ void run_patch(const Smem &m, int d, double tend, int oi, int oj, int L, u32 sample,
                          u32 k0, u32 k1, u32 &central) {
  while (true) {
    double tb;
    int best;
    earliest<NG2>(m.t2 + d, m.i2 + d, 0, oi, oj, L, tb, best);
    if (!(tb < tend)) return;
    const double t = tb;
    const int k = best;
    const int a = k / S, b = k - (k / S) * S;
    const int xn = new_state(m.x[k * DPB + d]);
    m.x[k * DPB + d] = xn;
    const int cf = patch_class(m, d, k);
    m.cls[k * DPB + d] = (u8)cf;
    m.tau[k * DPB + d] = draw_time(m, d, k, cf, t, oi, oj, L, sample, k0, k1);
    // groups of the tree to redo: bit 2 r + c is the group of cell (a + r - 1, b - 1 + 2 c)
    u32 redo = 1u << (2 + ((k >> 3) == ((k + 1) >> 3)));
    // neighbours whose rate changed: rescale their residual times (events.py fire)
#pragma unroll 1
    for (int nb = 0; nb < (DIAG ? 8 : 4); nb++) {
      const int da = nb == 0 ? -1 : nb == 1 ? 1 : nb < 4 ? 0 : (nb < 6 ? -1 : 1);
      const int db = nb < 2 ? 0 : nb == 2 ? -1 : nb == 3 ? 1 : (nb % 2 ? 1 : -1);
      if (a + da < 1 || a + da > S - 2 || b + db < 1 || b + db > S - 2) continue;
      const int q = k + da * S + db;
      const int cn = patch_class(m, d, q);
      const int co = m.cls[q * DPB + d];
      if (cn == co) continue;
      m.cls[q * DPB + d] = (u8)cn;
      const double io = m.inv[co], in = m.inv[cn];
      if (io == in) continue;
      double tq;
      if (io == inf())
        tq = cold_draw(m, d, q, cn, t, oi, oj, L, sample, k0, k1);
      else if (in == inf())
        tq = inf();
      else
        tq = __dadd_rn(t, __dmul_rn(__dadd_rn(m.tau[q * DPB + d], -t), m.ratio[co * NCLS + cn]));
      m.tau[q * DPB + d] = tq;
      redo |= 1u << (2 * (da + 1) + ((q >> 3) == ((k + da * S + 1) >> 3)));
    }
    const u64 term = (u64)__double_as_longlong(t) + STATE_MIX * (u64)(u32)xn;
    account(m, d, a, b, term, central);
    // restore the tree: the groups, then their parents
    u64 h_todo = 0;
    while (redo) {
      const int bit = __ffs(redo) - 1;
      redo &= redo - 1;
      const int r = bit >> 1, c = bit & 1;
      const int g = (k + (r - 1) * S + 2 * c - 1) >> 3;
      if (!c && (redo & (2u << bit)) && g == ((k + (r - 1) * S + 1) >> 3))
        redo &= ~(2u << bit);  // both cells of the row are in one group
      group1(m, d, g, oi, oj, L);
      h_todo |= 1ull << (g >> 3);
    }
    while (h_todo) {
      const int h = __ffsll((long long)h_todo) - 1;
      h_todo &= h_todo - 1;
      group2(m, d, h, oi, oj, L);
    }
  }
}

__device__ __forceinline__ long long gaddr(int s, int k, int T, int ntiles) {
  return ((long long)s * B * B + k) * ntiles + T;
}

// Algorithm 2 for every tile of every active sample: front buffer (parity[s]) -> back.
extern "C" __global__ void __launch_bounds__(NT)
    kmc2d_advance(int *x0, int *x1, double *tau0, double *tau1, u32 *cnt0, u32 *cnt1,
                  const int *parity, const int *active, const double *t_end,
                  const double *inv_g, const double *ratio_g, u64 *sums_g, u32 *central_g,
                  int L, u32 k0, u32 k1) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int s = blockIdx.y;
  if (!active[s]) return;
  const Smem m = carve(smem);
  const int nt = L / B, ntiles = nt * nt;
  const int T0 = blockIdx.x * DPB;
  const int par = parity[s];
  const int *xf = par ? x1 : x0;
  const double *tauf = par ? tau1 : tau0;
  const u32 *cntf = par ? cnt1 : cnt0;

  for (int i = threadIdx.x; i < NCLS; i += NT) m.inv[i] = inv_g[i];
  for (int i = threadIdx.x; i < NCLS * NCLS; i += NT) m.ratio[i] = ratio_g[i];
  if (threadIdx.x < DPB) {
    const int T = min(T0 + (int)threadIdx.x, ntiles - 1);
    const int ti = T / nt, tj = T - (T / nt) * nt;
    m.oi[threadIdx.x] = (ti == 0 ? nt - 1 : ti - 1) * B;
    m.oj[threadIdx.x] = (tj == 0 ? nt - 1 : tj - 1) * B;
  }
  __syncthreads();

  // load the patches (ring: state only, time infinity), patch index fastest
  for (int i = threadIdx.x; i < DPB * NC; i += NT) {
    const int d = i % DPB, k = i / DPB;
    if (T0 + d >= ntiles) continue;
    const int a = k / S, b = k - (k / S) * S;
    const int gi = wrap(m.oi[d], a, L), gj = wrap(m.oj[d], b, L);
    const long long g = gaddr(s, (gi % B) * B + gj % B, (gi / B) * nt + gj / B, ntiles);
    m.x[i] = xf[g];
    const bool live = a > 0 && a < S - 1 && b > 0 && b < S - 1;
    m.tau[i] = live ? tauf[g] : inf();
    m.cnt[i] = live ? cntf[g] : 0u;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < DPB * NC; i += NT) {
    const int d = i % DPB, k = i / DPB;
    const int a = k / S, b = k - (k / S) * S;
    if (a > 0 && a < S - 1 && b > 0 && b < S - 1) m.cls[i] = (u8)patch_class(m, d, k);
  }
  for (int i = threadIdx.x; i < 16 * DPB; i += NT) m.sums[i] = 0ull;
  for (int i = threadIdx.x; i < DPB * NG1P; i += NT) {
    const int d = i % DPB, g = i / DPB;
    if (g < NG1) {
      group1(m, d, g, m.oi[d], m.oj[d], L);
    } else {
      m.t1[i] = inf();
      m.i1[i] = 0;
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < DPB * NG2; i += NT) {
    const int d = i % DPB;
    group2(m, d, i / DPB, m.oi[d], m.oj[d], L);
  }
  __syncthreads();

  if (threadIdx.x < DPB && T0 + (int)threadIdx.x < ntiles) {
    const int d = threadIdx.x;
    u32 central = 0;
    run_patch(m, d, t_end[s], m.oi[d], m.oj[d], L, (u32)s, k0, k1, central);
    central_g[(long long)s * ntiles + T0 + d] = central;
  }
  __syncthreads();

  // the central tiles into the back buffer, and the checksums
  int *xb = par ? x0 : x1;
  double *taub = par ? tau0 : tau1;
  u32 *cntb = par ? cnt0 : cnt1;
  for (int i = threadIdx.x; i < DPB * B * B; i += NT) {
    const int d = i % DPB, c = i / DPB;
    if (T0 + d >= ntiles) continue;
    const int k = (B + c / B) * S + B + c % B;
    const long long g = gaddr(s, c, T0 + d, ntiles);
    xb[g] = m.x[k * DPB + d];
    taub[g] = m.tau[k * DPB + d];
    cntb[g] = m.cnt[k * DPB + d];
  }
  for (int i = threadIdx.x; i < 16 * DPB; i += NT) {
    const int d = i % DPB, j = i / DPB;
    if (T0 + d < ntiles) sums_g[((long long)s * 16 + j) * ntiles + T0 + d] = m.sums[i];
  }
}

// Eqs. 3-4: every halo sum equals its owner's border sum; mismatches and the step's
// central events per sample.
extern "C" __global__ void kmc2d_check(const int *active, const u64 *sums, const u32 *central,
                                       int *mismatch, u64 *step_events, int nt) {
  const int ntiles = nt * nt;
  const int T = blockIdx.x * blockDim.x + threadIdx.x;
  const int s = blockIdx.y;
  if (!active[s]) return;
  u32 ev = 0;
  if (T < ntiles) {
    const int ti = T / nt, tj = T % nt;
    const int DA[8] = {-1, 1, 0, 0, -1, -1, 1, 1}, DB[8] = {0, 0, -1, 1, -1, 1, -1, 1};
    const int OPP[8] = {1, 0, 3, 2, 7, 6, 5, 4};
    bool bad = false;
#pragma unroll
    for (int d = 0; d < 8; d++) {
      int U = ((ti + DA[d] + nt) % nt) * nt + (tj + DB[d] + nt) % nt;
      bad |= sums[((long long)s * 16 + 8 + d) * ntiles + T] !=
             sums[((long long)s * 16 + OPP[d]) * ntiles + U];
    }
    if (bad) atomicOr(&mismatch[s], 1);
    ev = central[(long long)s * ntiles + T];
  }
  u64 tot = ev;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) tot += __shfl_down_sync(0xffffffffu, tot, o);
  if ((threadIdx.x & 31) == 0 && tot) atomicAdd(&step_events[s], tot);
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
