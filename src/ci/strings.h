/* strings.h: occupation strings of one spin in graphical (colexicographic)
 * addressing and their single-replacement link lists, for the direct
 * (string-driven) CI sigma of sigma.c.
 *
 * Addressing: the C(norb, nel) strings with nel electrons in norb orbitals,
 * bit p = orbital p, are numbered in increasing order of their value as
 * integers (colexicographic order, PySCF cistring's order). With the occupied
 * orbitals o_1 < o_2 < ... < o_nel (0-based) the address is
 *   addr = sum_{i=1..nel} C(o_i, i)
 * (the combinatorial number system: Knuth, TAOCP 4A, §7.2.1.3, eq. (20); the
 * weights of the Duch/Olsen graph with orbitals as levels), so address <->
 * string costs nel binomials either way.
 *
 * Links (Olsen et al., J. Chem. Phys. 89, 2185 (1988), §II.B; Knowles & Handy,
 * Chem. Phys. Lett. 111, 315 (1984)): for every string I, every occupied q
 * and every p empty in I or p == q, a^+_p a_q |I> = sign |J>, sign =
 * (-1)^(occupied orbitals of I strictly between p and q). nlink =
 * nel (norb - nel + 1) entries per string, ordered by q ascending then p
 * ascending; each entry keeps J's address, the packed pair index
 * pair(p, q) = max(max+1)/2 + min and the sign. */
#ifndef CISPARSE_CI_STRINGS_H
#define CISPARSE_CI_STRINGS_H

#include <stdint.h>
#include "cisparse/types.h"

/* One single replacement a^+_p a_q |I> = sign |J> (8 bytes). */
typedef struct ci_link {
  int32_t str;  /* address of J */
  int16_t pair; /* pair(p, q) */
  int16_t sign; /* +1 or -1 */
} ci_link;

typedef struct ci_strings {
  int norb, nel;
  cis_int count; /* C(norb, nel) */
  int nlink;     /* links per string: nel (norb - nel + 1) */
  uint64_t *str; /* count strings in address order */
  ci_link *link; /* count * nlink: the links of string I at link + I*nlink */
} ci_strings;

/* C(n, k) for 0 <= k, n <= 64; 0 when k > n or k < 0; -1 when it exceeds
 * INT64_MAX. */
cis_int ci_binom(int n, int k);
/* Address of string s (its colexicographic rank among strings of the same
 * popcount). */
cis_int ci_string_addr(uint64_t s);
/* The string of address addr with nel electrons (addr < C(norb, nel)). */
uint64_t ci_string_of_addr(cis_int addr, int nel);
/* Strings and link-list bytes of (norb, nel) from closed-form binomials,
 * before allocating anything: count = C(norb, nel), bytes = count * (8 +
 * 8 nlink). CIS_ERR_OVERFLOW (with the numbers) when the count exceeds the
 * 31-bit addresses of the links or the bytes exceed 64 bits. */
cis_status ci_strings_size(int norb, int nel, cis_int *count, cis_int *bytes);
/* Build the strings and their link lists (OpenMP over strings). */
cis_status ci_strings_create(int norb, int nel, ci_strings **out);
/* Free; NULL accepted. */
void ci_strings_free(ci_strings *s);

#endif
