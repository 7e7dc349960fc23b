// LiteRT (TensorFlow Lite's runtime, `libLiteRt.so` from PyPI's ai-edge-litert wheel) through its
// C API. The wheel ships no header, so the functions RunAnywhere calls are declared here with the
// signatures of LiteRT's litert/c headers (v2.2+, where a model is created in an environment);
// handles are opaque, and the one struct passed by value, LiteRtRankedTensorType, is declared
// ABI-stable by LiteRT (72 bytes: element type, then the layout).
#ifndef RA_LITERT_H
#define RA_LITERT_H

#include <stddef.h>
#include <stdint.h>

#include "ra_engine.h"

typedef struct ra_litert_environment *ra_litert_environment;      // LiteRtEnvironment
typedef struct ra_litert_model *ra_litert_model;                  // LiteRtModel
typedef struct ra_litert_signature *ra_litert_signature;          // LiteRtSignature
typedef struct ra_litert_tensor *ra_litert_tensor;                // LiteRtTensor
typedef struct ra_litert_options *ra_litert_options;              // LiteRtOptions
typedef struct ra_litert_opaque_options *ra_litert_opaque_options;  // LiteRtOpaqueOptions
typedef struct ra_litert_compiled_model *ra_litert_compiled_model;  // LiteRtCompiledModel
typedef struct ra_litert_tensor_buffer *ra_litert_tensor_buffer;  // LiteRtTensorBuffer

/// LiteRtStatus: 0 is success.
typedef int ra_litert_status;
/// kLiteRtElementTypeFloat32.
#define RA_LITERT_FLOAT32 1
/// kLiteRtHwAcceleratorCpu.
#define RA_LITERT_ACCELERATOR_CPU 1
/// LITERT_HOST_MEMORY_BUFFER_ALIGNMENT: host memory given to a tensor buffer is aligned so.
#define RA_LITERT_HOST_ALIGNMENT 64
/// LITERT_TENSOR_MAX_RANK.
#define RA_LITERT_MAX_RANK 8

/// LiteRtRankedTensorType: the element type and the layout (rank, dimensions, strides).
typedef struct ra_litert_ranked_tensor_type {
    int32_t element_type;
    unsigned int rank : 7;
    unsigned int has_strides : 1;
    int32_t dimensions[RA_LITERT_MAX_RANK];
    uint32_t strides[RA_LITERT_MAX_RANK];
} ra_litert_ranked_tensor_type;

ra_litert_status LiteRtCreateEnvironment(int num_options, const void *_Nullable options,
                                         ra_litert_environment _Nullable *_Nonnull environment);
void LiteRtDestroyEnvironment(ra_litert_environment _Nonnull environment);
ra_litert_status LiteRtCreateModelFromBuffer(ra_litert_environment _Nonnull environment, const void *_Nonnull buffer,
                                             size_t size, ra_litert_model _Nullable *_Nonnull model);
void LiteRtDestroyModel(ra_litert_model _Nonnull model);
ra_litert_status LiteRtGetNumModelSignatures(ra_litert_model _Nonnull model, size_t *_Nonnull count);
ra_litert_status LiteRtGetModelSignature(ra_litert_model _Nonnull model, size_t index,
                                         ra_litert_signature _Nullable *_Nonnull signature);
ra_litert_status LiteRtGetNumSignatureInputs(ra_litert_signature _Nonnull signature, size_t *_Nonnull count);
ra_litert_status LiteRtGetNumSignatureOutputs(ra_litert_signature _Nonnull signature, size_t *_Nonnull count);
ra_litert_status LiteRtGetSignatureInputTensorByIndex(ra_litert_signature _Nonnull signature, size_t index,
                                                      ra_litert_tensor _Nullable *_Nonnull tensor);
ra_litert_status LiteRtGetSignatureOutputTensorByIndex(ra_litert_signature _Nonnull signature, size_t index,
                                                       ra_litert_tensor _Nullable *_Nonnull tensor);
ra_litert_status LiteRtGetRankedTensorType(ra_litert_tensor _Nonnull tensor, ra_litert_ranked_tensor_type *_Nonnull type);
ra_litert_status LiteRtCreateOptions(ra_litert_options _Nullable *_Nonnull options);
void LiteRtDestroyOptions(ra_litert_options _Nonnull options);
ra_litert_status LiteRtSetOptionsHardwareAccelerators(ra_litert_options _Nonnull options, int accelerators);
ra_litert_status LiteRtCreateOpaqueOptions(const char *_Nonnull identifier, void *_Nullable payload,
                                           void (*_Nullable destructor)(void *_Nullable payload),
                                           ra_litert_opaque_options _Nullable *_Nonnull options);
void LiteRtDestroyOpaqueOptions(ra_litert_opaque_options _Nonnull options);
ra_litert_status LiteRtAddOpaqueOptions(ra_litert_options _Nonnull options, ra_litert_opaque_options _Nonnull opaque);
ra_litert_status LiteRtCreateCompiledModel(ra_litert_environment _Nonnull environment, ra_litert_model _Nonnull model,
                                           ra_litert_options _Nullable options,
                                           ra_litert_compiled_model _Nullable *_Nonnull compiled);
void LiteRtDestroyCompiledModel(ra_litert_compiled_model _Nonnull compiled);
ra_litert_status LiteRtCreateTensorBufferFromHostMemory(const ra_litert_ranked_tensor_type *_Nonnull type, void *_Nonnull memory,
                                                        size_t size, void (*_Nullable deallocator)(void *_Nullable memory),
                                                        ra_litert_tensor_buffer _Nullable *_Nonnull buffer);
void LiteRtDestroyTensorBuffer(ra_litert_tensor_buffer _Nonnull buffer);
ra_litert_status LiteRtRunCompiledModel(ra_litert_compiled_model _Nonnull compiled, size_t signature, size_t input_count,
                                        ra_litert_tensor_buffer _Nonnull *_Nonnull inputs, size_t output_count,
                                        ra_litert_tensor_buffer _Nonnull *_Nonnull outputs);

#define RA_LITERT_FUNCTIONS(X)                                                                              \
    X(LiteRtCreateEnvironment) X(LiteRtDestroyEnvironment) X(LiteRtCreateModelFromBuffer) X(LiteRtDestroyModel) \
    X(LiteRtGetNumModelSignatures) X(LiteRtGetModelSignature) X(LiteRtGetNumSignatureInputs)                  \
    X(LiteRtGetNumSignatureOutputs) X(LiteRtGetSignatureInputTensorByIndex)                                   \
    X(LiteRtGetSignatureOutputTensorByIndex) X(LiteRtGetRankedTensorType) X(LiteRtCreateOptions)              \
    X(LiteRtDestroyOptions) X(LiteRtSetOptionsHardwareAccelerators) X(LiteRtCreateOpaqueOptions)              \
    X(LiteRtDestroyOpaqueOptions) X(LiteRtAddOpaqueOptions) X(LiteRtCreateCompiledModel)                      \
    X(LiteRtDestroyCompiledModel) X(LiteRtCreateTensorBufferFromHostMemory) X(LiteRtDestroyTensorBuffer)      \
    X(LiteRtRunCompiledModel)

/// The LiteRT functions RunAnywhere calls, taken from a library opened with dlopen(RTLD_LOCAL).
typedef struct ra_litert_api {
    RA_LITERT_FUNCTIONS(RA_ENGINE_FIELD)
} ra_litert_api;

/// Opens LiteRT at `path` and fills `api`; 0 on success, else -1 with `error` filled.
int ra_litert_api_load(const char *_Nonnull path, ra_litert_api *_Nonnull api, char *_Nonnull error, size_t error_size);

/// The payload of XNNPACK's CPU options (identifier "xnnpack": TOML text such as
/// "num_threads = 2\n"), allocated for LiteRtCreateOpaqueOptions, which frees it with
/// ra_litert_free_payload.
char *_Nullable ra_litert_cpu_options_payload(int threads);
/// Frees a payload of ra_litert_cpu_options_payload.
void ra_litert_free_payload(void *_Nullable payload);

#endif
