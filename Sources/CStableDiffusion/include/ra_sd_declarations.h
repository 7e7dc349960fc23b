// The subset of stable-diffusion.cpp's C API (stable-diffusion.h, version 0.4.7) that RunAnywhere
// calls, declared here with the engine's own names and types so that the package builds without
// the engine installed: the library itself is opened at run time (see ra_sd.h). Structs passed by
// value, and the enums in their fields, are declared in full, field for field and constant for
// constant. scripts/check-declarations (run by the tests) checks every declaration here against
// the real header.
#ifndef RA_SD_DECLARATIONS_H
#define RA_SD_DECLARATIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Random number generators.
enum rng_type_t {
    STD_DEFAULT_RNG,
    CUDA_RNG,
    CPU_RNG,
    RNG_TYPE_COUNT
};

/// Samplers.
enum sample_method_t {
    EULER_SAMPLE_METHOD,
    EULER_A_SAMPLE_METHOD,
    HEUN_SAMPLE_METHOD,
    DPM2_SAMPLE_METHOD,
    DPMPP2S_A_SAMPLE_METHOD,
    DPMPP2M_SAMPLE_METHOD,
    DPMPP2Mv2_SAMPLE_METHOD,
    IPNDM_SAMPLE_METHOD,
    IPNDM_V_SAMPLE_METHOD,
    LCM_SAMPLE_METHOD,
    DDIM_TRAILING_SAMPLE_METHOD,
    TCD_SAMPLE_METHOD,
    RES_MULTISTEP_SAMPLE_METHOD,
    RES_2S_SAMPLE_METHOD,
    ER_SDE_SAMPLE_METHOD,
    SAMPLE_METHOD_COUNT
};

/// Noise schedules (sigma schedules) for the samplers.
enum scheduler_t {
    DISCRETE_SCHEDULER,
    KARRAS_SCHEDULER,
    EXPONENTIAL_SCHEDULER,
    AYS_SCHEDULER,
    GITS_SCHEDULER,
    SGM_UNIFORM_SCHEDULER,
    SIMPLE_SCHEDULER,
    SMOOTHSTEP_SCHEDULER,
    KL_OPTIMAL_SCHEDULER,
    LCM_SCHEDULER,
    BONG_TANGENT_SCHEDULER,
    SCHEDULER_COUNT
};

/// What the model predicts.
enum prediction_t {
    EPS_PRED,
    V_PRED,
    EDM_V_PRED,
    FLOW_PRED,
    FLUX_FLOW_PRED,
    FLUX2_FLOW_PRED,
    PREDICTION_COUNT
};

/// Weight types, with the values of ggml's `enum ggml_type` (the gaps are types ggml removed).
enum sd_type_t {
    SD_TYPE_F32     = 0,
    SD_TYPE_F16     = 1,
    SD_TYPE_Q4_0    = 2,
    SD_TYPE_Q4_1    = 3,
    SD_TYPE_Q5_0    = 6,
    SD_TYPE_Q5_1    = 7,
    SD_TYPE_Q8_0    = 8,
    SD_TYPE_Q8_1    = 9,
    SD_TYPE_Q2_K    = 10,
    SD_TYPE_Q3_K    = 11,
    SD_TYPE_Q4_K    = 12,
    SD_TYPE_Q5_K    = 13,
    SD_TYPE_Q6_K    = 14,
    SD_TYPE_Q8_K    = 15,
    SD_TYPE_IQ2_XXS = 16,
    SD_TYPE_IQ2_XS  = 17,
    SD_TYPE_IQ3_XXS = 18,
    SD_TYPE_IQ1_S   = 19,
    SD_TYPE_IQ4_NL  = 20,
    SD_TYPE_IQ3_S   = 21,
    SD_TYPE_IQ2_S   = 22,
    SD_TYPE_IQ4_XS  = 23,
    SD_TYPE_I8      = 24,
    SD_TYPE_I16     = 25,
    SD_TYPE_I32     = 26,
    SD_TYPE_I64     = 27,
    SD_TYPE_F64     = 28,
    SD_TYPE_IQ1_M   = 29,
    SD_TYPE_BF16    = 30,
    SD_TYPE_TQ1_0   = 34,
    SD_TYPE_TQ2_0   = 35,
    SD_TYPE_MXFP4   = 39,
    SD_TYPE_NVFP4   = 40,
    SD_TYPE_COUNT   = 41,
};

/// The levels of the log callback's messages.
enum sd_log_level_t {
    SD_LOG_DEBUG,
    SD_LOG_INFO,
    SD_LOG_WARN,
    SD_LOG_ERROR
};

/// When LoRA weights are applied.
enum lora_apply_mode_t {
    LORA_APPLY_AUTO,
    LORA_APPLY_IMMEDIATELY,
    LORA_APPLY_AT_RUNTIME,
    LORA_APPLY_MODE_COUNT,
};

/// Decoding the image in tiles (less memory).
typedef struct {
    bool enabled;
    int tile_size_x;
    int tile_size_y;
    float target_overlap;
    float rel_size_x;
    float rel_size_y;
} sd_tiling_params_t;

/// A textual-inversion embedding.
typedef struct {
    const char* name;
    const char* path;
} sd_embedding_t;

/// How new_sd_ctx loads a model: its files (NULL when absent) and its options. Filled with the
/// defaults by sd_ctx_params_init.
typedef struct {
    const char* model_path;
    const char* clip_l_path;
    const char* clip_g_path;
    const char* clip_vision_path;
    const char* t5xxl_path;
    const char* llm_path;
    const char* llm_vision_path;
    const char* diffusion_model_path;
    const char* high_noise_diffusion_model_path;
    const char* vae_path;
    const char* taesd_path;
    const char* control_net_path;
    const sd_embedding_t* embeddings;
    uint32_t embedding_count;
    const char* photo_maker_path;
    const char* tensor_type_rules;
    bool vae_decode_only;
    bool free_params_immediately;
    int n_threads;
    enum sd_type_t wtype;
    enum rng_type_t rng_type;
    enum rng_type_t sampler_rng_type;
    enum prediction_t prediction;
    enum lora_apply_mode_t lora_apply_mode;
    bool offload_params_to_cpu;
    bool enable_mmap;
    bool keep_clip_on_cpu;
    bool keep_control_net_on_cpu;
    bool keep_vae_on_cpu;
    bool flash_attn;
    bool diffusion_flash_attn;
    bool tae_preview_only;
    bool diffusion_conv_direct;
    bool vae_conv_direct;
    bool circular_x;
    bool circular_y;
    bool force_sdxl_vae_conv_scale;
    bool chroma_use_dit_mask;
    bool chroma_use_t5_mask;
    int chroma_t5_mask_pad;
    bool qwen_image_zero_cond_t;
    float max_vram;
} sd_ctx_params_t;

/// An image: `width` × `height` pixels of `channel` 8-bit channels each, row by row.
typedef struct {
    uint32_t width;
    uint32_t height;
    uint32_t channel;
    uint8_t* data;
} sd_image_t;

/// Skip-layer guidance.
typedef struct {
    int* layers;
    size_t layer_count;
    float layer_start;
    float layer_end;
    float scale;
} sd_slg_params_t;

/// Classifier-free guidance scales (`txt_cfg`: the text's).
typedef struct {
    float txt_cfg;
    float img_cfg;
    float distilled_guidance;
    sd_slg_params_t slg;
} sd_guidance_params_t;

/// How the image is sampled.
typedef struct {
    sd_guidance_params_t guidance;
    enum scheduler_t scheduler;
    enum sample_method_t sample_method;
    int sample_steps;
    float eta;
    int shifted_timestep;
    float* custom_sigmas;
    int custom_sigmas_count;
    float flow_shift;
} sd_sample_params_t;

/// PhotoMaker's inputs.
typedef struct {
    sd_image_t* id_images;
    int id_images_count;
    const char* id_embed_path;
    float style_strength;
} sd_pm_params_t;

/// Caching of the diffusion model's work between steps.
enum sd_cache_mode_t {
    SD_CACHE_DISABLED = 0,
    SD_CACHE_EASYCACHE,
    SD_CACHE_UCACHE,
    SD_CACHE_DBCACHE,
    SD_CACHE_TAYLORSEER,
    SD_CACHE_CACHE_DIT,
    SD_CACHE_SPECTRUM,
};

/// The cache's settings.
typedef struct {
    enum sd_cache_mode_t mode;
    float reuse_threshold;
    float start_percent;
    float end_percent;
    float error_decay_rate;
    bool use_relative_threshold;
    bool reset_error_on_compute;
    int Fn_compute_blocks;
    int Bn_compute_blocks;
    float residual_diff_threshold;
    int max_warmup_steps;
    int max_cached_steps;
    int max_continuous_cached_steps;
    int taylorseer_n_derivatives;
    int taylorseer_skip_interval;
    const char* scm_mask;
    bool scm_policy_dynamic;
    float spectrum_w;
    int spectrum_m;
    float spectrum_lam;
    int spectrum_window_size;
    float spectrum_flex_window;
    int spectrum_warmup_steps;
    float spectrum_stop_percent;
} sd_cache_params_t;

/// A LoRA to apply.
typedef struct {
    bool is_high_noise;
    float multiplier;
    const char* path;
} sd_lora_t;

/// Upscalers for the high-resolution pass.
enum sd_hires_upscaler_t {
    SD_HIRES_UPSCALER_NONE,
    SD_HIRES_UPSCALER_LATENT,
    SD_HIRES_UPSCALER_LATENT_NEAREST,
    SD_HIRES_UPSCALER_LATENT_NEAREST_EXACT,
    SD_HIRES_UPSCALER_LATENT_ANTIALIASED,
    SD_HIRES_UPSCALER_LATENT_BICUBIC,
    SD_HIRES_UPSCALER_LATENT_BICUBIC_ANTIALIASED,
    SD_HIRES_UPSCALER_LANCZOS,
    SD_HIRES_UPSCALER_NEAREST,
    SD_HIRES_UPSCALER_MODEL,
    SD_HIRES_UPSCALER_COUNT,
};

/// The high-resolution pass (generate small, upscale, refine).
typedef struct {
    bool enabled;
    enum sd_hires_upscaler_t upscaler;
    const char* model_path;
    float scale;
    int target_width;
    int target_height;
    int steps;
    float denoising_strength;
    int upscale_tile_size;
} sd_hires_params_t;

/// One generate_image call: the prompts, the size, the sampling and the rest. Filled with the
/// defaults by sd_img_gen_params_init.
typedef struct {
    const sd_lora_t* loras;
    uint32_t lora_count;
    const char* prompt;
    const char* negative_prompt;
    int clip_skip;
    sd_image_t init_image;
    sd_image_t* ref_images;
    int ref_images_count;
    bool auto_resize_ref_image;
    bool increase_ref_index;
    sd_image_t mask_image;
    int width;
    int height;
    sd_sample_params_t sample_params;
    float strength;
    int64_t seed;
    int batch_count;
    sd_image_t control_image;
    float control_strength;
    sd_pm_params_t pm_params;
    sd_tiling_params_t vae_tiling_params;
    sd_cache_params_t cache;
    sd_hires_params_t hires;
} sd_img_gen_params_t;

/// A loaded model (opaque).
typedef struct sd_ctx_t sd_ctx_t;

/// Receives each log message; `data` is the pointer given to sd_set_log_callback.
typedef void (*sd_log_cb_t)(enum sd_log_level_t level, const char* text, void* data);
/// Receives progress: `step` of `steps`, `time` seconds per step.
typedef void (*sd_progress_cb_t)(int step, int steps, float time, void* data);

/// Sets the process-wide log callback.
void sd_set_log_callback(sd_log_cb_t sd_log_cb, void* data);
/// Sets the process-wide progress callback (called while loading too).
void sd_set_progress_callback(sd_progress_cb_t cb, void* data);
/// The CPU features and backends of this build. (Unprototyped `()`, as upstream declares it.)
const char* sd_get_system_info();
/// Whether `sd_ctx` holds an image model (rather than a video one).
bool sd_ctx_supports_image_generation(const sd_ctx_t* sd_ctx);

/// Fills `sd_ctx_params` with the defaults.
void sd_ctx_params_init(sd_ctx_params_t* sd_ctx_params);

/// Loads a model; NULL on failure (the log says why). Freed with free_sd_ctx.
sd_ctx_t* new_sd_ctx(const sd_ctx_params_t* sd_ctx_params);
void free_sd_ctx(sd_ctx_t* sd_ctx);

/// Fills `sd_img_gen_params` with the defaults.
void sd_img_gen_params_init(sd_img_gen_params_t* sd_img_gen_params);
/// Generates `batch_count` images, returned in one malloc'd array (each image's `data` malloc'd
/// too); NULL on failure.
sd_image_t* generate_image(sd_ctx_t* sd_ctx, const sd_img_gen_params_t* sd_img_gen_params);

/// The commit and version the library was built from.
const char* sd_commit(void);
const char* sd_version(void);

#ifdef __cplusplus
}
#endif

#endif
