#include "ra_sherpa.h"

#include "ra_engine.h"

int ra_sherpa_api_load(const char *path, ra_sherpa_api *api, char *error, size_t error_size) {
    static const char *const names[] = {
#define RA_NAME(name) #name,
        RA_SHERPA_FUNCTIONS(RA_NAME)
#undef RA_NAME
    };
    ra_sherpa_api table;
    void **const slots[] = {
#define RA_SLOT(name) (void **)&table.name,
        RA_SHERPA_FUNCTIONS(RA_SLOT)
#undef RA_SLOT
    };
    if (ra_engine_open(path, names, slots, sizeof names / sizeof names[0], error, error_size) != 0) return -1;
    *api = table;
    return 0;
}
