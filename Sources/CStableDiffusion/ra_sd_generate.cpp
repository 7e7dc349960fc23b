// Cancellable generation around stable-diffusion.cpp's generate_image (see ra_sd.h).
#include "ra_sd.h"

#include <cstdio>
#include <exception>
#include <mutex>

namespace {

/// Thrown from the progress callback to leave generate_image between two steps.
struct StopRequested {};

/// The generation in progress, if any; read only by the progress callback, which sd.cpp calls
/// on the generating thread.
struct Run {
    ra_sd_step_fn on_step;
    void *user;
    bool stopped;
};

std::mutex engine;       // one load or generation at a time: the callback below is process-wide
Run *current = nullptr;  // guarded by `engine`

void progress(int step, int steps, float seconds_per_step, void *) {
    Run *run = current;
    if (run == nullptr) return;  // loading: tensors read so far, not wanted
    if (!run->on_step(step, steps, seconds_per_step, run->user)) {
        run->stopped = true;
        throw StopRequested{};
    }
}

}  // namespace

/// Writes what an exception caught from sd.cpp says to `error`.
static void describe(std::exception_ptr caught, char *error, size_t error_size) {
    try {
        std::rethrow_exception(caught);
    } catch (const std::exception &failure) {
        std::snprintf(error, error_size, "%s", failure.what());
    } catch (...) {
        std::snprintf(error, error_size, "an unknown C++ exception");
    }
}

sd_ctx_t *ra_sd_new_ctx(const ra_sd_api *api, const sd_ctx_params_t *params, char *error, size_t error_size) {
    std::lock_guard<std::mutex> hold(engine);
    api->sd_set_progress_callback(progress, nullptr);  // never null: sd.cpp would print to stdout
    try {
        return api->new_sd_ctx(params);
    } catch (...) {
        describe(std::current_exception(), error, error_size);
        return nullptr;
    }
}

sd_image_t *ra_sd_generate(const ra_sd_api *api, sd_ctx_t *ctx, const sd_img_gen_params_t *params, ra_sd_step_fn on_step,
                           void *user, bool *stopped, char *error, size_t error_size) {
    std::lock_guard<std::mutex> hold(engine);
    Run run{on_step, user, false};
    api->sd_set_progress_callback(progress, nullptr);
    current = &run;
    sd_image_t *images = nullptr;
    try {
        images = api->generate_image(ctx, params);
    } catch (const StopRequested &) {
    } catch (...) {
        describe(std::current_exception(), error, error_size);
    }
    current = nullptr;
    *stopped = run.stopped;
    return images;
}
