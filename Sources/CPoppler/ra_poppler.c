#include "ra_poppler.h"

RA_ENGINE_LOADER(ra_poppler_api_load, ra_poppler_api, RA_POPPLER_FUNCTIONS)
