/* bench_report.c: the outputs of `cisparse bench`: a terminal table shaped
 * like the paper's Table 9 (kernel, ms, GFLOP/s, GB/s, % of measured
 * bandwidth, speedup over the fastest cuSPARSE, relative error; then the
 * stored bytes per nonzero), CSV, JSON. */
#include <math.h>
#include <string.h>
#include "cli/bench.h"

static const char *na(const bench_row *w) { return w->note[0] ? w->note : NULL; }

void bench_print_table(FILE *f, const bench_run *r) {
  fprintf(f, "\n%s: %lld x %lld, %lld nonzeros, %s, %s\n", r->matrix, (long long)r->rows,
          (long long)r->cols, (long long)r->nnz, cis_dtype_name(r->dtype), r->device);
  if (r->gpu)
    fprintf(f, "streaming read bandwidth (measured): %.0f GB/s; median of %d runs after %d warm-up; "
               "GB/s counts format bytes + x once + y once\n", r->bw_gbs, r->runs, r->warmup);
  fprintf(f, "%-22s %6s %10s %9s %9s %6s %9s %10s %6s\n", "kernel", "block", "ms", "GFLOP/s", "GB/s",
          r->gpu ? "%BW" : "", "vs cuSP", "rel.err", "B/nnz");
  for (int i = 0; i < r->n; ++i) {
    const bench_row *w = &r->rows_out[i];
    char blk[16] = "-";
    if (w->block) snprintf(blk, sizeof blk, "%d", w->block);
    if (na(w)) {
      fprintf(f, "%-22s %6s  %s\n", w->label, blk, w->note);
      continue;
    }
    fprintf(f, "%-22s %6s %10.4f %9.1f %9.1f", w->label, blk, w->ms, w->gflops, w->gbs);
    if (r->gpu) fprintf(f, " %5.1f%%", w->pct_bw); else fprintf(f, " %6s", "");
    if (w->speedup > 0) fprintf(f, " %8.2fx", w->speedup); else fprintf(f, " %9s", "-");
    fprintf(f, " %10.2e", w->rel_err);
    /* bytes per nonzero of the stored matrix (padding, indices, offsets included) */
    if (r->nnz > 0) fprintf(f, " %6.2f\n", (double)w->matrix_bytes / (double)r->nnz);
    else fprintf(f, " %6s\n", "-");
  }
}

cis_status bench_write_csv(const char *path, const bench_run *r) {
  FILE *f = fopen(path, "w");
  if (!f) return cis_error(CIS_ERR_IO, "%s: cannot open for writing", path);
  fprintf(f, "# %s\n# device: %s\n# bandwidth_gbs: %.1f\n", r->command, r->device, r->bw_gbs);
  fprintf(f, "matrix,rows,cols,nnz,precision,kernel,format,block,cusparse,ms,gflops,gbs,pct_bw,"
             "speedup_vs_cusparse,rel_err,bytes,matrix_bytes,note\n");
  for (int i = 0; i < r->n; ++i) {
    const bench_row *w = &r->rows_out[i];
    char pct[32] = "", speedup[32] = ""; /* empty where they do not apply (as null in the JSON) */
    if (r->gpu && w->pct_bw > 0) snprintf(pct, sizeof pct, "%.2f", w->pct_bw);
    if (w->speedup > 0) snprintf(speedup, sizeof speedup, "%.4f", w->speedup);
    fprintf(f, "\"%s\",%lld,%lld,%lld,%s,%s,%s,%d,%d,%.6f,%.3f,%.3f,%s,%s,%.3e,%lld,%lld,\"%s\"\n",
            r->matrix, (long long)r->rows, (long long)r->cols, (long long)r->nnz,
            cis_dtype_name(r->dtype), w->label, w->format, w->block, w->is_cusparse, w->ms,
            w->gflops, w->gbs, pct, speedup, w->rel_err, (long long)w->bytes,
            (long long)w->matrix_bytes, w->note);
  }
  int bad = ferror(f);
  if (fclose(f) || bad) return cis_error(CIS_ERR_IO, "%s: write error", path);
  return CIS_OK;
}

void bench_write_json(FILE *f, const bench_run *r) {
  fprintf(f, "{\n  \"command\": ");
  cli_json_string(f, r->command);
  fprintf(f, ",\n  \"matrix\": ");
  cli_json_string(f, r->matrix);
  fprintf(f, ",\n  \"rows\": %lld, \"cols\": %lld, \"nnz\": %lld, \"precision\": \"%s\",\n",
          (long long)r->rows, (long long)r->cols, (long long)r->nnz, cis_dtype_name(r->dtype));
  fprintf(f, "  \"gpu\": %s, \"device\": ", r->gpu ? "true" : "false");
  cli_json_string(f, r->device);
  fprintf(f, ", \"units\": {\"ms\": \"milliseconds per SpMV\", \"gbs\": \"GB/s (1e9 bytes)\", \"bytes\": \"bytes\"}, ");
  cli_json_num(f, "bandwidth_gbs", r->gpu && r->bw_gbs > 0 ? r->bw_gbs : NAN, "%.2f", NULL); /* null: not measured (CPU) */
  fprintf(f, ", \"runs\": %d, \"warmup\": %d,\n  \"results\": [\n", r->runs, r->warmup);
  for (int i = 0; i < r->n; ++i) {
    const bench_row *w = &r->rows_out[i];
    fprintf(f, "    {\"kernel\": ");
    cli_json_string(f, w->label);
    fprintf(f, ", \"format\": ");
    cli_json_string(f, w->format);
    fprintf(f, ", \"block\": %d, \"cusparse\": %s, ", w->block, w->is_cusparse ? "true" : "false");
    if (na(w)) {
      fprintf(f, "\"note\": ");
      cli_json_string(f, w->note);
    } else {
      fprintf(f, "\"ms\": %.6f, \"gflops\": %.3f, \"gbs\": %.3f, ", w->ms, w->gflops, w->gbs);
      /* null where they do not apply: no measured bandwidth (CPU), no cuSPARSE row to compare with */
      cli_json_num(f, "pct_bw", r->gpu && w->pct_bw > 0 ? w->pct_bw : NAN, "%.2f", NULL);
      fprintf(f, ", ");
      cli_json_num(f, "speedup_vs_cusparse", w->speedup > 0 ? w->speedup : NAN, "%.4f", NULL);
      fprintf(f, ", ");
      cli_json_num(f, "rel_err", w->rel_err, "%.3e", NULL);
      fprintf(f, ", \"bytes\": %lld, \"matrix_bytes\": %lld", (long long)w->bytes,
              (long long)w->matrix_bytes);
    }
    fprintf(f, "}%s\n", i + 1 < r->n ? "," : "");
  }
  fprintf(f, "  ]\n}\n");
}
