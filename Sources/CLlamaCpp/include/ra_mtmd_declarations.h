// The subset of libmtmd's C API (mtmd.h and mtmd-helper.h, llama.cpp's multimodal library; the
// llama.cpp of llama-cpp-python 0.3.36, the engines cache's llama.cpp-0.3.36-*) that RunAnywhere
// calls: loading a vision projector, tokenizing a prompt with images, encoding an image and
// decoding its embeddings into a sequence. Declared here, with the same names and types as the
// real headers, so the package builds without the engine installed; the library itself is opened
// at run time (ra_mtmd.h). The llama.cpp and ggml types it uses come from
// ra_llama_declarations.h. Structs passed by value, and the enums in their fields, are declared
// in full; types only used through pointers are declared without their fields.
// scripts/check-declarations (run by the tests) checks every declaration below against the real
// headers.
#ifndef RA_MTMD_DECLARATIONS_H
#define RA_MTMD_DECLARATIONS_H

#include "ra_llama_declarations.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: mtmd.h

/// What a chunk of a tokenized prompt holds.
enum mtmd_input_chunk_type {
    MTMD_INPUT_CHUNK_TYPE_TEXT,
    MTMD_INPUT_CHUNK_TYPE_IMAGE,
    MTMD_INPUT_CHUNK_TYPE_AUDIO,
    MTMD_INPUT_CHUNK_TYPE_COUNT,
};

/// A loaded projector (`mmproj`) bound to its language model.
struct mtmd_context;
/// An image: RGB pixels, or an encoded file's once decoded.
struct mtmd_bitmap;
/// One chunk of a tokenized prompt: text tokens, or an image ready to encode.
struct mtmd_input_chunk;
/// A tokenized prompt: its chunks, in order.
struct mtmd_input_chunks;

/// A prompt's text for mtmd_tokenize, with one media marker per image.
struct mtmd_input_text {
    const char * text;
    size_t text_len;
    bool add_special;    ///< add the model's BOS and the like
    bool parse_special;  ///< turn special-token text into its tokens
};

typedef struct mtmd_context mtmd_context;
typedef struct mtmd_bitmap mtmd_bitmap;
typedef struct mtmd_input_chunk mtmd_input_chunk;
typedef struct mtmd_input_chunks mtmd_input_chunks;
typedef struct mtmd_input_text mtmd_input_text;

/// Reports loading progress (unset here).
typedef bool (*mtmd_progress_callback)(float progress, void * user_data);

/// How a projector is loaded; start from mtmd_context_params_default().
struct mtmd_context_params {
    bool use_gpu;
    ggml_backend_dev_t device;
    bool print_timings;
    int n_threads;
    const char * image_marker;  ///< deprecated: media_marker
    const char * media_marker;  ///< the text that stands for an image in a prompt
    enum llama_flash_attn_type flash_attn_type;
    bool warmup;

    int image_min_tokens;
    int image_max_tokens;

    ggml_backend_sched_eval_callback cb_eval;
    void * cb_eval_user_data;

    int32_t batch_max_tokens;

    mtmd_progress_callback progress_callback;
    void * progress_callback_user_data;
};

/// The default media marker.
const char * mtmd_default_marker(void);

struct mtmd_context_params mtmd_context_params_default(void);

/// Loads the projector `mmproj_fname` for `text_model`; NULL on failure (the log says why).
mtmd_context * mtmd_init_from_file(const char * mmproj_fname, const struct llama_model * text_model,
                                   const struct mtmd_context_params ctx_params);

void mtmd_free(mtmd_context * ctx);

/// Whether the model needs M-RoPE positions (several per embedding).
bool mtmd_decode_use_mrope(const mtmd_context * ctx);

/// Whether the projector reads images.
bool mtmd_support_vision(const mtmd_context * ctx);

/// An image of `nx` x `ny` RGB pixels (`data` holds nx * ny * 3 bytes, copied).
mtmd_bitmap * mtmd_bitmap_init(uint32_t nx, uint32_t ny, const unsigned char * data);
void mtmd_bitmap_free(mtmd_bitmap * bitmap);
/// Sets the id an image's chunk carries (for caching: the same id is the same image).
void mtmd_bitmap_set_id(mtmd_bitmap * bitmap, const char * id);

mtmd_input_chunks * mtmd_input_chunks_init(void);
size_t mtmd_input_chunks_size(const mtmd_input_chunks * chunks);
/// The chunk at `idx`, owned by `chunks`.
const mtmd_input_chunk * mtmd_input_chunks_get(const mtmd_input_chunks * chunks, size_t idx);
void mtmd_input_chunks_free(mtmd_input_chunks * chunks);

enum mtmd_input_chunk_type mtmd_input_chunk_get_type(const mtmd_input_chunk * chunk);
/// A text chunk's tokens, their count written to `n_tokens_output`.
const llama_token * mtmd_input_chunk_get_tokens_text(const mtmd_input_chunk * chunk, size_t * n_tokens_output);
/// How many tokens (embeddings) the chunk becomes.
size_t mtmd_input_chunk_get_n_tokens(const mtmd_input_chunk * chunk);
/// An image chunk's id (its bitmap's); NULL for a text chunk.
const char * mtmd_input_chunk_get_id(const mtmd_input_chunk * chunk);
/// How many positions the chunk takes (its token count, except with M-RoPE).
llama_pos mtmd_input_chunk_get_n_pos(const mtmd_input_chunk * chunk);

/// A copy of `chunk` the caller owns, freed with mtmd_input_chunk_free.
mtmd_input_chunk * mtmd_input_chunk_copy(const mtmd_input_chunk * chunk);
void mtmd_input_chunk_free(mtmd_input_chunk * chunk);

/// Splits `text` at its media markers into chunks in `output`, one image chunk per bitmap:
/// 0 on success, 1 when the markers and bitmaps differ in number, 2 when an image cannot be
/// preprocessed.
int32_t mtmd_tokenize(const mtmd_context * ctx, mtmd_input_chunks * output, const mtmd_input_text * text,
                      const mtmd_bitmap * const * bitmaps, size_t n_bitmaps);

/// Encodes an image chunk; its embeddings are then at mtmd_get_output_embd. 0 on success.
int32_t mtmd_encode_chunk(mtmd_context * ctx, const mtmd_input_chunk * chunk);

/// The embeddings of the last mtmd_encode_chunk.
float * mtmd_get_output_embd(mtmd_context * ctx);

// MARK: mtmd-helper.h

/// A video being read (only pointed to by mtmd_helper_bitmap_wrapper here).
struct mtmd_helper_video;
typedef struct mtmd_helper_video mtmd_helper_video;

struct mtmd_helper_video_init_params {
    float fps_target;
    const char * ffmpeg_bin_dir;
    int64_t timestamp_interval_ms;
};

/// Options of mtmd_helper_bitmap_init_from_buf; from mtmd_helper_init_opt_default().
struct mtmd_helper_init_opt {
    struct mtmd_helper_video_init_params video_params;
};
typedef struct mtmd_helper_init_opt mtmd_helper_init_opt;

struct mtmd_helper_init_opt mtmd_helper_init_opt_default(void);

/// Routes libmtmd's log to `log_callback` (NULL: stderr).
void mtmd_helper_log_set(ggml_log_callback log_callback, void * user_data);

/// What mtmd_helper_bitmap_init_from_buf made: a bitmap (NULL on failure) or a video.
struct mtmd_helper_bitmap_wrapper {
    mtmd_bitmap * bitmap;
    mtmd_helper_video * video_ctx;
};

/// A bitmap decoded from the image file in `buf` (PNG, JPEG, GIF, BMP, ... through stb_image),
/// with the file's SHA-256 as its id.
struct mtmd_helper_bitmap_wrapper mtmd_helper_bitmap_init_from_buf(const mtmd_context * ctx, const unsigned char * buf, size_t len,
                                                                   bool placeholder, struct mtmd_helper_init_opt opt);

/// One decoded sub-batch of embeddings (only pointed to by mtmd_helper_post_decode_callback here).
struct mtmd_helper_embd_batch;

/// Called after each sub-batch mtmd_helper_decode_image_chunk decodes (unset here).
typedef int32_t (*mtmd_helper_post_decode_callback)(const struct mtmd_helper_embd_batch * batch, void * user_data);

/// Decodes an encoded image chunk's embeddings `encoded_embd` into sequence `seq_id` of `lctx`
/// from position `n_past`, `n_batch` at a time, writing the next position to `new_n_past`:
/// 0 on success, -1 when the chunk is not an image, 1 when decoding fails.
int32_t mtmd_helper_decode_image_chunk(mtmd_context * ctx, struct llama_context * lctx, const mtmd_input_chunk * chunk,
                                       float * encoded_embd, llama_pos n_past, llama_seq_id seq_id, int32_t n_batch,
                                       llama_pos * new_n_past, mtmd_helper_post_decode_callback callback, void * user_data);

#ifdef __cplusplus
}
#endif

#endif
