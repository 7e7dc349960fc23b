// ONNX Runtime's C API, reached the way ONNX Runtime publishes it: one exported function,
// OrtGetApiBase(), whose GetApi(version) returns a table of function pointers (`OrtApi`). The
// runtime comes with the sherpa-onnx-core wheel, which ships no ONNX Runtime header, so the
// functions RunAnywhere calls are declared here with their documented signatures and taken from
// the table by position: `OrtApi` only ever grows at its end, so a position never changes.
#ifndef RA_ORT_H
#define RA_ORT_H

#include <stddef.h>
#include <stdint.h>

typedef struct ra_ort_status ra_ort_status;            // OrtStatus: NULL means success
typedef struct ra_ort_env ra_ort_env;                  // OrtEnv
typedef struct ra_ort_session ra_ort_session;          // OrtSession
typedef struct ra_ort_session_options ra_ort_session_options;
typedef struct ra_ort_memory_info ra_ort_memory_info;
typedef struct ra_ort_value ra_ort_value;              // OrtValue (a tensor)
typedef struct ra_ort_shape_info ra_ort_shape_info;    // OrtTensorTypeAndShapeInfo

/// The API version asked for: 13 (ONNX Runtime 1.13) has every function below.
#define RA_ORT_API_VERSION 13
/// OrtLoggingLevel ORT_LOGGING_LEVEL_ERROR.
#define RA_ORT_LOGGING_ERROR 3
/// ONNXTensorElementDataType ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT.
#define RA_ORT_FLOAT 1
/// OrtAllocatorType OrtArenaAllocator and OrtMemType OrtMemTypeDefault.
#define RA_ORT_ARENA_ALLOCATOR 1
#define RA_ORT_MEM_TYPE_DEFAULT 0
/// GraphOptimizationLevel ORT_ENABLE_ALL.
#define RA_ORT_ENABLE_ALL 99

/// The ONNX Runtime functions RunAnywhere calls (each followed by its position in `OrtApi`).
typedef struct ra_ort_api {
    const char *_Nonnull (*_Nonnull GetErrorMessage)(const ra_ort_status *_Nonnull status);  // 2
    ra_ort_status *_Nullable (*_Nonnull CreateEnv)(int level, const char *_Nonnull log_id, ra_ort_env *_Nullable *_Nonnull out);  // 3
    ra_ort_status *_Nullable (*_Nonnull CreateSessionFromArray)(const ra_ort_env *_Nonnull env, const void *_Nonnull data, size_t length,
                                                              const ra_ort_session_options *_Nonnull options,
                                                              ra_ort_session *_Nullable *_Nonnull out);  // 8
    ra_ort_status *_Nullable (*_Nonnull Run)(ra_ort_session *_Nonnull session, const void *_Nullable run_options,
                                           const char *_Nonnull const *_Nonnull input_names,
                                           const ra_ort_value *_Nullable const *_Nonnull inputs, size_t input_count,
                                           const char *_Nonnull const *_Nonnull output_names, size_t output_count,
                                           ra_ort_value *_Nullable *_Nonnull outputs);  // 9
    ra_ort_status *_Nullable (*_Nonnull CreateSessionOptions)(ra_ort_session_options *_Nullable *_Nonnull out);  // 10
    ra_ort_status *_Nullable (*_Nonnull SetSessionGraphOptimizationLevel)(ra_ort_session_options *_Nonnull options, int level);  // 23
    ra_ort_status *_Nullable (*_Nonnull SetIntraOpNumThreads)(ra_ort_session_options *_Nonnull options, int threads);  // 24
    ra_ort_status *_Nullable (*_Nonnull SetInterOpNumThreads)(ra_ort_session_options *_Nonnull options, int threads);  // 25
    ra_ort_status *_Nullable (*_Nonnull CreateTensorWithDataAsOrtValue)(const ra_ort_memory_info *_Nonnull info, void *_Nonnull data,
                                                                      size_t byte_count, const int64_t *_Nonnull shape, size_t rank,
                                                                      int element_type, ra_ort_value *_Nullable *_Nonnull out);  // 49
    ra_ort_status *_Nullable (*_Nonnull GetTensorMutableData)(ra_ort_value *_Nonnull value, void *_Nullable *_Nonnull out);  // 51
    ra_ort_status *_Nullable (*_Nonnull GetDimensionsCount)(const ra_ort_shape_info *_Nonnull info, size_t *_Nonnull out);  // 61
    ra_ort_status *_Nullable (*_Nonnull GetDimensions)(const ra_ort_shape_info *_Nonnull info, int64_t *_Nonnull dims, size_t count);  // 62
    ra_ort_status *_Nullable (*_Nonnull GetTensorShapeElementCount)(const ra_ort_shape_info *_Nonnull info, size_t *_Nonnull out);  // 64
    ra_ort_status *_Nullable (*_Nonnull GetTensorTypeAndShape)(const ra_ort_value *_Nonnull value, ra_ort_shape_info *_Nullable *_Nonnull out);  // 65
    ra_ort_status *_Nullable (*_Nonnull CreateCpuMemoryInfo)(int allocator, int memory_type, ra_ort_memory_info *_Nullable *_Nonnull out);  // 69
    void (*_Nonnull ReleaseEnv)(ra_ort_env *_Nonnull env);  // 92
    void (*_Nonnull ReleaseStatus)(ra_ort_status *_Nonnull status);  // 93
    void (*_Nonnull ReleaseMemoryInfo)(ra_ort_memory_info *_Nonnull info);  // 94
    void (*_Nonnull ReleaseSession)(ra_ort_session *_Nonnull session);  // 95
    void (*_Nonnull ReleaseValue)(ra_ort_value *_Nonnull value);  // 96
    void (*_Nonnull ReleaseTensorTypeAndShapeInfo)(ra_ort_shape_info *_Nonnull info);  // 99
    void (*_Nonnull ReleaseSessionOptions)(ra_ort_session_options *_Nonnull options);  // 100
    /// The runtime's version, e.g. "1.28.2" (OrtApiBase.GetVersionString).
    char version[32];
} ra_ort_api;

/// Opens libonnxruntime at `path` with RTLD_NOW | RTLD_LOCAL, asks it for API version
/// RA_ORT_API_VERSION and fills `api`. Returns 0 on success; otherwise writes a message to
/// `error` and returns -1. Never closed.
int ra_ort_api_load(const char *_Nonnull path, ra_ort_api *_Nonnull api, char *_Nonnull error, size_t error_size);

#endif
