#include "ra_mtmd.h"

RA_ENGINE_LOADER(ra_mtmd_api_load, ra_mtmd_api, RA_MTMD_FUNCTIONS)
