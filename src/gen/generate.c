/* generate.c: the public generator entry points (cisparse/gen.h): the spec's
 * kind picks the generator from one table. */
#include <string.h>
#include "gen/gen_internal.h"

typedef struct gen_kind {
  const char *name, *keys;
  cis_status (*make)(const gen_spec *sp, cis_dtype t, cis_csr **out);
} gen_kind;

static const gen_kind kinds[] = {
    {"ci", "rows, seed, cols, ref_frac, ref_per_row, ref_density, exp_per_row, exp_sd", gen_ci},
    {"laplace3d", "size, points", gen_laplace3d},
    {"powerlaw", "rows, seed, cols, avg, alpha, max", gen_powerlaw},
    {"random", "rows, cols, density, seed", gen_random}};
#define NKINDS (sizeof kinds / sizeof *kinds)

static const gen_kind *find_kind(const char *name) {
  for (size_t i = 0; i < NKINDS; ++i)
    if (!strcmp(kinds[i].name, name)) return &kinds[i];
  return NULL;
}

int cis_gen_is_spec(const char *s) {
  const char *colon = s ? strchr(s, ':') : NULL;
  if (!colon) return 0;
  for (size_t i = 0; i < NKINDS; ++i)
    if (strlen(kinds[i].name) == (size_t)(colon - s) && !strncmp(kinds[i].name, s, (size_t)(colon - s)))
      return 1;
  return 0;
}

cis_status cis_generate(const char *spec, cis_dtype t, cis_csr **out) {
  cis_status st;
  gen_spec sp;
  const gen_kind *k;
  if (!out) return cis_error(CIS_ERR_INVALID, "cis_generate: NULL output");
  *out = NULL;
  if (t != CIS_F64 && t != CIS_F32)
    return cis_error(CIS_ERR_INVALID, "cis_generate: unknown value type %d", (int)t);
  if ((st = gen_spec_parse(spec, &sp)) != CIS_OK) return st;
  if (!(k = find_kind(sp.kind))) {
    char names[64] = "";
    for (size_t i = 0; i < NKINDS; ++i) {
      strncat(names, i ? ", " : "", sizeof names - strlen(names) - 1);
      strncat(names, kinds[i].name, sizeof names - strlen(names) - 1);
    }
    return cis_error(CIS_ERR_NOT_FOUND, "generator spec '%s': unknown kind '%s' (known: %s)",
                     sp.text, sp.kind, names);
  }
  if ((st = gen_spec_check_keys(&sp, k->keys)) != CIS_OK) return st;
  return k->make(&sp, t, out);
}

cis_int cis_gen_reference_cols(const char *spec, cis_int cols) {
  gen_spec sp;
  cis_int ref = 0;
  if (cols <= 0 || gen_spec_parse(spec, &sp) != CIS_OK || strcmp(sp.kind, "ci") != 0) return 0;
  if (gen_ci_reference_cols(&sp, cols, &ref) != CIS_OK) return 0;
  return ref;
}
