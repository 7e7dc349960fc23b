// The subset of sherpa-onnx 2.0.1's C API (sherpa-onnx/c-api/c-api.h) that RunAnywhere calls:
// offline text-to-speech with a Piper (VITS) voice fed pre-phonemized input. Declared here, with
// the same names and types as c-api.h, so the package builds without the engine installed; the
// library itself is opened at run time (ra_sherpa.h). scripts/check-declarations (run by the
// tests) checks every declaration below against the real header.
//
// The configuration structs are passed by pointer but filled field by field on this side, so
// each is declared in full, every field in c-api.h's order.
#ifndef RA_SHERPA_DECLARATIONS_H
#define RA_SHERPA_DECLARATIONS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A VITS model (Piper voices are VITS models).
typedef struct SherpaOnnxOfflineTtsVitsModelConfig {
    const char *model;
    const char *lexicon;
    const char *tokens;
    const char *data_dir;  ///< Ignored since sherpa-onnx 2.0.
    float noise_scale;
    float noise_scale_w;
    float length_scale;
    const char *dict_dir;  ///< Unused, kept for ABI compatibility.
} SherpaOnnxOfflineTtsVitsModelConfig;

/// A Matcha model (acoustic model and vocoder).
typedef struct SherpaOnnxOfflineTtsMatchaModelConfig {
    const char *acoustic_model;
    const char *vocoder;
    const char *lexicon;
    const char *tokens;
    const char *data_dir;  ///< Ignored since sherpa-onnx 2.0.
    float noise_scale;
    float length_scale;
    const char *dict_dir;  ///< Unused, kept for ABI compatibility.
} SherpaOnnxOfflineTtsMatchaModelConfig;

/// A Kokoro model.
typedef struct SherpaOnnxOfflineTtsKokoroModelConfig {
    const char *model;
    const char *voices;
    const char *tokens;
    const char *data_dir;  ///< Ignored since sherpa-onnx 2.0.
    float length_scale;
    const char *dict_dir;  ///< Unused, kept for ABI compatibility.
    const char *lexicon;
    const char *lang;
} SherpaOnnxOfflineTtsKokoroModelConfig;

/// A Kitten model.
typedef struct SherpaOnnxOfflineTtsKittenModelConfig {
    const char *model;
    const char *voices;
    const char *tokens;
    const char *data_dir;  ///< Ignored since sherpa-onnx 2.0.
    float length_scale;
    const char *lexicon;
} SherpaOnnxOfflineTtsKittenModelConfig;

/// A ZipVoice model.
typedef struct SherpaOnnxOfflineTtsZipvoiceModelConfig {
    const char *tokens;
    const char *encoder;
    const char *decoder;
    const char *vocoder;
    const char *data_dir;  ///< Ignored since sherpa-onnx 2.0.
    const char *lexicon;
    float feat_scale;
    float t_shift;
    float target_rms;
    float guidance_scale;
} SherpaOnnxOfflineTtsZipvoiceModelConfig;

/// A Pocket TTS model.
typedef struct SherpaOnnxOfflineTtsPocketModelConfig {
    const char *lm_flow;
    const char *lm_main;
    const char *encoder;
    const char *decoder;
    const char *text_conditioner;
    const char *vocab_json;
    const char *token_scores_json;
    int32_t voice_embedding_cache_capacity;
} SherpaOnnxOfflineTtsPocketModelConfig;

/// A Supertonic model.
typedef struct SherpaOnnxOfflineTtsSupertonicModelConfig {
    const char *duration_predictor;
    const char *text_encoder;
    const char *vector_estimator;
    const char *vocoder;
    const char *tts_json;
    const char *unicode_indexer;
    const char *voice_style;
} SherpaOnnxOfflineTtsSupertonicModelConfig;

/// The model: exactly one family (here `vits`) is set, the others left zeroed.
typedef struct SherpaOnnxOfflineTtsModelConfig {
    SherpaOnnxOfflineTtsVitsModelConfig vits;
    int32_t num_threads;
    int32_t debug;
    const char *provider;  ///< "cpu", "cuda", …
    SherpaOnnxOfflineTtsMatchaModelConfig matcha;
    SherpaOnnxOfflineTtsKokoroModelConfig kokoro;
    SherpaOnnxOfflineTtsKittenModelConfig kitten;
    SherpaOnnxOfflineTtsZipvoiceModelConfig zipvoice;
    SherpaOnnxOfflineTtsPocketModelConfig pocket;
    SherpaOnnxOfflineTtsSupertonicModelConfig supertonic;
} SherpaOnnxOfflineTtsModelConfig;

/// What SherpaOnnxCreateOfflineTts reads.
typedef struct SherpaOnnxOfflineTtsConfig {
    SherpaOnnxOfflineTtsModelConfig model;
    const char *rule_fsts;
    int32_t max_num_sentences;
    const char *rule_fars;
    float silence_scale;
} SherpaOnnxOfflineTtsConfig;

/// Synthesized mono samples in [-1, 1]; freed with SherpaOnnxDestroyOfflineTtsGeneratedAudio.
typedef struct SherpaOnnxGeneratedAudio {
    const float *samples;
    int32_t n;
    int32_t sample_rate;
} SherpaOnnxGeneratedAudio;

/// Called with each new chunk of samples and the progress in [0, 1]; returns 0 to stop early.
typedef int32_t (*SherpaOnnxGeneratedAudioProgressCallbackWithArg)(
    const float *samples, int32_t n, float p, void *arg);

/// An offline text-to-speech engine (opaque).
typedef struct SherpaOnnxOfflineTts SherpaOnnxOfflineTts;

/// Generation-time parameters. With `phoneme_codepoints` set, the text is ignored: the input is
/// the sentences' phonemes as Unicode code points, flattened, `phoneme_codepoints_lens` giving
/// each sentence's count.
typedef struct SherpaOnnxGenerationConfig {
    float silence_scale;
    float speed;
    int32_t sid;
    const float *reference_audio;
    int32_t reference_audio_len;
    int32_t reference_sample_rate;
    const char *reference_text;
    int32_t num_steps;
    const char *extra;
    const int32_t *phoneme_codepoints;
    const int32_t *phoneme_codepoints_lens;
    int32_t phoneme_codepoints_num_sentences;
    const char *const *tokens;
    const int32_t *tokens_lens;
    int32_t tokens_num_sentences;
} SherpaOnnxGenerationConfig;

/// A new engine, or NULL when the configuration is wrong; freed with SherpaOnnxDestroyOfflineTts.
const SherpaOnnxOfflineTts *SherpaOnnxCreateOfflineTts(const SherpaOnnxOfflineTtsConfig *config);

void SherpaOnnxDestroyOfflineTts(const SherpaOnnxOfflineTts *tts);

/// The sample rate of the engine's output, in Hz.
int32_t SherpaOnnxOfflineTtsSampleRate(const SherpaOnnxOfflineTts *tts);

/// Synthesizes `text` (or `config`'s phonemes); NULL on error. `callback` may be NULL.
const SherpaOnnxGeneratedAudio *SherpaOnnxOfflineTtsGenerateWithConfig(
    const SherpaOnnxOfflineTts *tts, const char *text, const SherpaOnnxGenerationConfig *config,
    SherpaOnnxGeneratedAudioProgressCallbackWithArg callback, void *arg);

void SherpaOnnxDestroyOfflineTtsGeneratedAudio(const SherpaOnnxGeneratedAudio *p);

#ifdef __cplusplus
}
#endif

#endif
