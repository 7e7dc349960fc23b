// A table of the sherpa-onnx C API functions RunAnywhere calls, filled by dlopen/dlsym (see
// ra_llama.h). Their declarations are the package's own, in ra_sherpa_declarations.h (checked
// against sherpa-onnx's c-api.h by scripts/check-declarations), so no engine is needed to build.
#ifndef RA_SHERPA_H
#define RA_SHERPA_H

#include "ra_sherpa_declarations.h"
#include "ra_engine.h"
#include <stddef.h>

#define RA_SHERPA_FUNCTIONS(X)                        \
    X(SherpaOnnxCreateOfflineTts)                     \
    X(SherpaOnnxDestroyOfflineTts)                    \
    X(SherpaOnnxOfflineTtsSampleRate)                 \
    X(SherpaOnnxOfflineTtsGenerateWithConfig)         \
    X(SherpaOnnxDestroyOfflineTtsGeneratedAudio)

/// Function pointers into one dlopen'ed libsherpa-onnx-c-api.
typedef struct ra_sherpa_api {
    RA_SHERPA_FUNCTIONS(RA_ENGINE_FIELD)
} ra_sherpa_api;

/// Opens the library at `path` with RTLD_NOW | RTLD_LOCAL and fills `api`. Returns 0 on
/// success; otherwise writes a message to `error` and returns -1. Never closed.
int ra_sherpa_api_load(const char * _Nonnull path, ra_sherpa_api * _Nonnull api, char * _Nonnull error, size_t error_size);

#endif
