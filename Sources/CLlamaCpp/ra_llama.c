#include "ra_llama.h"

RA_ENGINE_LOADER(ra_llama_api_load, ra_llama_api, RA_LLAMA_FUNCTIONS)
