#include "ra_llama.h"

#include "ra_engine.h"

int ra_llama_api_load(const char *path, ra_llama_api *api, char *error, size_t error_size) {
    static const char *const names[] = {
#define RA_NAME(name) #name,
        RA_LLAMA_FUNCTIONS(RA_NAME)
#undef RA_NAME
    };
    ra_llama_api table;
    void **const slots[] = {
#define RA_SLOT(name) (void **)&table.name,
        RA_LLAMA_FUNCTIONS(RA_SLOT)
#undef RA_SLOT
    };
    if (ra_engine_open(path, names, slots, sizeof names / sizeof names[0], error, error_size) != 0) return -1;
    *api = table;
    return 0;
}
