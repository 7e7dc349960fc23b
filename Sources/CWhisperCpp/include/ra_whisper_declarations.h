// The subset of whisper.cpp's C API (whisper.h, with the parts of ggml.h and ggml-backend.h it
// needs; the engines cache's whisper.cpp-1.8.5) that RunAnywhere calls: transcription, Silero
// voice activity detection, the log and ggml's backend registry. Declared here, with the same
// names and types as the real headers, so the package builds without the engine installed; the
// library itself is opened at run time (ra_whisper.h). Structs passed by value, and the enums in
// their fields, are declared in full, field for field and constant for constant; types only used
// through pointers are declared without their fields. scripts/check-declarations (run by the
// tests) checks every declaration below against the real headers.
#ifndef RA_WHISPER_DECLARATIONS_H
#define RA_WHISPER_DECLARATIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: ggml

/// The level of a message passed to a ggml_log_callback.
enum ggml_log_level {
    GGML_LOG_LEVEL_NONE = 0,
    GGML_LOG_LEVEL_DEBUG = 1,
    GGML_LOG_LEVEL_INFO = 2,
    GGML_LOG_LEVEL_WARN = 3,
    GGML_LOG_LEVEL_ERROR = 4,
    GGML_LOG_LEVEL_CONT = 5,  // continues the previous message
};

/// Called before each ggml computation; returning true aborts it.
typedef bool (*ggml_abort_callback)(void * data);

/// Receives the library's log messages.
typedef void (*ggml_log_callback)(enum ggml_log_level level, const char * text, void * user_data);

/// One compute backend in ggml's registry ("CPU", "CUDA", ...).
typedef struct ggml_backend_reg * ggml_backend_reg_t;

/// The number of backends registered.
size_t ggml_backend_reg_count(void);
/// The backend at `index`, below ggml_backend_reg_count().
ggml_backend_reg_t ggml_backend_reg_get(size_t index);
/// A backend's name.
const char * ggml_backend_reg_name(ggml_backend_reg_t reg);

// MARK: whisper.cpp types

/// A loaded model, with its default state.
struct whisper_context;
/// The decoding state of one transcription.
struct whisper_state;
/// A loaded voice activity model.
struct whisper_vad_context;
/// Speech segments found by voice activity detection.
struct whisper_vad_segments;

typedef int32_t whisper_token;

/// A token with its probabilities and times (only passed to a whisper_logits_filter_callback here).
typedef struct whisper_token_data whisper_token_data;
/// One element of a grammar rule (only pointed to by whisper_full_params here).
typedef struct whisper_grammar_element whisper_grammar_element;

/// The alignment heads used for token timestamps with DTW.
enum whisper_alignment_heads_preset {
    WHISPER_AHEADS_NONE,
    WHISPER_AHEADS_N_TOP_MOST,
    WHISPER_AHEADS_CUSTOM,
    WHISPER_AHEADS_TINY_EN,
    WHISPER_AHEADS_TINY,
    WHISPER_AHEADS_BASE_EN,
    WHISPER_AHEADS_BASE,
    WHISPER_AHEADS_SMALL_EN,
    WHISPER_AHEADS_SMALL,
    WHISPER_AHEADS_MEDIUM_EN,
    WHISPER_AHEADS_MEDIUM,
    WHISPER_AHEADS_LARGE_V1,
    WHISPER_AHEADS_LARGE_V2,
    WHISPER_AHEADS_LARGE_V3,
    WHISPER_AHEADS_LARGE_V3_TURBO,
};

/// One alignment head: a text layer and a head in it.
typedef struct whisper_ahead {
    int n_text_layer;
    int n_head;
} whisper_ahead;

/// Custom alignment heads (for WHISPER_AHEADS_CUSTOM).
typedef struct whisper_aheads {
    size_t n_heads;
    const whisper_ahead * heads;
} whisper_aheads;

/// How a model is loaded; start from whisper_context_default_params().
struct whisper_context_params {
    bool use_gpu;
    bool flash_attn;
    int gpu_device;

    bool dtw_token_timestamps;
    enum whisper_alignment_heads_preset dtw_aheads_preset;

    int dtw_n_top;
    struct whisper_aheads dtw_aheads;

    size_t dtw_mem_size;
};

/// How voice activity detection turns probabilities into speech segments; start from
/// whisper_vad_default_params().
typedef struct whisper_vad_params {
    float threshold;               ///< probability above which a frame counts as speech
    int min_speech_duration_ms;    ///< shorter speech is dropped
    int min_silence_duration_ms;   ///< silence that ends a segment
    float max_speech_duration_s;   ///< longer speech is split
    int speech_pad_ms;             ///< padding added on both sides of a segment
    float samples_overlap;         ///< overlap in seconds when copying a segment's samples
} whisper_vad_params;

/// How a voice activity model is loaded; start from whisper_vad_default_context_params().
struct whisper_vad_context_params {
    int n_threads;
    bool use_gpu;
    int gpu_device;
};

/// The decoding strategies of whisper_full.
enum whisper_sampling_strategy {
    WHISPER_SAMPLING_GREEDY,
    WHISPER_SAMPLING_BEAM_SEARCH,
};

/// Called for each newly decoded text segment.
typedef void (*whisper_new_segment_callback)(struct whisper_context * ctx, struct whisper_state * state, int n_new, void * user_data);
/// Called on each progress update.
typedef void (*whisper_progress_callback)(struct whisper_context * ctx, struct whisper_state * state, int progress, void * user_data);
/// Called before the encoder starts; returning false aborts the computation.
typedef bool (*whisper_encoder_begin_callback)(struct whisper_context * ctx, struct whisper_state * state, void * user_data);
/// Called after temperature is applied to the logits, before sampling; may change them.
typedef void (*whisper_logits_filter_callback)(
    struct whisper_context * ctx,
    struct whisper_state * state,
    const whisper_token_data * tokens,
    int n_tokens,
    float * logits,
    void * user_data);

/// The parameters of whisper_full; start from whisper_full_default_params().
struct whisper_full_params {
    enum whisper_sampling_strategy strategy;

    int n_threads;
    int n_max_text_ctx;
    int offset_ms;
    int duration_ms;

    bool translate;
    bool no_context;
    bool no_timestamps;
    bool single_segment;
    bool print_special;
    bool print_progress;
    bool print_realtime;
    bool print_timestamps;

    bool token_timestamps;
    float thold_pt;
    float thold_ptsum;
    int max_len;
    bool split_on_word;
    int max_tokens;

    bool debug_mode;
    int audio_ctx;

    bool tdrz_enable;

    const char * suppress_regex;

    const char * initial_prompt;  ///< text prepended as the decoder's prompt, or NULL
    bool carry_initial_prompt;
    const whisper_token * prompt_tokens;
    int prompt_n_tokens;

    const char * language;  ///< a language code; NULL, "" or "auto" detects it
    bool detect_language;   ///< only detect the language, transcribe nothing

    bool suppress_blank;
    bool suppress_nst;

    float temperature;
    float max_initial_ts;
    float length_penalty;

    float temperature_inc;
    float entropy_thold;
    float logprob_thold;
    float no_speech_thold;

    struct {
        int best_of;
    } greedy;

    struct {
        int beam_size;

        float patience;
    } beam_search;

    whisper_new_segment_callback new_segment_callback;
    void * new_segment_callback_user_data;

    whisper_progress_callback progress_callback;
    void * progress_callback_user_data;

    whisper_encoder_begin_callback encoder_begin_callback;
    void * encoder_begin_callback_user_data;

    ggml_abort_callback abort_callback;  ///< polled during computation; true aborts whisper_full
    void * abort_callback_user_data;

    whisper_logits_filter_callback logits_filter_callback;
    void * logits_filter_callback_user_data;

    const whisper_grammar_element ** grammar_rules;
    size_t n_grammar_rules;
    size_t i_start_rule;
    float grammar_penalty;

    bool vad;
    const char * vad_model_path;

    whisper_vad_params vad_params;
};

// MARK: whisper.cpp functions

/// The library's version, such as "1.8.5".
const char * whisper_version(void);
/// Sends the library's log to `log_callback` (by default it goes to stderr).
void whisper_log_set(ggml_log_callback log_callback, void * user_data);

struct whisper_context_params whisper_context_default_params(void);
/// Loads a ggml model file; NULL on failure.
struct whisper_context * whisper_init_from_file_with_params(const char * path_model, struct whisper_context_params params);
void whisper_free(struct whisper_context * ctx);

struct whisper_full_params whisper_full_default_params(enum whisper_sampling_strategy strategy);
/// Transcribes 16 kHz mono samples into the context's default state; 0 on success.
int whisper_full(struct whisper_context * ctx, struct whisper_full_params params, const float * samples, int n_samples);

int whisper_full_n_segments(struct whisper_context * ctx);
const char * whisper_full_get_segment_text(struct whisper_context * ctx, int i_segment);
/// A segment's start, in centiseconds.
int64_t whisper_full_get_segment_t0(struct whisper_context * ctx, int i_segment);
/// A segment's end, in centiseconds.
int64_t whisper_full_get_segment_t1(struct whisper_context * ctx, int i_segment);
/// The probability that segment `i_segment` holds no speech (from the no-speech token at its start).
float whisper_full_get_segment_no_speech_prob(struct whisper_context * ctx, int i_segment);
int whisper_full_n_tokens(struct whisper_context * ctx, int i_segment);
float whisper_full_get_token_p(struct whisper_context * ctx, int i_segment, int i_token);
whisper_token whisper_full_get_token_id(struct whisper_context * ctx, int i_segment, int i_token);
/// The end-of-text token; ids at or above it are special tokens.
whisper_token whisper_token_eot(struct whisper_context * ctx);
/// The language of the last whisper_full, as an id for whisper_lang_str.
int whisper_full_lang_id(struct whisper_context * ctx);
/// A language's short code, such as "en".
const char * whisper_lang_str(int id);
/// The largest language id.
int whisper_lang_max_id(void);
/// A language's full name, such as "english".
const char * whisper_lang_str_full(int id);
/// Nonzero when the model knows languages other than English.
int whisper_is_multilingual(struct whisper_context * ctx);

struct whisper_vad_params whisper_vad_default_params(void);
struct whisper_vad_context_params whisper_vad_default_context_params(void);
/// Loads a voice activity model file; NULL on failure.
struct whisper_vad_context * whisper_vad_init_from_file_with_params(const char * path_model, struct whisper_vad_context_params params);
/// The speech segments in 16 kHz mono samples; NULL on failure. Free with whisper_vad_free_segments.
struct whisper_vad_segments * whisper_vad_segments_from_samples(
    struct whisper_vad_context * vctx, struct whisper_vad_params params, const float * samples, int n_samples);
/// Computes the speech probability of each 512-sample window of 16 kHz mono `samples` (a
/// partial last window padded with silence), from a fresh state; false on failure.
bool whisper_vad_detect_speech(struct whisper_vad_context * vctx, const float * samples, int n_samples);
/// How many probabilities the last whisper_vad_detect_speech computed.
int whisper_vad_n_probs(struct whisper_vad_context * vctx);
/// The probabilities the last whisper_vad_detect_speech computed, owned by the context.
float * whisper_vad_probs(struct whisper_vad_context * vctx);
int whisper_vad_segments_n_segments(struct whisper_vad_segments * segments);
/// A speech segment's start, in centiseconds.
float whisper_vad_segments_get_segment_t0(struct whisper_vad_segments * segments, int i_segment);
/// A speech segment's end, in centiseconds.
float whisper_vad_segments_get_segment_t1(struct whisper_vad_segments * segments, int i_segment);
void whisper_vad_free_segments(struct whisper_vad_segments * segments);
void whisper_vad_free(struct whisper_vad_context * ctx);

#ifdef __cplusplus
}
#endif

#endif
