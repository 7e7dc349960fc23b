#include "ra_sd.h"

RA_ENGINE_LOADER(ra_sd_api_load, ra_sd_api, RA_SD_FUNCTIONS)
