/* nccl_patterns.c: the exchange patterns of the summed distributed operator
 * (src/distributed/dist_summed.c) timed against NCCL's own collectives on
 * the same buffers, one process driving every GPU of the host:
 *
 *   gather  G grouped in-place ncclBroadcast of each owner's rows (what
 *           bcast_parts does)  vs  one in-place ncclAllGather;
 *   reduce  G (G - 1) grouped ncclSend/ncclRecv of each part's contribution
 *           to every owner (what the exchange does before the owner's
 *           rank-order sum)  vs  one ncclReduceScatter.
 *
 * n doubles per whole vector split into G equal parts of ceil(n / G) rows.
 * Each pattern: 2 warm-up runs, then the median of `runs` of the wall time
 * from the first enqueue to the last stream's completion; prints ms and the
 * rate of the values each GPU receives ((G - 1) / G of a vector), GB/s.
 * Usage: cisparse_nccl_patterns [n] [gpus] [runs]. Keep NCCL_NVLS_ENABLE=0
 * (set here unless given). */
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXG 16
#define CK(x)                                                                      \
  do {                                                                             \
    cudaError_t e_ = (x);                                                          \
    if (e_ != cudaSuccess) {                                                       \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)
#define NK(x)                                                                      \
  do {                                                                             \
    ncclResult_t r_ = (x);                                                         \
    if (r_ != ncclSuccess) {                                                       \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, ncclGetErrorString(r_)); \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

static int G;
static size_t M; /* rows per part */
static ncclComm_t comm[MAXG];
static cudaStream_t stream[MAXG];
static double *whole[MAXG], *part[MAXG], *recv[MAXG];

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void sync_all(void) {
  for (int g = 0; g < G; ++g) {
    CK(cudaSetDevice(g));
    CK(cudaStreamSynchronize(stream[g]));
  }
}

static void bcast_parts(void) {
  NK(ncclGroupStart());
  for (int r = 0; r < G; ++r)
    for (int g = 0; g < G; ++g) NK(ncclBroadcast(whole[g] + r * M, whole[g] + r * M, M, ncclDouble, r, comm[g], stream[g]));
  NK(ncclGroupEnd());
}
static void allgather(void) {
  NK(ncclGroupStart());
  for (int g = 0; g < G; ++g) NK(ncclAllGather(whole[g] + g * M, whole[g], M, ncclDouble, comm[g], stream[g]));
  NK(ncclGroupEnd());
}
static void p2p_reduce(void) {
  NK(ncclGroupStart());
  for (int g = 0; g < G; ++g)
    for (int q = 0; q < G; ++q) {
      if (q == g) continue;
      NK(ncclSend(part[g] + q * M, M, ncclDouble, q, comm[g], stream[g]));
      NK(ncclRecv(recv[g] + (q < g ? q : q - 1) * M, M, ncclDouble, q, comm[g], stream[g]));
    }
  NK(ncclGroupEnd());
}
static void reduce_scatter(void) {
  NK(ncclGroupStart());
  for (int g = 0; g < G; ++g) NK(ncclReduceScatter(part[g], recv[g], M, ncclDouble, ncclSum, comm[g], stream[g]));
  NK(ncclGroupEnd());
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void time_it(const char *name, void (*f)(void), int runs) {
  double t[64];
  if (runs > 64) runs = 64;
  for (int k = 0; k < 2; ++k) f();
  sync_all();
  for (int k = 0; k < runs; ++k) {
    double t0 = now();
    f();
    sync_all();
    t[k] = now() - t0;
  }
  qsort(t, runs, sizeof *t, cmp);
  const double ms = 1e3 * t[runs / 2], in = (double)(G - 1) * M * sizeof(double);
  printf("%-16s G=%d rows/part=%zu  median %9.3f ms (min %9.3f)  %7.1f GB/s received per GPU\n", name, G, M, ms,
         1e3 * t[0], in / (ms * 1e-3) / 1e9);
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 165636900;
  int want = argc > 2 ? atoi(argv[2]) : 0, runs = argc > 3 ? atoi(argv[3]) : 7, count = 0;
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  CK(cudaGetDeviceCount(&count));
  G = want > 0 && want <= count ? want : count;
  if (G < 2 || G > MAXG) {
    printf("nccl_patterns: needs 2..%d GPUs, this host has %d\n", MAXG, count);
    return 0;
  }
  M = (n + G - 1) / G;
  int devs[MAXG];
  for (int g = 0; g < G; ++g) devs[g] = g;
  NK(ncclCommInitAll(comm, G, devs));
  for (int g = 0; g < G; ++g) {
    CK(cudaSetDevice(g));
    CK(cudaStreamCreateWithFlags(&stream[g], cudaStreamNonBlocking));
    CK(cudaMalloc((void **)&whole[g], G * M * sizeof(double)));
    CK(cudaMalloc((void **)&part[g], G * M * sizeof(double)));
    CK(cudaMalloc((void **)&recv[g], (G - 1) * M * sizeof(double)));
    CK(cudaMemset(whole[g], 0, G * M * sizeof(double)));
    CK(cudaMemset(part[g], 0, G * M * sizeof(double)));
  }
  printf("n = %zu doubles (%.2f GB a vector), %d GPUs, %d runs\n", n, n * 8e-9, G, runs);
  time_it("bcast_parts", bcast_parts, runs);
  time_it("ncclAllGather", allgather, runs);
  time_it("p2p reduce", p2p_reduce, runs);
  time_it("ncclReduceScatter", reduce_scatter, runs);
  for (int g = 0; g < G; ++g) {
    CK(cudaSetDevice(g));
    cudaFree(whole[g]);
    cudaFree(part[g]);
    cudaFree(recv[g]);
    ncclCommDestroy(comm[g]);
  }
  return 0;
}
