/* core/options.h: the library's tuning options (cisparse/util.h's table,
 * core/options.c), read where they tune by id: never the environment. */
#ifndef CISPARSE_CORE_OPTIONS_H
#define CISPARSE_CORE_OPTIONS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cis_opt {
  CIS_OPT_HYB_G,             /* hyb: threads a row (1..32) */
  CIS_OPT_HYB_UNROLL,        /* hyb: loads in flight a lane */
  CIS_OPT_HYB_LOCK,          /* hyb: phase-locked block size, 0 unlocked */
  CIS_OPT_FUSED_ELL_LB,      /* fused Krylov ELL kernel: 1 the 32-register build */
  CIS_OPT_SELL_P,            /* sell / sell16: threads a row */
  CIS_OPT_SELL_U,            /* sell: unroll */
  CIS_OPT_SELL_BPSM,         /* sell: blocks a multiprocessor, 0 no cap */
  CIS_OPT_SYM_SEG_R,         /* sym-seg: rows a window */
  CIS_OPT_SYM_SEG_CHUNKS,    /* sym-seg on the GPU: chunks a slot */
  CIS_OPT_SYM_SEG_LAYOUT,    /* sym-seg on the GPU: device, host */
  CIS_OPT_SIGMA,             /* direct CI sigma on the GPU: auto, fused, unfused */
  CIS_OPT_HALF_SCATTER,      /* direct CI half sigma's scatter: auto, all, reached */
  CIS_OPT_DIST_SUM,          /* summed operator's sum: rank, collective */
  CIS_OPT_DIST_RESPLIT,      /* direct CI over parts: auto, always, never */
  CIS_OPT_HOST_VECTORS_PIN,  /* host Davidson vectors page-locked: 1, 0 */
  CIS_OPT_EXCHANGE_PRIORITY, /* NCCL exchange streams at top priority: 1, 0 */
  CIS_OPT_DIST_TRACE,        /* distributed products' trace on stderr: 0, 1 */
  CIS_OPT_SCI_HALF,          /* selected-CI sigma of equal sets: auto, on, off */
  CIS_OPT_ENERGY_NVML,       /* the tool's GPU energy meter: NVML library, none */
  CIS_OPT_ENERGY_RAPL,       /* the tool's CPU energy meter: RAPL folder, none */
  CIS_OPT_COUNT
} cis_opt;

/* The value set, or NULL while the default holds; each of these marks the
 * option read (cis_options_unused). */
const char *cis_opt_str(cis_opt id);
/* The integer set, or def while the default holds. */
long cis_opt_int(cis_opt id, long def);
/* 1 when the value set is the word w. */
int cis_opt_is(cis_opt id, const char *w);

#ifdef __cplusplus
}
#endif
#endif
