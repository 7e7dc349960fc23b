#include "ra_whisper.h"

RA_ENGINE_LOADER(ra_whisper_api_load, ra_whisper_api, RA_WHISPER_FUNCTIONS)
