#include "ra_sherpa.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int ra_sherpa_api_load(const char *path, ra_sherpa_api *api, char *error, size_t error_size) {
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        snprintf(error, error_size, "%s", dlerror());
        return -1;
    }
    ra_sherpa_api table;
    memset(&table, 0, sizeof table);
#define RA_SHERPA_RESOLVE(name)                                                    \
    *(void **)(&table.name) = dlsym(handle, #name);                                \
    if (table.name == NULL) {                                                      \
        snprintf(error, error_size, "%s has no symbol %s (wrong sherpa-onnx version?)", path, #name); \
        dlclose(handle);                                                           \
        return -1;                                                                 \
    }
    RA_SHERPA_FUNCTIONS(RA_SHERPA_RESOLVE)
#undef RA_SHERPA_RESOLVE
    *api = table;
    return 0;
}
