/* loader.c: finds libcuda, libnvrtc and libcudart at run time and resolves their entry points.
 * Owns the tables `cu` and `nvrtc`, written once under a mutex and read lock-free after.
 * Relies on dlopen/dlsym only; it touches no Python API, so it runs without the GIL. */
#define _GNU_SOURCE
#include "loader.h"

#include <dlfcn.h>
#include <unistd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct cu_driver_table cu;
struct nvrtc_table nvrtc;

/* A leaf lock: taken only without the GIL (dlopen runs library constructors and cuInit can take
 * seconds), and nothing is waited for while it is held but the loader and cuInit. */
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int driver_state; /* 0: not tried, 1: loaded, -1: failed */
static char driver_why[1024];
static atomic_int nvrtc_state; /* as driver_state */
static char nvrtc_why[2048];

int cu_driver_ready(void)
{
    return atomic_load_explicit(&driver_state, memory_order_acquire) == 1;
}

int nvrtc_ready(void)
{
    return atomic_load_explicit(&nvrtc_state, memory_order_acquire) == 1;
}

/* Resolves `symbol`, falling back to `plain` (the unversioned name) for older drivers. */
static void *resolve(void *lib, const char *symbol, const char *plain)
{
    void *fn = dlsym(lib, symbol);
    if (fn == NULL && strcmp(symbol, plain) != 0)
        fn = dlsym(lib, plain);
    return fn;
}

static int resolve_driver_table(void *lib)
{
#define CU_RESOLVE_REQUIRED(name, symbol)                                                                          \
    cu.name = (PFN_##name)resolve(lib, #symbol, #name);                                                            \
    if (cu.name == NULL) {                                                                                         \
        snprintf(driver_why, sizeof driver_why,                                                                    \
                 "the CUDA driver library lacks the entry point %s: the driver is too old", #symbol);              \
        return -1;                                                                                                 \
    }
#define CU_RESOLVE_OPTIONAL(name, symbol) cu.name = (PFN_##name)resolve(lib, #symbol, #name);
    CU_REQUIRED_FUNCTIONS(CU_RESOLVE_REQUIRED)
    CU_OPTIONAL_FUNCTIONS(CU_RESOLVE_OPTIONAL)
#undef CU_RESOLVE_REQUIRED
#undef CU_RESOLVE_OPTIONAL
    return 0;
}

/* Opens the driver library as numba does: NUMBA_CUDA_DRIVER (a file path; "0" disables CUDA),
 * else libcuda.so.1, else libcuda.so. Returns NULL with driver_why set. */
static void *open_driver_library(void)
{
    const char *disable = getenv("NUMBA_DISABLE_CUDA");
    if (disable != NULL && atoi(disable) != 0) {
        /* numba's words, which users and tests match */
        snprintf(driver_why, sizeof driver_why,
                 "CUDA is disabled due to setting NUMBA_DISABLE_CUDA=1 in the environment, or because CUDA is "
                 "unsupported on 32-bit systems.");
        return NULL;
    }
    const char *env = getenv("NUMBA_CUDA_DRIVER");
    if (env != NULL && env[0] != '\0') {
        struct stat info;
        if (strcmp(env, "0") == 0) {
            snprintf(driver_why, sizeof driver_why, "CUDA is disabled: NUMBA_CUDA_DRIVER=0");
            return NULL;
        }
        if (stat(env, &info) != 0 || !S_ISREG(info.st_mode)) {
            snprintf(driver_why, sizeof driver_why,
                     "NUMBA_CUDA_DRIVER=%s is not a file: it must be the path of the CUDA driver library", env);
            return NULL;
        }
        void *lib = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (lib == NULL)
            snprintf(driver_why, sizeof driver_why,
                     "the CUDA driver library NUMBA_CUDA_DRIVER=%s could not be loaded: %s", env, dlerror());
        return lib;
    }
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL)
        lib = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL)
        snprintf(driver_why, sizeof driver_why,
                 "the CUDA driver library was not found: looked for libcuda.so.1 and libcuda.so on the "
                 "dynamic loader's path (LD_LIBRARY_PATH, ld.so.cache); set NUMBA_CUDA_DRIVER to its path (%s); "
                 "with no GPU, NUMBA_ENABLE_CUDASIM=1 runs kernels on the CPU simulator",
                 dlerror());
    return lib;
}

static pid_t driver_pid; /* the process that ran cuInit: a forked child inherits a driver it cannot use */

static int load_driver_locked(void)
{
    void *lib = open_driver_library();
    if (lib == NULL)
        return -1;
    if (resolve_driver_table(lib) < 0) {
        memset(&cu, 0, sizeof cu); /* no pointer into the library may outlive it */
        dlclose(lib);
        return -1;
    }
    CUresult rc = cu.cuInit(0);
    if (rc != CUDA_SUCCESS) {
        const char *name = "an unknown error", *text = "";
        if (cu.cuGetErrorName(rc, &name) != CUDA_SUCCESS)
            name = "an unknown error";
        if (cu.cuGetErrorString(rc, &text) != CUDA_SUCCESS)
            text = "";
        /* numba's form, "Error at driver init: <name> (<code>)", then what the driver says */
        snprintf(driver_why, sizeof driver_why, "Error at driver init: %s (%d): cuInit failed: %s", name, (int)rc,
                 text);
        return -1; /* the library stays open: its error strings may be referenced */
    }
    driver_pid = getpid();
    return 0;
}

int cu_driver_forked(void)
{
    return cu_driver_ready() && getpid() != driver_pid;
}

int cu_driver_tried(void)
{
    return atomic_load_explicit(&driver_state, memory_order_acquire) != 0;
}

void cu_driver_refuse(const char *why)
{
    pthread_mutex_lock(&load_lock);
    if (atomic_load_explicit(&driver_state, memory_order_relaxed) == 0) {
        snprintf(driver_why, sizeof driver_why, "%s", why);
        atomic_store_explicit(&driver_state, -1, memory_order_release);
    }
    pthread_mutex_unlock(&load_lock);
}

int cu_driver_load(const char **why)
{
    int state = atomic_load_explicit(&driver_state, memory_order_acquire);
    if (state == 0) {
        pthread_mutex_lock(&load_lock);
        state = atomic_load_explicit(&driver_state, memory_order_relaxed);
        if (state == 0) {
            state = load_driver_locked() == 0 ? 1 : -1;
            atomic_store_explicit(&driver_state, state, memory_order_release);
        }
        pthread_mutex_unlock(&load_lock);
    }
    if (state == 1)
        return 0;
    *why = driver_why;
    return -1;
}

/* Tries each name in each directory, then (with loader_path) on the loader's own path. Appends what it tried
 * to `tried` so the error can say where it looked. */
static void *open_first(const char *const *dirs, int ndirs, const char *const *names, int nnames, char *tried,
                        size_t tried_size, int loader_path)
{
    char path[4096];
    size_t used = strlen(tried);
    for (int d = 0; d < ndirs + (loader_path ? 1 : 0); d++) {
        for (int n = 0; n < nnames; n++) {
            if (d < ndirs)
                snprintf(path, sizeof path, "%s/%s", dirs[d], names[n]);
            else
                snprintf(path, sizeof path, "%s", names[n]);
            void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            if (lib != NULL)
                return lib;
        }
        if (used + 4 < tried_size) {
            int wrote = snprintf(tried + used, tried_size - used, "%s%s", used ? ", " : "",
                                 d < ndirs ? dirs[d] : "the dynamic loader's path");
            if (wrote > 0)
                used += (size_t)wrote < tried_size - used ? (size_t)wrote : tried_size - used - 1;
        }
    }
    return NULL;
}

static const char *const nvrtc_names[] = {"libnvrtc.so.13",   "libnvrtc.so.12",   "libnvrtc.so.11.2",
                                          "libnvrtc.so.11.1", "libnvrtc.so.11.0", "libnvrtc.so"};
static const char *const cudart_names[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0",
                                           "libcudart.so"};

/* Resolves every NVRTC entry point from `lib`; 0, or -1 naming the first one missing. */
static int resolve_nvrtc_table(void *lib)
{
#define NVRTC_RESOLVE(name, symbol)                                                                                \
    if ((nvrtc.name = (PFN_##name)dlsym(lib, #symbol)) == NULL) {                                                  \
        snprintf(nvrtc_why, sizeof nvrtc_why, "the NVRTC library lacks %s: it is too old", #symbol);               \
        return -1;                                                                                                 \
    }
    NVRTC_FUNCTIONS(NVRTC_RESOLVE)
#undef NVRTC_RESOLVE
    return 0;
}

int nvrtc_load(const char *const *dirs, int ndirs, const char **why)
{
    pthread_mutex_lock(&load_lock);
    if (atomic_load_explicit(&nvrtc_state, memory_order_relaxed) == 0) {
        char tried[1536] = "";
        int found = -1;
        snprintf(nvrtc_why, sizeof nvrtc_why,
                 "NVRTC (libnvrtc.so) was not found; looked in: %s. Install the CUDA toolkit or the "
                 "nvidia-cuda-nvrtc wheel, or set CUDA_HOME",
                 "(nowhere)");
        /* Each directory in turn, so that a library too old to use does not stop the search. */
        for (int d = 0; d <= ndirs && found != 1; d++) {
            void *lib = d < ndirs ? open_first(dirs + d, 1, nvrtc_names, sizeof nvrtc_names / sizeof *nvrtc_names,
                                               tried, sizeof tried, 0)
                                  : open_first(NULL, 0, nvrtc_names, sizeof nvrtc_names / sizeof *nvrtc_names,
                                               tried, sizeof tried, 1);
            if (lib == NULL)
                continue;
            if (resolve_nvrtc_table(lib) == 0)
                found = 1;
            else {
                memset(&nvrtc, 0, sizeof nvrtc);
                dlclose(lib);
            }
        }
        if (found != 1 && strstr(nvrtc_why, "lacks") == NULL)
            snprintf(nvrtc_why, sizeof nvrtc_why,
                     "NVRTC (libnvrtc.so) was not found; looked in: %s. Install the CUDA toolkit or the "
                     "nvidia-cuda-nvrtc wheel, or set CUDA_HOME",
                     tried);
        atomic_store_explicit(&nvrtc_state, found, memory_order_release); /* the table is complete first */
    }
    int state = atomic_load_explicit(&nvrtc_state, memory_order_relaxed);
    pthread_mutex_unlock(&load_lock);
    if (state == 1)
        return 0;
    *why = nvrtc_why;
    return -1;
}

int cudart_version(const char *const *dirs, int ndirs, int *version)
{
    char tried[1536] = "";
    void *lib =
        open_first(dirs, ndirs, cudart_names, sizeof cudart_names / sizeof *cudart_names, tried, sizeof tried, 1);
    if (lib == NULL)
        return -1;
    typedef int (*PFN_cudaRuntimeGetVersion)(int *);
    PFN_cudaRuntimeGetVersion get = (PFN_cudaRuntimeGetVersion)dlsym(lib, "cudaRuntimeGetVersion");
    int ok = get != NULL && get(version) == 0;
    dlclose(lib);
    return ok ? 0 : -1;
}
