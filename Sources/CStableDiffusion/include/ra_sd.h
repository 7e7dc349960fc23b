// A table of the stable-diffusion.cpp functions RunAnywhere calls (image generation), filled at
// run time by dlopen/dlsym from libstable-diffusion.so (see ra_llama.h for why). That library
// carries a ggml of its own, compiled in; RTLD_LOCAL keeps it apart from llama.cpp's.
// The engine's functions and types come from ra_sd_declarations.h, the package's own copy of the
// part of stable-diffusion.h it uses, so the package builds with no engine installed.
#ifndef RA_SD_H
#define RA_SD_H

#include "ra_sd_declarations.h"
#include "ra_engine.h"
#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// miniz's PNG writer and its free, compiled into libstable-diffusion (it writes its image files
// with them) and exported, but declared in no header the package ships. The PNG returned must be
// released with mz_free.
void * _Nullable tdefl_write_image_to_png_file_in_memory(const void * _Nonnull image, int width, int height,
                                                         int channels, size_t * _Nonnull length);
void mz_free(void * _Nullable memory);

// The backend registry of the ggml compiled into libstable-diffusion (exported, as ggml-backend.h
// declares it), which says whether this build has a GPU backend.
struct ggml_backend_reg;
size_t ggml_backend_reg_count(void);
struct ggml_backend_reg * _Nullable ggml_backend_reg_get(size_t index);
const char * _Nullable ggml_backend_reg_name(struct ggml_backend_reg * _Nullable reg);

#define RA_SD_FUNCTIONS(X)                     \
    X(sd_version)                              \
    X(sd_commit)                               \
    X(sd_get_system_info)                      \
    X(sd_set_log_callback)                     \
    X(sd_set_progress_callback)                \
    X(sd_ctx_params_init)                      \
    X(new_sd_ctx)                              \
    X(free_sd_ctx)                             \
    X(sd_ctx_supports_image_generation)        \
    X(sd_img_gen_params_init)                  \
    X(generate_image)                          \
    X(tdefl_write_image_to_png_file_in_memory) \
    X(mz_free)                                 \
    X(ggml_backend_reg_count)                  \
    X(ggml_backend_reg_get)                    \
    X(ggml_backend_reg_name)

/// Function pointers into one dlopen'ed libstable-diffusion.
typedef struct ra_sd_api {
    RA_SD_FUNCTIONS(RA_ENGINE_FIELD)
} ra_sd_api;

/// Opens the library at `path` with RTLD_NOW | RTLD_LOCAL and fills `api`. Returns 0 on
/// success; otherwise writes a message to `error` and returns -1. Never closed.
int ra_sd_api_load(const char * _Nonnull path, ra_sd_api * _Nonnull api, char * _Nonnull error, size_t error_size);

/// Called with sd.cpp's progress (`step` of `steps`, seconds per step so far): after each
/// sampling step, and at the start of sampling with step 0. Returning false stops the generation.
typedef bool (*ra_sd_step_fn)(int step, int steps, float seconds_per_step, void * _Nullable user);

/// new_sd_ctx, serialized with ra_sd_generate: sd.cpp's progress callback is one for the whole
/// process and fires while a model loads too, so loading and generating never overlap. A C++
/// exception from sd.cpp is caught: NULL, with its message in `error` (else sd.cpp's log says why).
sd_ctx_t * _Nullable ra_sd_new_ctx(const ra_sd_api * _Nonnull api, const sd_ctx_params_t * _Nonnull params,
                                   char * _Nonnull error, size_t error_size);

/// generate_image with `on_step` told of each sampling step; one generation at a time per process.
/// When `on_step` returns false the generation stops there, between two steps: sd.cpp has no
/// cancellation of its own, so a C++ exception is thrown from its progress callback through its
/// (RAII) frames and caught here; `*stopped` is then true. Any exception sd.cpp itself throws
/// (std::bad_alloc…) is caught too, its message written to `error`. Returns NULL on failure,
/// on a stop, or when sd.cpp fails (its log says why); the images and their pixels are malloc'd.
sd_image_t * _Nullable ra_sd_generate(const ra_sd_api * _Nonnull api, sd_ctx_t * _Nonnull ctx,
                                      const sd_img_gen_params_t * _Nonnull params, ra_sd_step_fn _Nonnull on_step,
                                      void * _Nullable user, bool * _Nonnull stopped, char * _Nonnull error,
                                      size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
