// A table of the libmtmd functions RunAnywhere calls: llama.cpp's multimodal library, which
// turns images into embeddings a language model reads (vision-language models: a language GGUF
// plus its `mmproj` projector GGUF). Filled at run time by dlopen/dlsym like ra_llama.h, from the
// libmtmd that sits beside libllama; it links to that same libllama, already open. The functions'
// types come from ra_mtmd_declarations.h, the package's own copy of the parts of mtmd.h and
// mtmd-helper.h it uses.
#ifndef RA_MTMD_H
#define RA_MTMD_H

#include "ra_mtmd_declarations.h"
#include "ra_engine.h"
#include <stddef.h>

#define RA_MTMD_FUNCTIONS(X)                   \
    X(mtmd_default_marker)                     \
    X(mtmd_context_params_default)             \
    X(mtmd_init_from_file)                     \
    X(mtmd_free)                               \
    X(mtmd_support_vision)                     \
    X(mtmd_decode_use_mrope)                   \
    X(mtmd_bitmap_init)                        \
    X(mtmd_bitmap_free)                        \
    X(mtmd_bitmap_set_id)                      \
    X(mtmd_input_chunks_init)                  \
    X(mtmd_input_chunks_size)                  \
    X(mtmd_input_chunks_get)                   \
    X(mtmd_input_chunks_free)                  \
    X(mtmd_input_chunk_get_type)               \
    X(mtmd_input_chunk_get_tokens_text)        \
    X(mtmd_input_chunk_get_n_tokens)           \
    X(mtmd_input_chunk_get_n_pos)              \
    X(mtmd_input_chunk_get_id)                 \
    X(mtmd_input_chunk_copy)                   \
    X(mtmd_input_chunk_free)                   \
    X(mtmd_tokenize)                           \
    X(mtmd_encode_chunk)                       \
    X(mtmd_get_output_embd)                    \
    X(mtmd_helper_log_set)                     \
    X(mtmd_helper_init_opt_default)            \
    X(mtmd_helper_bitmap_init_from_buf)        \
    X(mtmd_helper_decode_image_chunk)

/// Function pointers into one dlopen'ed libmtmd.
typedef struct ra_mtmd_api {
    RA_MTMD_FUNCTIONS(RA_ENGINE_FIELD)
} ra_mtmd_api;

/// Opens the library at `path` with RTLD_NOW | RTLD_LOCAL and fills `api`. Returns 0 on success;
/// otherwise writes a message to `error` and returns -1. The library is never closed.
int ra_mtmd_api_load(const char * _Nonnull path, ra_mtmd_api * _Nonnull api,
                     char * _Nonnull error, size_t error_size);

#endif
