#include "ra_whisper.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int ra_whisper_api_load(const char *path, ra_whisper_api *api, char *error, size_t error_size) {
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        snprintf(error, error_size, "%s", dlerror());
        return -1;
    }
    ra_whisper_api table;
    memset(&table, 0, sizeof table);
#define RA_WHISPER_RESOLVE(name)                                                              \
    *(void **)(&table.name) = dlsym(handle, #name);                                           \
    if (table.name == NULL) {                                                                 \
        snprintf(error, error_size, "%s has no symbol %s (wrong whisper.cpp version?)", path, #name); \
        dlclose(handle);                                                                      \
        return -1;                                                                            \
    }
    RA_WHISPER_FUNCTIONS(RA_WHISPER_RESOLVE)
#undef RA_WHISPER_RESOLVE
    *api = table;
    return 0;
}
