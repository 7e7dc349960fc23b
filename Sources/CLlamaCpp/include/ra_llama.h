// A table of the llama.cpp functions RunAnywhere calls, filled at run time by dlopen/dlsym so
// that the package links no engine. Each field's type is taken with __typeof__ from the function's
// declaration in ra_llama_declarations.h (the package's own copy of the parts of llama.h it uses,
// checked against the real header by scripts/check-declarations), so calls through the table are
// fully type-checked and the package builds with no engine installed.
#ifndef RA_LLAMA_H
#define RA_LLAMA_H

#include "ra_llama_declarations.h"
#include "ra_engine.h"
#include <stddef.h>

#define RA_LLAMA_FUNCTIONS(X)                  \
    X(llama_backend_init)                      \
    X(llama_log_set)                           \
    X(llama_print_system_info)                 \
    X(llama_model_default_params)              \
    X(llama_context_default_params)            \
    X(llama_sampler_chain_default_params)      \
    X(llama_model_load_from_file)              \
    X(llama_model_free)                        \
    X(llama_init_from_model)                   \
    X(llama_free)                              \
    X(llama_model_get_vocab)                   \
    X(llama_model_n_ctx_train)                 \
    X(llama_model_n_layer)                     \
    X(llama_model_chat_template)               \
    X(llama_model_n_embd_out)                  \
    X(llama_model_has_encoder)                 \
    X(llama_n_batch)                           \
    X(llama_n_ubatch)                          \
    X(llama_n_ctx_seq)                         \
    X(llama_n_seq_max)                         \
    X(llama_vocab_is_eog)                      \
    X(llama_vocab_get_attr)                    \
    X(llama_tokenize)                          \
    X(llama_token_to_piece)                    \
    X(llama_chat_apply_template)               \
    X(llama_get_memory)                        \
    X(llama_memory_clear)                      \
    X(llama_memory_seq_rm)                     \
    X(llama_state_seq_get_size)                \
    X(llama_model_quantize_default_params)     \
    X(llama_model_quantize)                    \
    X(llama_adapter_lora_init)                 \
    X(llama_adapter_lora_free)                 \
    X(llama_set_adapters_lora)                 \
    X(llama_state_seq_get_data)                \
    X(llama_state_seq_set_data)                \
    X(llama_batch_init)                        \
    X(llama_batch_free)                        \
    X(llama_decode)                            \
    X(llama_encode)                            \
    X(llama_get_embeddings_seq)                \
    X(llama_set_n_threads)                     \
    X(llama_set_abort_callback)                \
    X(llama_vocab_bos)                         \
    X(llama_sampler_chain_init)                \
    X(llama_sampler_chain_add)                 \
    X(llama_sampler_init_greedy)               \
    X(llama_sampler_init_dist)                 \
    X(llama_sampler_init_top_k)                \
    X(llama_sampler_init_top_p)                \
    X(llama_sampler_init_min_p)                \
    X(llama_sampler_init_logit_bias)           \
    X(llama_sampler_init_penalties)            \
    X(llama_sampler_init_temp)                 \
    X(llama_sampler_init_temp_ext)             \
    X(llama_sampler_init_typical)              \
    X(llama_sampler_init_xtc)                  \
    X(llama_sampler_init_top_n_sigma)          \
    X(llama_sampler_init_mirostat)             \
    X(llama_sampler_init_mirostat_v2)          \
    X(llama_sampler_init_dry)                  \
    X(llama_sampler_init_grammar)              \
    X(llama_get_logits_ith)                    \
    X(llama_vocab_n_tokens)                    \
    X(llama_sampler_apply)                     \
    X(llama_sampler_accept)                    \
    X(llama_vocab_eos)                         \
    X(llama_vocab_sep)                         \
    X(llama_vocab_get_add_bos)                 \
    X(llama_vocab_get_add_eos)                 \
    X(llama_vocab_get_add_sep)                 \
    X(llama_vocab_fim_pre)                     \
    X(llama_vocab_fim_suf)                     \
    X(llama_vocab_fim_mid)                     \
    X(llama_vocab_fim_rep)                     \
    X(llama_vocab_fim_sep)                     \
    X(llama_sampler_sample)                    \
    X(llama_sampler_free)                      \
    X(ggml_backend_reg_count)                  \
    X(ggml_backend_reg_get)                    \
    X(ggml_backend_reg_by_name)                \
    X(ggml_backend_reg_get_proc_address)       \
    X(ggml_backend_reg_name)                   \
    X(ggml_backend_reg_dev_count)              \
    X(ggml_backend_reg_dev_get)                \
    X(ggml_backend_dev_name)                   \
    X(ggml_backend_dev_description)            \
    X(ggml_backend_dev_memory)                 \
    X(ggml_backend_dev_type)

/// Function pointers into one dlopen'ed libllama.
typedef struct ra_llama_api {
    RA_LLAMA_FUNCTIONS(RA_ENGINE_FIELD)
} ra_llama_api;

/// ggml's RPC functions, taken from the RPC backend with ggml_backend_reg_get_proc_address (a
/// build without that backend has neither, and still loads).
typedef __typeof__(&ggml_backend_rpc_add_server) ra_rpc_add_server_fn;
typedef __typeof__(&ggml_backend_rpc_start_server) ra_rpc_start_server_fn;

/// Opens the library at `path` with RTLD_NOW | RTLD_LOCAL (its own ggml stays private to it) and
/// fills `api`. Returns 0 on success; otherwise writes a message to `error` and returns -1.
/// The library is never closed: its backend lives as long as the process.
int ra_llama_api_load(const char * _Nonnull path, ra_llama_api * _Nonnull api,
                      char * _Nonnull error, size_t error_size);

#endif
