// A table of the whisper.cpp functions RunAnywhere calls, filled at run time by dlopen/dlsym
// (see ra_llama.h for why). The engine's functions and types come from
// ra_whisper_declarations.h, the package's own copy of the part of whisper.h (and of ggml's
// headers) it uses, so the package builds with no engine installed.
#ifndef RA_WHISPER_H
#define RA_WHISPER_H

#include "ra_whisper_declarations.h"
#include "ra_engine.h"
#include <stddef.h>

#define RA_WHISPER_FUNCTIONS(X)                   \
    X(whisper_log_set)                            \
    X(whisper_version)                            \
    X(whisper_context_default_params)             \
    X(whisper_init_from_file_with_params)         \
    X(whisper_free)                               \
    X(whisper_full_default_params)                \
    X(whisper_full)                               \
    X(whisper_full_n_segments)                    \
    X(whisper_full_get_segment_text)              \
    X(whisper_full_get_segment_t0)                \
    X(whisper_full_get_segment_t1)                \
    X(whisper_full_get_segment_no_speech_prob)    \
    X(whisper_full_n_tokens)                      \
    X(whisper_full_get_token_p)                   \
    X(whisper_full_get_token_id)                  \
    X(whisper_token_eot)                          \
    X(whisper_full_lang_id)                       \
    X(whisper_lang_str)                           \
    X(whisper_lang_max_id)                        \
    X(whisper_lang_str_full)                      \
    X(whisper_is_multilingual)                    \
    X(whisper_vad_default_params)                 \
    X(whisper_vad_default_context_params)         \
    X(whisper_vad_init_from_file_with_params)     \
    X(whisper_vad_segments_from_samples)          \
    X(whisper_vad_detect_speech)                  \
    X(whisper_vad_n_probs)                        \
    X(whisper_vad_probs)                          \
    X(whisper_vad_segments_n_segments)            \
    X(whisper_vad_segments_get_segment_t0)        \
    X(whisper_vad_segments_get_segment_t1)        \
    X(whisper_vad_free_segments)                  \
    X(whisper_vad_free)                           \
    X(ggml_backend_reg_count)                     \
    X(ggml_backend_reg_get)                       \
    X(ggml_backend_reg_name)

/// Function pointers into one dlopen'ed libwhisper.
typedef struct ra_whisper_api {
    RA_WHISPER_FUNCTIONS(RA_ENGINE_FIELD)
} ra_whisper_api;

/// Opens the library at `path` with RTLD_NOW | RTLD_LOCAL and fills `api`. Returns 0 on
/// success; otherwise writes a message to `error` and returns -1. Never closed.
int ra_whisper_api_load(const char * _Nonnull path, ra_whisper_api * _Nonnull api,
                        char * _Nonnull error, size_t error_size);

#endif
