#include "ra_espeak.h"

RA_ENGINE_LOADER(ra_espeak_api_load, ra_espeak_api, RA_ESPEAK_FUNCTIONS)
