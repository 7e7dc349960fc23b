// The subset of llama.cpp's C API (llama.h, with the parts of ggml.h and ggml-backend.h it needs;
// the llama.cpp of llama-cpp-python 0.3.36, the engines cache's llama.cpp-0.3.36-*) that
// RunAnywhere calls: loading a model and its context, tokenizing, the chat template, batched
// decoding, pooled embeddings, samplers and grammars, the log and ggml's backend and device
// registry. Declared here, with the same names and types as the real headers, so the package
// builds without the engine installed; the library itself is opened at run time (ra_llama.h).
// Structs passed by value, and the enums in their fields, are declared in full, field for field
// and constant for constant; types only used through pointers are declared without their fields.
// scripts/check-declarations (run by the tests) checks every declaration below against the real
// headers.
#ifndef RA_LLAMA_DECLARATIONS_H
#define RA_LLAMA_DECLARATIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: ggml

/// A tensor (only pointed to by ggml_backend_sched_eval_callback here).
struct ggml_tensor;

/// Tensor data types; here the type of the KV cache in llama_context_params.
enum ggml_type {
    GGML_TYPE_F32 = 0,
    GGML_TYPE_F16 = 1,
    GGML_TYPE_Q4_0 = 2,
    GGML_TYPE_Q4_1 = 3,
    GGML_TYPE_Q5_0 = 6,
    GGML_TYPE_Q5_1 = 7,
    GGML_TYPE_Q8_0 = 8,
    GGML_TYPE_Q8_1 = 9,
    GGML_TYPE_Q2_K = 10,
    GGML_TYPE_Q3_K = 11,
    GGML_TYPE_Q4_K = 12,
    GGML_TYPE_Q5_K = 13,
    GGML_TYPE_Q6_K = 14,
    GGML_TYPE_Q8_K = 15,
    GGML_TYPE_IQ2_XXS = 16,
    GGML_TYPE_IQ2_XS = 17,
    GGML_TYPE_IQ3_XXS = 18,
    GGML_TYPE_IQ1_S = 19,
    GGML_TYPE_IQ4_NL = 20,
    GGML_TYPE_IQ3_S = 21,
    GGML_TYPE_IQ2_S = 22,
    GGML_TYPE_IQ4_XS = 23,
    GGML_TYPE_I8 = 24,
    GGML_TYPE_I16 = 25,
    GGML_TYPE_I32 = 26,
    GGML_TYPE_I64 = 27,
    GGML_TYPE_F64 = 28,
    GGML_TYPE_IQ1_M = 29,
    GGML_TYPE_BF16 = 30,
    GGML_TYPE_TQ1_0 = 34,
    GGML_TYPE_TQ2_0 = 35,
    GGML_TYPE_MXFP4 = 39,
    GGML_TYPE_NVFP4 = 40,
    GGML_TYPE_Q1_0 = 41,
    GGML_TYPE_Q2_0 = 42,
    GGML_TYPE_COUNT = 43,
};

/// The level of a message passed to a ggml_log_callback.
enum ggml_log_level {
    GGML_LOG_LEVEL_NONE = 0,
    GGML_LOG_LEVEL_DEBUG = 1,
    GGML_LOG_LEVEL_INFO = 2,
    GGML_LOG_LEVEL_WARN = 3,
    GGML_LOG_LEVEL_ERROR = 4,
    GGML_LOG_LEVEL_CONT = 5,  // continues the previous message
};

/// Called during a computation; returning true aborts it.
typedef bool (*ggml_abort_callback)(void * data);

/// Receives the library's log messages.
typedef void (*ggml_log_callback)(enum ggml_log_level level, const char * text, void * user_data);

/// A buffer type (only pointed to by the parts of llama_model_params left unset here).
typedef struct ggml_backend_buffer_type * ggml_backend_buffer_type_t;
/// One compute backend in ggml's registry ("CPU", "CUDA", "Vulkan", ...).
typedef struct ggml_backend_reg * ggml_backend_reg_t;
/// One device of a backend.
typedef struct ggml_backend_device * ggml_backend_dev_t;

/// What kind of device a ggml_backend_dev_t is.
enum ggml_backend_dev_type {
    GGML_BACKEND_DEVICE_TYPE_CPU,
    GGML_BACKEND_DEVICE_TYPE_GPU,
    GGML_BACKEND_DEVICE_TYPE_IGPU,
    GGML_BACKEND_DEVICE_TYPE_ACCEL,
    GGML_BACKEND_DEVICE_TYPE_META,
};

/// Called for each tensor the scheduler computes (unset here).
typedef bool (*ggml_backend_sched_eval_callback)(struct ggml_tensor * t, bool ask, void * user_data);

/// A device's name.
const char * ggml_backend_dev_name(ggml_backend_dev_t device);
/// A device's description (e.g. the GPU's model).
const char * ggml_backend_dev_description(ggml_backend_dev_t device);
/// A device's free and total memory in bytes.
void ggml_backend_dev_memory(ggml_backend_dev_t device, size_t * free, size_t * total);
/// A device's kind.
enum ggml_backend_dev_type ggml_backend_dev_type(ggml_backend_dev_t device);

/// A backend's name.
const char * ggml_backend_reg_name(ggml_backend_reg_t reg);
/// The number of devices a backend found.
size_t ggml_backend_reg_dev_count(ggml_backend_reg_t reg);
/// A backend's device at `index`, below ggml_backend_reg_dev_count().
ggml_backend_dev_t ggml_backend_reg_dev_get(ggml_backend_reg_t reg, size_t index);

/// The number of backends registered.
size_t ggml_backend_reg_count(void);
/// The backend at `index`, below ggml_backend_reg_count().
ggml_backend_reg_t ggml_backend_reg_get(size_t index);
/// The backend named `name` ("CPU", "RPC", ...), or NULL.
ggml_backend_reg_t ggml_backend_reg_by_name(const char * name);
/// A function a backend offers beyond the common interface, by name, or NULL.
void * ggml_backend_reg_get_proc_address(ggml_backend_reg_t reg, const char * name);

// MARK: ggml's RPC backend (ggml-rpc.h), whose functions come from ggml_backend_reg_get_proc_address

/// The RPC protocol's version: a worker of another major version, or of a later minor one,
/// cannot serve this build.
#define RPC_PROTO_MAJOR_VERSION    7
#define RPC_PROTO_MINOR_VERSION    0

/// Connects to the RPC server at `endpoint` ("host:port") and returns a backend of its devices;
/// aborts the process when the server cannot be reached.
ggml_backend_reg_t ggml_backend_rpc_add_server(const char * endpoint);
/// Serves `devices` at `endpoint` to RPC clients, one client at a time; returns only when it
/// cannot listen.
void ggml_backend_rpc_start_server(const char * endpoint, const char * cache_dir,
                                   size_t n_threads, size_t n_devices, ggml_backend_dev_t * devices);

// MARK: llama.cpp types

/// A model's vocabulary.
struct llama_vocab;
/// A loaded model.
struct llama_model;
/// A context: the KV memory of its sequences and the decoding state.
struct llama_context;

/// A context's memory (its KV cache).
typedef struct llama_memory_i * llama_memory_t;

typedef int32_t llama_pos;
typedef int32_t llama_token;
typedef int32_t llama_seq_id;

enum llama_rope_scaling_type {
    LLAMA_ROPE_SCALING_TYPE_UNSPECIFIED = -1,
    LLAMA_ROPE_SCALING_TYPE_NONE = 0,
    LLAMA_ROPE_SCALING_TYPE_LINEAR = 1,
    LLAMA_ROPE_SCALING_TYPE_YARN = 2,
    LLAMA_ROPE_SCALING_TYPE_LONGROPE = 3,
    LLAMA_ROPE_SCALING_TYPE_MAX_VALUE = LLAMA_ROPE_SCALING_TYPE_LONGROPE,
};

enum llama_pooling_type {
    LLAMA_POOLING_TYPE_UNSPECIFIED = -1,
    LLAMA_POOLING_TYPE_NONE = 0,
    LLAMA_POOLING_TYPE_MEAN = 1,
    LLAMA_POOLING_TYPE_CLS = 2,
    LLAMA_POOLING_TYPE_LAST = 3,
    LLAMA_POOLING_TYPE_RANK = 4,
};

enum llama_attention_type {
    LLAMA_ATTENTION_TYPE_UNSPECIFIED = -1,
    LLAMA_ATTENTION_TYPE_CAUSAL = 0,
    LLAMA_ATTENTION_TYPE_NON_CAUSAL = 1,
};

/// When a context uses Flash Attention (llama_context_params.flash_attn_type).
enum llama_flash_attn_type {
    LLAMA_FLASH_ATTN_TYPE_AUTO = -1,
    LLAMA_FLASH_ATTN_TYPE_DISABLED = 0,
    LLAMA_FLASH_ATTN_TYPE_ENABLED = 1,
};

enum llama_split_mode {
    LLAMA_SPLIT_MODE_NONE = 0,
    LLAMA_SPLIT_MODE_LAYER = 1,
    LLAMA_SPLIT_MODE_ROW = 2,
    LLAMA_SPLIT_MODE_TENSOR = 3,
};

enum llama_load_mode {
    LLAMA_LOAD_MODE_AUTO = -1,
    LLAMA_LOAD_MODE_NONE = 0,
    LLAMA_LOAD_MODE_MMAP = 1,
    LLAMA_LOAD_MODE_MLOCK = 2,
    LLAMA_LOAD_MODE_MMAP_MLOCK = 3,
    LLAMA_LOAD_MODE_DIRECT_IO = 4,
};

enum llama_lazy_mode {
    LLAMA_LAZY_MODE_OFF = 0,
    LLAMA_LAZY_MODE_AUTO = 1,
    LLAMA_LAZY_MODE_ON = 2,
};

enum llama_context_type {
    LLAMA_CONTEXT_TYPE_DEFAULT = 0,
    LLAMA_CONTEXT_TYPE_MTP = 1,
};

/// One candidate token for a sampler.
typedef struct llama_token_data {
    llama_token id;  ///< the token
    float logit;     ///< its log-odds (-infinity once a grammar rules it out)
    float p;         ///< its probability
} llama_token_data;

/// The candidates a sampler works on (llama_sampler_apply).
typedef struct llama_token_data_array {
    llama_token_data * data;  ///< the candidates (a sampler may change the pointer)
    size_t size;              ///< how many there are
    int64_t selected;         ///< the index in `data` of the chosen one, -1 before one is chosen
    bool sorted;              ///< whether `data` is sorted by logit
} llama_token_data_array;

/// Reports model loading progress (unset here).
typedef bool (*llama_progress_callback)(float progress, void * user_data);

/// The tokens of one llama_decode call, each with its position, sequences and whether its logits
/// are wanted; made with llama_batch_init, every array `n_tokens` long.
typedef struct llama_batch {
    int32_t n_tokens;  ///< tokens in the batch

    llama_token * token;     ///< the tokens
    float * embd;            ///< embeddings instead of tokens (NULL here)
    llama_pos * pos;         ///< each token's position in its sequence
    int32_t * n_seq_id;      ///< how many sequences each token belongs to
    llama_seq_id ** seq_id;  ///< each token's sequences
    int8_t * logits;         ///< non-zero: compute the token's logits
} llama_batch;

/// An override of a model's metadata (only pointed to by llama_model_params here).
struct llama_model_kv_override;
/// Buffer types for tensors by name (only pointed to by llama_model_params here).
struct llama_model_tensor_buft_override;

/// How a model is loaded; start from llama_model_default_params().
struct llama_model_params {
    ggml_backend_dev_t * devices;
    const struct llama_model_tensor_buft_override * tensor_buft_overrides;

    int32_t n_gpu_layers;  ///< layers on the GPU; more than the model has: all of them
    enum llama_split_mode split_mode;
    enum llama_load_mode load_mode;

    enum llama_lazy_mode lazy_mode;

    int32_t main_gpu;

    const float * tensor_split;

    llama_progress_callback progress_callback;

    void * progress_callback_user_data;

    const struct llama_model_kv_override * kv_overrides;

    bool vocab_only;
    bool check_tensors;
    bool use_extra_bufts;
    bool no_host;
    bool no_alloc;
    bool load_mtp;
};

/// A sampler chain run by the backend for one sequence (only pointed to by llama_context_params here).
struct llama_sampler_seq_config;

/// How a context is created; start from llama_context_default_params().
struct llama_context_params {
    uint32_t n_ctx;      ///< the context in tokens, all sequences together
    uint32_t n_batch;    ///< the most tokens one llama_decode call takes
    uint32_t n_ubatch;   ///< the most tokens computed at once (a micro-batch)
    uint32_t n_seq_max;  ///< how many sequences the context holds
    uint32_t n_rs_seq;
    uint32_t n_outputs_max;
    uint32_t n_outputs_max_per_seq;
    int32_t n_threads;        ///< threads for generating
    int32_t n_threads_batch;  ///< threads for prompts

    enum llama_context_type ctx_type;
    enum llama_rope_scaling_type rope_scaling_type;
    enum llama_pooling_type pooling_type;
    enum llama_attention_type attention_type;
    enum llama_flash_attn_type flash_attn_type;  ///< when to use Flash Attention

    float rope_freq_base;
    float rope_freq_scale;
    float yarn_ext_factor;
    float yarn_attn_factor;
    float yarn_beta_fast;
    float yarn_beta_slow;
    uint32_t yarn_orig_ctx;
    float defrag_thold;

    ggml_backend_sched_eval_callback cb_eval;
    void * cb_eval_user_data;

    enum ggml_type type_k;
    enum ggml_type type_v;

    ggml_abort_callback abort_callback;
    void * abort_callback_data;

    bool embeddings;
    bool offload_kqv;
    bool no_perf;     ///< true: no performance timings
    bool op_offload;  ///< offload the work on host tensors (a prompt's) to the GPU
    bool swa_full;
    bool kv_unified;  ///< one KV buffer for all sequences (false: one stream each)

    struct llama_sampler_seq_config * samplers;
    size_t n_samplers;

    struct llama_context * ctx_other;
};

/// How a sampler chain is created; from llama_sampler_chain_default_params().
typedef struct llama_sampler_chain_params {
    bool no_perf;
} llama_sampler_chain_params;

/// One message for llama_chat_apply_template.
typedef struct llama_chat_message {
    const char * role;
    const char * content;
} llama_chat_message;

typedef void * llama_sampler_context_t;

/// A sampler's functions (only pointed to by llama_sampler here).
struct llama_sampler_i;

/// A sampler (a chain, or one step of one): chooses a token from the candidates.
struct llama_sampler {
    struct llama_sampler_i * iface;

    llama_sampler_context_t ctx;
};

// MARK: llama.cpp functions

struct llama_model_params llama_model_default_params(void);
struct llama_context_params llama_context_default_params(void);
struct llama_sampler_chain_params llama_sampler_chain_default_params(void);

/// Initializes the backends; once per process, before anything else.
void llama_backend_init(void);

/// Loads the GGUF model at `path_model`; NULL on failure (the log says why).
struct llama_model * llama_model_load_from_file(const char * path_model, struct llama_model_params params);

void llama_model_free(struct llama_model * model);

/// A context for `model`; NULL on failure.
struct llama_context * llama_init_from_model(struct llama_model * model, struct llama_context_params params);

/// Frees a context.
void llama_free(struct llama_context * ctx);

/// The context actually made: per sequence, per call, per micro-batch, and its sequences.
uint32_t llama_n_ctx_seq(const struct llama_context * ctx);
uint32_t llama_n_batch(const struct llama_context * ctx);
uint32_t llama_n_ubatch(const struct llama_context * ctx);
uint32_t llama_n_seq_max(const struct llama_context * ctx);

/// A context's memory, for llama_memory_seq_rm.
llama_memory_t llama_get_memory(const struct llama_context * ctx);

const struct llama_vocab * llama_model_get_vocab(const struct llama_model * model);

/// The context length the model was trained with.
int32_t llama_model_n_ctx_train(const struct llama_model * model);

/// How many repeating layers (blocks) the model has; n_gpu_layers above it offloads the output too.
int32_t llama_model_n_layer(const struct llama_model * model);

/// The length of the model's output embeddings (a pooled sequence embedding has this many floats).
int32_t llama_model_n_embd_out(const struct llama_model * model);

/// Whether the model has an encoder that llama_encode runs (T5's); a BERT-style model has none
/// and runs through llama_decode.
bool llama_model_has_encoder(const struct llama_model * model);

/// The model's chat template `name` (NULL: the default one), or NULL when it has none.
const char * llama_model_chat_template(const struct llama_model * model, const char * name);

/// Clears the memory of every sequence; `data` also clears the buffers.
void llama_memory_clear(llama_memory_t mem, bool data);

/// Removes the positions [p0, p1) of sequence `seq_id` (p0 < 0: from the start; p1 < 0: to the
/// end). Returns false when part of a sequence cannot be removed; a whole sequence always can.
bool llama_memory_seq_rm(llama_memory_t mem, llama_seq_id seq_id, llama_pos p0, llama_pos p1);

/// A LoRA adapter loaded for a model.
struct llama_adapter_lora;

/// Loads the LoRA adapter GGUF at `path_lora` for `model`; NULL when it does not fit the model
/// (another architecture, tensors of other shapes) or cannot be read. It lives until it is
/// freed, or the model is.
struct llama_adapter_lora * llama_adapter_lora_init(struct llama_model * model, const char * path_lora);

/// Frees an adapter no context applies any more.
void llama_adapter_lora_free(struct llama_adapter_lora * adapter);

/// Applies `n_adapters` adapters with their `scales` to every later decode of `ctx` (none:
/// the base model alone); does nothing when they are the ones applied already.
int32_t llama_set_adapters_lora(struct llama_context * ctx, struct llama_adapter_lora ** adapters, size_t n_adapters, float * scales);

// MARK: quantization

/// The tensor types a whole model file is written in (quantized to).
enum llama_ftype {
    LLAMA_FTYPE_ALL_F32 = 0,
    LLAMA_FTYPE_MOSTLY_F16 = 1,
    LLAMA_FTYPE_MOSTLY_Q4_0 = 2,
    LLAMA_FTYPE_MOSTLY_Q4_1 = 3,
    LLAMA_FTYPE_MOSTLY_Q8_0 = 7,
    LLAMA_FTYPE_MOSTLY_Q5_0 = 8,
    LLAMA_FTYPE_MOSTLY_Q5_1 = 9,
    LLAMA_FTYPE_MOSTLY_Q2_K = 10,
    LLAMA_FTYPE_MOSTLY_Q3_K_S = 11,
    LLAMA_FTYPE_MOSTLY_Q3_K_M = 12,
    LLAMA_FTYPE_MOSTLY_Q3_K_L = 13,
    LLAMA_FTYPE_MOSTLY_Q4_K_S = 14,
    LLAMA_FTYPE_MOSTLY_Q4_K_M = 15,
    LLAMA_FTYPE_MOSTLY_Q5_K_S = 16,
    LLAMA_FTYPE_MOSTLY_Q5_K_M = 17,
    LLAMA_FTYPE_MOSTLY_Q6_K = 18,
    LLAMA_FTYPE_MOSTLY_IQ2_XXS = 19,
    LLAMA_FTYPE_MOSTLY_IQ2_XS = 20,
    LLAMA_FTYPE_MOSTLY_Q2_K_S = 21,
    LLAMA_FTYPE_MOSTLY_IQ3_XS = 22,
    LLAMA_FTYPE_MOSTLY_IQ3_XXS = 23,
    LLAMA_FTYPE_MOSTLY_IQ1_S = 24,
    LLAMA_FTYPE_MOSTLY_IQ4_NL = 25,
    LLAMA_FTYPE_MOSTLY_IQ3_S = 26,
    LLAMA_FTYPE_MOSTLY_IQ3_M = 27,
    LLAMA_FTYPE_MOSTLY_IQ2_S = 28,
    LLAMA_FTYPE_MOSTLY_IQ2_M = 29,
    LLAMA_FTYPE_MOSTLY_IQ4_XS = 30,
    LLAMA_FTYPE_MOSTLY_IQ1_M = 31,
    LLAMA_FTYPE_MOSTLY_BF16 = 32,
    LLAMA_FTYPE_MOSTLY_TQ1_0 = 36,
    LLAMA_FTYPE_MOSTLY_TQ2_0 = 37,
    LLAMA_FTYPE_MOSTLY_MXFP4_MOE = 38,
    LLAMA_FTYPE_MOSTLY_NVFP4 = 39,
    LLAMA_FTYPE_MOSTLY_Q1_0 = 40,
    LLAMA_FTYPE_MOSTLY_Q2_0 = 41,
    LLAMA_FTYPE_GUESSED = 1024,
};

/// An importance matrix (only pointed to by llama_model_quantize_params here: none is given).
struct llama_model_imatrix_data;
/// Tensor types by name (only pointed to by llama_model_quantize_params here: none is given).
struct llama_model_tensor_override;

/// How a model file is quantized; start from llama_model_quantize_default_params().
typedef struct llama_model_quantize_params {
    int32_t nthread;  ///< threads; <= 0: as many as the machine has
    enum llama_ftype ftype;  ///< the type to write
    enum ggml_type output_tensor_type;
    enum ggml_type token_embedding_type;
    bool allow_requantize;  ///< quantize tensors that are neither F32 nor F16
    bool quantize_output_tensor;
    bool only_copy;
    bool pure;
    bool keep_split;
    bool dry_run;
    const struct llama_model_imatrix_data * imatrix;
    const struct llama_model_kv_override * kv_overrides;
    const struct llama_model_tensor_override * tt_overrides;
    const int32_t * prune_layers;
    size_t max_buf_size;
} llama_model_quantize_params;

struct llama_model_quantize_params llama_model_quantize_default_params(void);

/// Writes the model file `fname_inp` quantized as `params` says to `fname_out`; 0 on success.
uint32_t llama_model_quantize(const char * fname_inp, const char * fname_out, const llama_model_quantize_params * params);

/// The bytes a copy of sequence `seq_id`'s state (its KV memory) takes.
size_t llama_state_seq_get_size(struct llama_context * ctx, llama_seq_id seq_id);

/// Copies sequence `seq_id`'s state into `dst` (`size` bytes); returns the bytes written.
size_t llama_state_seq_get_data(struct llama_context * ctx, uint8_t * dst, size_t size, llama_seq_id seq_id);

/// Puts a state copied by llama_state_seq_get_data into sequence `dest_seq_id`; returns the
/// bytes read, 0 when the state does not fit this context (then the sequence is empty).
size_t llama_state_seq_set_data(struct llama_context * ctx, const uint8_t * src, size_t size, llama_seq_id dest_seq_id);

/// A batch with room for `n_tokens` tokens (`embd` 0: tokens, not embeddings), each in at most
/// `n_seq_max` sequences; freed with llama_batch_free.
struct llama_batch llama_batch_init(int32_t n_tokens, int32_t embd, int32_t n_seq_max);

void llama_batch_free(struct llama_batch batch);

/// Evaluates `batch`: 0 on success, 1 when no memory slot was found, 2 when aborted, -1 for an
/// invalid batch, below -1 on a fatal error.
int32_t llama_decode(struct llama_context * ctx, struct llama_batch batch);

void llama_set_n_threads(struct llama_context * ctx, int32_t n_threads, int32_t n_threads_batch);

/// Sets what aborts llama_decode (checked between its steps).
void llama_set_abort_callback(struct llama_context * ctx, ggml_abort_callback abort_callback, void * abort_callback_data);

/// Evaluates `batch` with the model's encoder, keeping no KV memory: 0 on success, 2 when aborted,
/// below 0 on an error.
int32_t llama_encode(struct llama_context * ctx, struct llama_batch batch);

/// The pooled embedding (llama_model_n_embd_out floats) of sequence `seq_id` in the last
/// evaluated batch of a context made with `embeddings` and a pooling type; NULL otherwise.
float * llama_get_embeddings_seq(struct llama_context * ctx, llama_seq_id seq_id);

/// The logits (n_vocab floats) of token `i` of the last decoded batch, which must have asked for
/// them (negative: outputs counted from the end); NULL for an invalid `i`.
float * llama_get_logits_ith(struct llama_context * ctx, int32_t i);

int32_t llama_vocab_n_tokens(const struct llama_vocab * vocab);

/// Whether `token` ends a generation (end of sequence, end of turn, ...).
bool llama_vocab_is_eog(const struct llama_vocab * vocab, llama_token token);

/// What kind of token a vocabulary entry is; control, user-defined and unknown tokens are the
/// ones llama.cpp finds by their text before it tokenizes what lies between them.
enum llama_token_attr {
    LLAMA_TOKEN_ATTR_UNDEFINED    = 0,
    LLAMA_TOKEN_ATTR_UNKNOWN      = 1 << 0,
    LLAMA_TOKEN_ATTR_UNUSED       = 1 << 1,
    LLAMA_TOKEN_ATTR_NORMAL       = 1 << 2,
    LLAMA_TOKEN_ATTR_CONTROL      = 1 << 3,
    LLAMA_TOKEN_ATTR_USER_DEFINED = 1 << 4,
    LLAMA_TOKEN_ATTR_BYTE         = 1 << 5,
    LLAMA_TOKEN_ATTR_NORMALIZED   = 1 << 6,
    LLAMA_TOKEN_ATTR_LSTRIP       = 1 << 7,
    LLAMA_TOKEN_ATTR_RSTRIP       = 1 << 8,
    LLAMA_TOKEN_ATTR_SINGLE_WORD  = 1 << 9,
};

enum llama_token_attr llama_vocab_get_attr(const struct llama_vocab * vocab, llama_token token);

llama_token llama_vocab_bos(const struct llama_vocab * vocab);
llama_token llama_vocab_eos(const struct llama_vocab * vocab);
/// The sentence separator token (BERT's [SEP]); -1 (LLAMA_TOKEN_NULL) when the vocabulary has none.
llama_token llama_vocab_sep(const struct llama_vocab * vocab);
/// The fill-in-the-middle tokens, from the file's metadata or found by their text (Qwen's
/// `<|fim_prefix|>`, CodeLlama's `<PRE>`, ...); -1 (LLAMA_TOKEN_NULL) when the vocabulary has none.
llama_token llama_vocab_fim_pre(const struct llama_vocab * vocab);
llama_token llama_vocab_fim_suf(const struct llama_vocab * vocab);
llama_token llama_vocab_fim_mid(const struct llama_vocab * vocab);
/// The repository-name and file-separator tokens of repository-level fill-in-the-middle.
llama_token llama_vocab_fim_rep(const struct llama_vocab * vocab);
llama_token llama_vocab_fim_sep(const struct llama_vocab * vocab);
/// Whether tokenizing with add_special adds BOS, EOS, SEP: what a reranker's query-document pair is built with.
bool llama_vocab_get_add_bos(const struct llama_vocab * vocab);
bool llama_vocab_get_add_eos(const struct llama_vocab * vocab);
bool llama_vocab_get_add_sep(const struct llama_vocab * vocab);

/// Tokenizes `text_len` bytes of `text` into `tokens`; returns how many tokens, or minus how many
/// are needed when `n_tokens_max` is too small.
int32_t llama_tokenize(const struct llama_vocab * vocab, const char * text, int32_t text_len, llama_token * tokens,
                       int32_t n_tokens_max, bool add_special, bool parse_special);

/// Writes `token`'s text to `buf` (not NUL-terminated); returns its length, or minus the length
/// needed when `length` is too small.
int32_t llama_token_to_piece(const struct llama_vocab * vocab, llama_token token, char * buf, int32_t length, int32_t lstrip,
                             bool special);

/// Formats `chat` with the template `tmpl` (one of llama.cpp's built-in formats); returns the
/// length of the result, which may exceed `length`, or a negative value for an unknown template.
int32_t llama_chat_apply_template(const char * tmpl, const struct llama_chat_message * chat, size_t n_msg, bool add_ass,
                                  char * buf, int32_t length);

/// Tells `smpl` that `token` was chosen (a grammar advances).
void llama_sampler_accept(struct llama_sampler * smpl, llama_token token);
/// Applies `smpl` to the candidates in `cur_p`.
void llama_sampler_apply(struct llama_sampler * smpl, llama_token_data_array * cur_p);
void llama_sampler_free(struct llama_sampler * smpl);

struct llama_sampler * llama_sampler_chain_init(struct llama_sampler_chain_params params);

/// Appends `smpl` to `chain`, which then owns it.
void llama_sampler_chain_add(struct llama_sampler * chain, struct llama_sampler * smpl);

struct llama_sampler * llama_sampler_init_greedy(void);
struct llama_sampler * llama_sampler_init_dist(uint32_t seed);
struct llama_sampler * llama_sampler_init_top_k(int32_t k);
struct llama_sampler * llama_sampler_init_top_p(float p, size_t min_keep);
struct llama_sampler * llama_sampler_init_min_p(float p, size_t min_keep);
struct llama_sampler * llama_sampler_init_temp(float t);
/// The temperature `t`, moving within `delta` of it with the candidates' entropy (dynamic temperature).
struct llama_sampler * llama_sampler_init_temp_ext(float t, float delta, float exponent);
/// Locally typical sampling.
struct llama_sampler * llama_sampler_init_typical(float p, size_t min_keep);
/// Exclude top choices: with probability `p`, removes the candidates at least `t` likely but the last of them.
struct llama_sampler * llama_sampler_init_xtc(float p, float t, size_t min_keep, uint32_t seed);
/// Keeps the candidates within `n` standard deviations of the largest logit.
struct llama_sampler * llama_sampler_init_top_n_sigma(float n);
/// Mirostat 1.0, which chooses the token itself (like dist).
struct llama_sampler * llama_sampler_init_mirostat(int32_t n_vocab, uint32_t seed, float tau, float eta, int32_t m);
/// Mirostat 2.0, which chooses the token itself (like dist).
struct llama_sampler * llama_sampler_init_mirostat_v2(uint32_t seed, float tau, float eta);
/// DRY: penalizes tokens that extend a repetition of the tokens accepted; `vocab` turns the
/// sequence breakers into tokens (only read when there are some).
struct llama_sampler * llama_sampler_init_dry(const struct llama_vocab * vocab, float dry_multiplier, float dry_base,
                                              int32_t dry_allowed_length, int32_t dry_penalty_last_n, const char ** seq_breakers,
                                              size_t num_breakers);

/// A bias added to one token's logit.
typedef struct llama_logit_bias {
    llama_token token;
    float bias;
} llama_logit_bias;

/// Adds each bias to its token's logit (the SDK samples with its own; its tests compare with this).
struct llama_sampler * llama_sampler_init_logit_bias(int32_t n_vocab, int32_t n_logit_bias, const llama_logit_bias * logit_bias);

/// The repeat, frequency and presence penalties on the last `penalty_last_n` tokens accepted (the
/// SDK samples with its own; its tests compare with this).
struct llama_sampler * llama_sampler_init_penalties(int32_t n_vocab, int32_t penalty_last_n, float penalty_repeat, float penalty_freq,
                                                    float penalty_present);

/// A sampler that allows only what the GBNF grammar `grammar_str` (root rule `grammar_root`)
/// accepts; NULL when the grammar does not parse.
struct llama_sampler * llama_sampler_init_grammar(const struct llama_vocab * vocab, const char * grammar_str,
                                                  const char * grammar_root);

/// Samples from the logits of the batch's `idx`-th token and accepts the token chosen.
llama_token llama_sampler_sample(struct llama_sampler * smpl, struct llama_context * ctx, int32_t idx);

/// The backends and CPU features the library was built with.
const char * llama_print_system_info(void);

/// Routes llama.cpp's and ggml's log to `log_callback` (NULL: stderr).
void llama_log_set(ggml_log_callback log_callback, void * user_data);

#ifdef __cplusplus
}
#endif

#endif
