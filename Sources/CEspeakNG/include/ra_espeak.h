// A table of the espeak-ng functions RunAnywhere calls, filled by dlopen/dlsym (see ra_llama.h).
// Their declarations are the package's own, in ra_espeak_declarations.h (checked against
// espeak-ng's speak_lib.h by scripts/check-declarations), so no engine is needed to build.
#ifndef RA_ESPEAK_H
#define RA_ESPEAK_H

#include "ra_espeak_declarations.h"
#include "ra_engine.h"
#include <stddef.h>

#define RA_ESPEAK_FUNCTIONS(X)   \
    X(espeak_Initialize)         \
    X(espeak_SetVoiceByName)     \
    X(espeak_TextToPhonemes)     \
    X(espeak_SetSynthCallback)   \
    X(espeak_Synth)              \
    X(espeak_SetParameter)

/// Function pointers into one dlopen'ed libespeak-ng.
typedef struct ra_espeak_api {
    RA_ESPEAK_FUNCTIONS(RA_ENGINE_FIELD)
} ra_espeak_api;

/// Opens the library at `path` with RTLD_NOW | RTLD_LOCAL and fills `api`. Returns 0 on
/// success; otherwise writes a message to `error` and returns -1. Never closed.
int ra_espeak_api_load(const char * _Nonnull path, ra_espeak_api * _Nonnull api, char * _Nonnull error, size_t error_size);

#endif
