#include "ra_engine.h"

#include <dlfcn.h>
#include <malloc.h>
#include <stdio.h>

int ra_engine_open(const char *path, const char *const *names, void **const *slots, size_t count, char *error, size_t error_size) {
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        snprintf(error, error_size, "%s", dlerror());
        return -1;
    }
    for (size_t index = 0; index < count; index++) {
        *slots[index] = dlsym(handle, names[index]);
        if (*slots[index] == NULL) {
            snprintf(error, error_size, "%s has no symbol %s (wrong version?)", path, names[index]);
            dlclose(handle);
            return -1;
        }
    }
    return 0;
}

void ra_engine_release_free_memory(void) {
    malloc_trim(0);
}

void ra_engine_limit_malloc_arenas(int count) {
    mallopt(M_ARENA_MAX, count);
}
