#include "ra_ort.h"
#include "ra_engine.h"
#include <stdio.h>
#include <string.h>

// OrtApiBase: { const OrtApi *(*GetApi)(uint32_t version); const char *(*GetVersionString)(void); }
typedef struct ra_ort_api_base {
    const void *const *(*GetApi)(uint32_t version);
    const char *(*GetVersionString)(void);
} ra_ort_api_base;

// Positions in ONNX Runtime's OrtApi table (see ra_ort.h).
#define RA_ORT_SLOT(field, position) memcpy(&api->field, &table[position], sizeof(void *));

int ra_ort_api_load(const char *path, ra_ort_api *api, char *error, size_t error_size) {
    const ra_ort_api_base *(*get_api_base)(void) = NULL;
    static const char *const names[] = {"OrtGetApiBase"};
    void **const slots[] = {(void **)&get_api_base};
    if (ra_engine_open(path, names, slots, 1, error, error_size) != 0) return -1;
    const ra_ort_api_base *base = get_api_base();
    const void *const *table = base ? base->GetApi(RA_ORT_API_VERSION) : NULL;
    if (table == NULL) {
        snprintf(error, error_size, "%s does not provide ONNX Runtime API version %d", path, RA_ORT_API_VERSION);
        return -1;
    }
    RA_ORT_SLOT(GetErrorMessage, 2)
    RA_ORT_SLOT(CreateEnv, 3)
    RA_ORT_SLOT(CreateSessionFromArray, 8)
    RA_ORT_SLOT(Run, 9)
    RA_ORT_SLOT(CreateSessionOptions, 10)
    RA_ORT_SLOT(SetSessionGraphOptimizationLevel, 23)
    RA_ORT_SLOT(SetIntraOpNumThreads, 24)
    RA_ORT_SLOT(SetInterOpNumThreads, 25)
    RA_ORT_SLOT(CreateTensorWithDataAsOrtValue, 49)
    RA_ORT_SLOT(GetTensorMutableData, 51)
    RA_ORT_SLOT(GetDimensionsCount, 61)
    RA_ORT_SLOT(GetDimensions, 62)
    RA_ORT_SLOT(GetTensorShapeElementCount, 64)
    RA_ORT_SLOT(GetTensorTypeAndShape, 65)
    RA_ORT_SLOT(CreateCpuMemoryInfo, 69)
    RA_ORT_SLOT(ReleaseEnv, 92)
    RA_ORT_SLOT(ReleaseStatus, 93)
    RA_ORT_SLOT(ReleaseMemoryInfo, 94)
    RA_ORT_SLOT(ReleaseSession, 95)
    RA_ORT_SLOT(ReleaseValue, 96)
    RA_ORT_SLOT(ReleaseTensorTypeAndShapeInfo, 99)
    RA_ORT_SLOT(ReleaseSessionOptions, 100)
    snprintf(api->version, sizeof api->version, "%s", base->GetVersionString ? base->GetVersionString() : "unknown");
    return 0;
}
