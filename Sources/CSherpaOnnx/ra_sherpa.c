#include "ra_sherpa.h"

RA_ENGINE_LOADER(ra_sherpa_api_load, ra_sherpa_api, RA_SHERPA_FUNCTIONS)
