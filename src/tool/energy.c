/* energy.c: cumulative energy counters for the tool library (tool/energy.h:
 * (cis_energy_read, cis_energy_gpu_why, cis_energy_cpu_why).
 *
 * GPU: NVML, loaded at run time with dlopen("libnvidia-ml.so.1") so that the
 * library neither needs the NVML header nor links the driver: the three
 * entry points used are declared below with NVML's own C types reduced to
 * what the ABI needs (nvmlReturn_t is an int enum, nvmlDevice_t a pointer).
 * nvmlDeviceGetTotalEnergyConsumption gives millijoules since the driver
 * was loaded (Volta and later), 64-bit, no wrap. The NVML index is taken as
 * the CUDA device index, which holds unless CUDA_VISIBLE_DEVICES or
 * CUDA_DEVICE_ORDER reorder the devices.
 *
 * CPU: Intel RAPL through powercap (also used by the amd_energy/amd-rapl
 * drivers): the package domains /sys/class/powercap/intel-rapl:N/energy_uj
 * (not the subdomains intel-rapl:N:M, which the package already contains),
 * summed. Each counter wraps to 0 after max_energy_range_uj (about 262 kJ,
 * minutes at full load); every read differences the raw value against the
 * previous one with energy_rapl_delta_uj and accumulates, so cpu_joules is
 * monotone as long as reads are less than one wrap apart. Since Linux 5.10
 * energy_uj is readable by root only (CVE-2020-8694): then the CPU counter
 * is unavailable with that reason.
 *
 * Nothing here fails: an unreadable counter is NaN, and the *_why functions
 * say why. Reads are serialised by one mutex (the state is process-wide). */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cisparse/util.h" /* cis_option_get: the options energy_nvml and energy_rapl */
#include "tool/energy.h"

/* ---- NVML, declared by hand (nvml.h, NVML API version 2) ------------------ */
typedef int nvml_return;                    /* nvmlReturn_t; 0 = NVML_SUCCESS */
typedef struct nvml_device_st *nvml_device; /* nvmlDevice_t */
typedef nvml_return (*nvml_init_fn)(void);  /* nvmlInit_v2 */
typedef nvml_return (*nvml_handle_fn)(unsigned int index, nvml_device *dev); /* ..._v2 */
typedef nvml_return (*nvml_energy_fn)(nvml_device dev, unsigned long long *mj);
typedef const char *(*nvml_string_fn)(nvml_return r); /* nvmlErrorString */

#define MAX_PACKAGES 64
#define WHY_LEN 512

typedef struct rapl_pkg {
  char path[320];     /* .../intel-rapl:N/energy_uj */
  uint64_t max_range; /* max_energy_range_uj (0 = unknown) */
  uint64_t last;      /* previous raw reading */
  uint64_t total;     /* accumulated microjoules since the first reading */
} rapl_pkg;

static struct {
  pthread_once_t once;
  pthread_mutex_t lock;
  /* GPU */
  void *nvml_lib;
  nvml_handle_fn get_handle;
  nvml_energy_fn get_energy;
  nvml_string_fn err_string;
  char gpu_why[WHY_LEN];  /* why NVML as a whole is unavailable */
  char gpu_last[WHY_LEN]; /* why the last read failed ("" if it did not) */
  /* CPU */
  rapl_pkg pkg[MAX_PACKAGES];
  int npkg;
  int cpu_started;
  char cpu_why[WHY_LEN];
  char cpu_last[WHY_LEN];
} E = {.once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER};

uint64_t energy_rapl_delta_uj(uint64_t before, uint64_t after, uint64_t max_range_uj) {
  if (after >= before) return after - before;
  if (max_range_uj == 0 || before > max_range_uj) return 0; /* cannot tell: count nothing */
  return (max_range_uj - before) + after + 1;               /* wrapped once */
}

static const char *nvml_err(nvml_return r) {
  const char *s = E.err_string ? E.err_string(r) : NULL;
  return s ? s : "unknown NVML error";
}

static void nvml_open(void) {
  const char *lib = cis_option_get("energy_nvml");
  nvml_init_fn init;
  nvml_return r;
  if (!lib || !*lib) lib = "libnvidia-ml.so.1";
  if (!strcmp(lib, "none")) {
    snprintf(E.gpu_why, WHY_LEN, "NVML disabled (option energy_nvml=none)");
    return;
  }
  if (!(E.nvml_lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL))) {
    const char *d = dlerror();
    snprintf(E.gpu_why, WHY_LEN, "NVML not available: dlopen(%s) failed: %s", lib, d ? d : "?");
    return;
  }
  init = (nvml_init_fn)(void (*)(void))dlsym(E.nvml_lib, "nvmlInit_v2");
  E.get_handle = (nvml_handle_fn)(void (*)(void))dlsym(E.nvml_lib, "nvmlDeviceGetHandleByIndex_v2");
  E.get_energy = (nvml_energy_fn)(void (*)(void))dlsym(E.nvml_lib, "nvmlDeviceGetTotalEnergyConsumption");
  E.err_string = (nvml_string_fn)(void (*)(void))dlsym(E.nvml_lib, "nvmlErrorString");
  if (!init || !E.get_handle || !E.get_energy) {
    snprintf(E.gpu_why, WHY_LEN, "NVML not available: %s lacks nvmlInit_v2, "
             "nvmlDeviceGetHandleByIndex_v2 or nvmlDeviceGetTotalEnergyConsumption", lib);
  } else if ((r = init()) != 0) {
    snprintf(E.gpu_why, WHY_LEN, "NVML not available: nvmlInit_v2: %s (%d)", nvml_err(r), r);
  } else {
    return; /* ready */
  }
  E.get_handle = NULL;
  E.get_energy = NULL;
  E.err_string = NULL;
  dlclose(E.nvml_lib);
  E.nvml_lib = NULL;
}

/* Read one unsigned decimal from a sysfs file; 0 on success, else errno. */
static int read_u64(const char *path, uint64_t *v) {
  FILE *f = fopen(path, "r");
  unsigned long long x;
  int ok;
  if (!f) return errno ? errno : EIO;
  ok = fscanf(f, "%llu", &x) == 1;
  fclose(f);
  if (!ok) return EINVAL;
  *v = (uint64_t)x;
  return 0;
}

/* 1 if name is exactly "intel-rapl:N" (a package, not a subdomain N:M). */
static int is_package(const char *name) {
  unsigned idx;
  int end = 0;
  return sscanf(name, "intel-rapl:%u%n", &idx, &end) == 1 && name[end] == '\0';
}

static void rapl_open(void) {
  const char *dir = cis_option_get("energy_rapl");
  DIR *d;
  struct dirent *e;
  int unreadable = 0, first_err = 0;
  if (!dir || !*dir) dir = "/sys/class/powercap";
  if (!strcmp(dir, "none")) {
    snprintf(E.cpu_why, WHY_LEN, "RAPL disabled (option energy_rapl=none)");
    return;
  }
  if (!(d = opendir(dir))) {
    snprintf(E.cpu_why, WHY_LEN, "RAPL not available: %s: %s", dir, strerror(errno));
    return;
  }
  while ((e = readdir(d)) && E.npkg < MAX_PACKAGES) {
    rapl_pkg *p = &E.pkg[E.npkg];
    char range[320];
    uint64_t v;
    int err;
    if (!is_package(e->d_name)) continue;
    snprintf(p->path, sizeof p->path, "%s/%s/energy_uj", dir, e->d_name);
    snprintf(range, sizeof range, "%s/%s/max_energy_range_uj", dir, e->d_name);
    if ((err = read_u64(p->path, &v)) != 0) {
      if (!first_err) first_err = err;
      unreadable++;
      continue;
    }
    if (read_u64(range, &p->max_range) != 0) p->max_range = 0;
    p->last = v;
    p->total = 0;
    E.npkg++;
  }
  closedir(d);
  if (unreadable) { /* a partial sum would be wrong: all packages or none */
    E.npkg = 0;
    snprintf(E.cpu_why, WHY_LEN, "RAPL not available: %d package counter%s under %s unreadable "
             "(%s%s)", unreadable, unreadable > 1 ? "s" : "", dir, strerror(first_err),
             first_err == EACCES ? "; energy_uj is readable by root only since Linux 5.10" : "");
  } else if (E.npkg == 0) {
    snprintf(E.cpu_why, WHY_LEN, "RAPL not available: no intel-rapl:N package domains under %s", dir);
  }
}

static void energy_init(void) {
  nvml_open();
  rapl_open();
}

static double gpu_joules(int device) {
  nvml_device dev;
  unsigned long long mj;
  nvml_return r;
  E.gpu_last[0] = '\0';
  if (!E.get_energy) return NAN;
  if (device < 0) {
    snprintf(E.gpu_last, WHY_LEN, "NVML: device %d is not a device index", device);
    return NAN;
  }
  if ((r = E.get_handle((unsigned)device, &dev)) != 0) {
    snprintf(E.gpu_last, WHY_LEN, "NVML: device %d: %s (%d)", device, nvml_err(r), r);
    return NAN;
  }
  if ((r = E.get_energy(dev, &mj)) != 0) {
    snprintf(E.gpu_last, WHY_LEN, "NVML: nvmlDeviceGetTotalEnergyConsumption on device %d: %s (%d)",
             device, nvml_err(r), r);
    return NAN;
  }
  return (double)mj * 1e-3;
}

static double cpu_joules(void) {
  uint64_t raw[MAX_PACKAGES];
  double sum = 0;
  E.cpu_last[0] = '\0';
  if (E.npkg == 0) return NAN;
  for (int i = 0; i < E.npkg; ++i) { /* read all first: a failure leaves the state untouched */
    int err = read_u64(E.pkg[i].path, &raw[i]);
    if (err) {
      snprintf(E.cpu_last, WHY_LEN, "RAPL: %s: %s", E.pkg[i].path, strerror(err));
      return NAN;
    }
  }
  for (int i = 0; i < E.npkg; ++i) {
    rapl_pkg *p = &E.pkg[i];
    p->total += energy_rapl_delta_uj(p->last, raw[i], p->max_range);
    p->last = raw[i];
    sum += (double)p->total;
  }
  return sum * 1e-6;
}

cis_energy_sample cis_energy_read(int device) {
  cis_energy_sample s;
  struct timespec ts;
  pthread_once(&E.once, energy_init);
  pthread_mutex_lock(&E.lock);
  s.gpu_joules = gpu_joules(device);
  s.cpu_joules = cpu_joules();
  pthread_mutex_unlock(&E.lock);
  clock_gettime(CLOCK_MONOTONIC, &ts);
  s.seconds = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
  return s;
}

/* The library-wide reason if there is one, else the last read's (the strings
 * are static buffers: valid until the next cis_energy_read). */
const char *cis_energy_gpu_why(void) {
  pthread_once(&E.once, energy_init);
  return E.gpu_why[0] ? E.gpu_why : E.gpu_last;
}

const char *cis_energy_cpu_why(void) {
  pthread_once(&E.once, energy_init);
  return E.cpu_why[0] ? E.cpu_why : E.cpu_last;
}
