#include "ra_espeak.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int ra_espeak_api_load(const char *path, ra_espeak_api *api, char *error, size_t error_size) {
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        snprintf(error, error_size, "%s", dlerror());
        return -1;
    }
    ra_espeak_api table;
    memset(&table, 0, sizeof table);
#define RA_ESPEAK_RESOLVE(name)                                                    \
    *(void **)(&table.name) = dlsym(handle, #name);                                \
    if (table.name == NULL) {                                                      \
        snprintf(error, error_size, "%s has no symbol %s", path, #name);           \
        dlclose(handle);                                                           \
        return -1;                                                                 \
    }
    RA_ESPEAK_FUNCTIONS(RA_ESPEAK_RESOLVE)
#undef RA_ESPEAK_RESOLVE
    *api = table;
    return 0;
}
