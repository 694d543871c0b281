/* test_energy.c: the energy counters (src/solvers/energy.c) without NVML
 * and without a real RAPL: NaN plus a reason, never a crash; the RAPL sum
 * over packages (subdomains ignored) and its wrap-around, on a fake powercap
 * tree; and the default paths in a child process (whatever this machine has,
 * a value is finite exactly when its reason is empty). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cisparse/solver.h"
#include "tool/energy.h"
#include "test_util.h"

static void test_delta(void) {
  CHECK(energy_rapl_delta_uj(100, 250, 1000) == 150, "plain difference");
  CHECK(energy_rapl_delta_uj(900, 99, 999) == 199, "one wrap: 999-900 + 99 + 1 = 199, got %llu",
        (unsigned long long)energy_rapl_delta_uj(900, 99, 999));
  CHECK(energy_rapl_delta_uj(5, 5, 1000) == 0, "no change");
  CHECK(energy_rapl_delta_uj(900, 99, 0) == 0, "unknown range: count nothing");
  CHECK(energy_rapl_delta_uj(2000, 99, 1000) == 0, "reading past the range: count nothing");
}

static void write_u64(const char *dir, const char *sub, const char *file, unsigned long long v) {
  char path[512];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s", dir, sub);
  mkdir(path, 0755);
  snprintf(path, sizeof path, "%s/%s/%s", dir, sub, file);
  f = fopen(path, "w");
  CHECK(f != NULL, "cannot write %s", path);
  if (f) {
    fprintf(f, "%llu\n", v);
    fclose(f);
  }
}

/* Default paths, in a child: no crash, finite <=> empty reason. */
static void test_default_paths(void) {
  pid_t pid = fork();
  int status = 0;
  if (pid == 0) {
    cis_energy_sample a = cis_energy_read(0), b = cis_energy_read(0);
    int ok = (isfinite(a.gpu_joules) == (cis_energy_gpu_why()[0] == '\0')) &&
             (isfinite(a.cpu_joules) == (cis_energy_cpu_why()[0] == '\0')) && b.seconds >= a.seconds &&
             (!isfinite(a.cpu_joules) || b.cpu_joules >= a.cpu_joules);
    printf("default paths: gpu %g J (%s), cpu %g J (%s)\n", a.gpu_joules, cis_energy_gpu_why(),
           a.cpu_joules, cis_energy_cpu_why());
    fflush(stdout);
    _exit(ok ? 0 : 1);
  }
  CHECK(pid > 0, "fork failed");
  if (pid > 0) waitpid(pid, &status, 0);
  CHECK(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0, "default-path read inconsistent or crashed");
}

int main(void) {
  char dir[] = "/tmp/cis_energy_XXXXXX", path[512];
  cis_energy_sample s0, s1, s2;

  test_delta();
  test_default_paths();

  /* arrange: two packages (one about to wrap) and a subdomain that must be ignored */
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  write_u64(dir, "intel-rapl:0", "energy_uj", 1000);
  write_u64(dir, "intel-rapl:0", "max_energy_range_uj", 5000);
  write_u64(dir, "intel-rapl:1", "energy_uj", 4000);
  write_u64(dir, "intel-rapl:1", "max_energy_range_uj", 5000);
  write_u64(dir, "intel-rapl:0:0", "energy_uj", 777777);
  write_u64(dir, "intel-rapl:0:0", "max_energy_range_uj", 999999999);
  CHECK_OK(cis_option_set("energy_rapl", dir));
  CHECK_OK(cis_option_set("energy_nvml", "libcisparse_no_such_nvml.so.1"));

  /* act */
  s0 = cis_energy_read(0);
  write_u64(dir, "intel-rapl:0", "energy_uj", 3000); /* +2000 */
  write_u64(dir, "intel-rapl:1", "energy_uj", 500);  /* wrapped: 5000-4000 + 500 + 1 = 1501 */
  write_u64(dir, "intel-rapl:0:0", "energy_uj", 1);  /* a subdomain going backwards: ignored */
  s1 = cis_energy_read(0);

  /* assert: GPU unavailable with a reason naming the library; CPU sums and unwraps */
  CHECK(isnan(s0.gpu_joules) && isnan(s1.gpu_joules), "gpu joules %g without NVML", s1.gpu_joules);
  CHECK(strstr(cis_energy_gpu_why(), "libcisparse_no_such_nvml.so.1") != NULL, "gpu why: '%s'",
        cis_energy_gpu_why());
  CHECK(s0.cpu_joules == 0.0, "first reading %g, expected 0", s0.cpu_joules);
  CHECK(fabs((s1.cpu_joules - s0.cpu_joules) - 3501e-6) < 1e-12, "delta %.9g J, expected 3.501e-3",
        s1.cpu_joules - s0.cpu_joules);
  CHECK(cis_energy_cpu_why()[0] == '\0', "cpu why '%s' while readable", cis_energy_cpu_why());
  CHECK(s1.seconds >= s0.seconds, "time went backwards");

  /* a counter that disappears: NaN and a reason naming it, not a crash */
  snprintf(path, sizeof path, "%s/intel-rapl:1/energy_uj", dir);
  unlink(path);
  s2 = cis_energy_read(0);
  CHECK(isnan(s2.cpu_joules), "cpu joules %g with a counter missing", s2.cpu_joules);
  CHECK(strstr(cis_energy_cpu_why(), "intel-rapl:1") != NULL, "cpu why: '%s'", cis_energy_cpu_why());
  /* negative device index: NaN, never a call into NVML with it */
  CHECK(isnan(cis_energy_read(-1).gpu_joules), "device -1");

  /* cleanup */
  snprintf(path, sizeof path, "rm -rf '%s'", dir);
  if (system(path) != 0) fprintf(stderr, "warning: could not remove %s\n", dir);
  return test_summary("test_energy");
}
