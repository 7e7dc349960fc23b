#include "ra_ffmpeg.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RA_STRINGIFY_(x) #x
#define RA_STRINGIFY(x) RA_STRINGIFY_(x)

const char *const ra_ffmpeg_libavformat = "libavformat.so." RA_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR);
const char *const ra_ffmpeg_libavcodec = "libavcodec.so." RA_STRINGIFY(LIBAVCODEC_VERSION_MAJOR);
const char *const ra_ffmpeg_libavutil = "libavutil.so." RA_STRINGIFY(LIBAVUTIL_VERSION_MAJOR);
const char *const ra_ffmpeg_libswresample = "libswresample.so." RA_STRINGIFY(LIBSWRESAMPLE_VERSION_MAJOR);

static RA_ENGINE_LOADER(ra_avformat_load, ra_avformat_api, RA_AVFORMAT_FUNCTIONS)
static RA_ENGINE_LOADER(ra_avcodec_load, ra_avcodec_api, RA_AVCODEC_FUNCTIONS)
static RA_ENGINE_LOADER(ra_avutil_load, ra_avutil_api, RA_AVUTIL_FUNCTIONS)
static RA_ENGINE_LOADER(ra_swresample_load, ra_swresample_api, RA_SWRESAMPLE_FUNCTIONS)

int ra_ffmpeg_api_load(const char *directory, ra_ffmpeg_api *api, char *error, size_t error_size) {
    ra_ffmpeg_api table;
    char path[4096];
#define RA_OPEN(name, loader, field)                                                         \
    if (directory) snprintf(path, sizeof path, "%s/%s", directory, name);                   \
    else snprintf(path, sizeof path, "%s", name);                                           \
    if (loader(path, &table.field, error, error_size) != 0) return -1;
    RA_OPEN(ra_ffmpeg_libavutil, ra_avutil_load, util)
    RA_OPEN(ra_ffmpeg_libswresample, ra_swresample_load, resample)
    RA_OPEN(ra_ffmpeg_libavcodec, ra_avcodec_load, codec)
    RA_OPEN(ra_ffmpeg_libavformat, ra_avformat_load, format)
#undef RA_OPEN
    table.util.av_log_set_level(AV_LOG_QUIET);  // a library never prints; errors come back as codes
    *api = table;
    return 0;
}

/// The bytes being read, for the custom I/O callbacks.
typedef struct ra_memory_input {
    const unsigned char *data;
    size_t size;
    size_t position;
} ra_memory_input;

static int ra_memory_read(void *opaque, uint8_t *buffer, int wanted) {
    ra_memory_input *input = opaque;
    size_t left = input->size - input->position;
    if (left == 0) return AVERROR_EOF;
    size_t count = (size_t)wanted < left ? (size_t)wanted : left;
    memcpy(buffer, input->data + input->position, count);
    input->position += count;
    return (int)count;
}

static int64_t ra_memory_seek(void *opaque, int64_t offset, int whence) {
    ra_memory_input *input = opaque;
    int64_t base;
    switch (whence & ~AVSEEK_FORCE) {
    case AVSEEK_SIZE: return (int64_t)input->size;
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = (int64_t)input->position; break;
    case SEEK_END: base = (int64_t)input->size; break;
    default: return -1;
    }
    int64_t target = base + offset;
    if (target < 0 || target > (int64_t)input->size) return -1;
    input->position = (size_t)target;
    return target;
}

/// Growing output of float samples.
typedef struct ra_sample_buffer {
    float *samples;
    size_t count;
    size_t capacity;
} ra_sample_buffer;

static int ra_reserve(ra_sample_buffer *buffer, size_t more) {
    if (buffer->count + more <= buffer->capacity) return 0;
    size_t capacity = buffer->capacity ? buffer->capacity : 16384;
    while (capacity < buffer->count + more) capacity *= 2;
    float *grown = realloc(buffer->samples, capacity * sizeof(float));
    if (!grown) return -1;
    buffer->samples = grown;
    buffer->capacity = capacity;
    return 0;
}

/// Everything one decode allocates, released together.
typedef struct ra_decode {
    const ra_ffmpeg_api *api;
    ra_memory_input input;
    AVIOContext *io;
    AVFormatContext *format;
    AVCodecContext *codec;
    SwrContext *resampler;
    AVPacket *packet;
    AVFrame *frame;
    ra_sample_buffer output;
    size_t max_samples;
    char *error;
    size_t error_size;
} ra_decode;

static int ra_fail(ra_decode *d, const char *what, int code) {
    char reason[256] = "";
    if (code < 0 && d->api->util.av_strerror(code, reason, sizeof reason) != 0) snprintf(reason, sizeof reason, "error %d", code);
    snprintf(d->error, d->error_size, code < 0 ? "%s (%s)" : "%s", what, reason);
    return -1;
}

/// Resamples `frame` (NULL to flush) into the output.
static int ra_convert(ra_decode *d, const AVFrame *frame) {
    int in_count = frame ? frame->nb_samples : 0;
    int room = d->api->resample.swr_get_out_samples(d->resampler, in_count);
    if (room < 0) return ra_fail(d, "the audio could not be resampled", room);
    if (room == 0) return 0;
    if (ra_reserve(&d->output, (size_t)room) != 0) return ra_fail(d, "out of memory decoding the audio", 0);
    uint8_t *out = (uint8_t *)(d->output.samples + d->output.count);
    int converted = d->api->resample.swr_convert(d->resampler, &out, room,
                                                 frame ? (const uint8_t **)frame->extended_data : NULL, in_count);
    if (converted < 0) return ra_fail(d, "the audio could not be resampled", converted);
    d->output.count += (size_t)converted;
    if (d->max_samples > 0 && d->output.count > d->max_samples) return ra_fail(d, "it is longer than the limit on audio length", 0);
    return 0;
}

/// Sends `packet` (NULL to drain) to the decoder and converts every frame it gives back.
static int ra_decode_packet(ra_decode *d, const AVPacket *packet) {
    int status = d->api->codec.avcodec_send_packet(d->codec, packet);
    if (status == AVERROR_INVALIDDATA) return 0;  // a damaged packet: skip it, as players do
    if (status < 0 && status != AVERROR_EOF) return ra_fail(d, "the audio could not be decoded", status);
    for (;;) {
        status = d->api->codec.avcodec_receive_frame(d->codec, d->frame);
        if (status == AVERROR(EAGAIN) || status == AVERROR_EOF) return 0;
        if (status == AVERROR_INVALIDDATA) continue;
        if (status < 0) return ra_fail(d, "the audio could not be decoded", status);
        int converted = ra_convert(d, d->frame);
        if (converted != 0) return converted;
    }
}

static int ra_open(ra_decode *d, int sample_rate) {
    const ra_ffmpeg_api *api = d->api;
    unsigned char *io_buffer = api->util.av_malloc(65536);
    if (!io_buffer) return ra_fail(d, "out of memory decoding the audio", 0);
    d->io = api->format.avio_alloc_context(io_buffer, 65536, 0, &d->input, ra_memory_read, NULL, ra_memory_seek);
    if (!d->io) { api->util.av_freep(&io_buffer); return ra_fail(d, "out of memory decoding the audio", 0); }
    d->format = api->format.avformat_alloc_context();
    if (!d->format) return ra_fail(d, "out of memory decoding the audio", 0);
    d->format->pb = d->io;
    d->format->flags |= AVFMT_FLAG_CUSTOM_IO;
    int status = api->format.avformat_open_input(&d->format, NULL, NULL, NULL);  // frees the context on failure
    if (status < 0) return ra_fail(d, "it is not in an audio format that can be read", status);
    status = api->format.avformat_find_stream_info(d->format, NULL);
    if (status < 0) return ra_fail(d, "its streams could not be read", status);
    const AVCodec *decoder = NULL;
    int stream = api->format.av_find_best_stream(d->format, AVMEDIA_TYPE_AUDIO, -1, -1, &decoder, 0);
    if (stream == AVERROR_STREAM_NOT_FOUND) return ra_fail(d, "it holds no audio stream", 0);
    if (stream == AVERROR_DECODER_NOT_FOUND || !decoder) return ra_fail(d, "its audio codec is not one this FFmpeg decodes", 0);
    if (stream < 0) return ra_fail(d, "its audio stream could not be read", stream);
    d->codec = api->codec.avcodec_alloc_context3(decoder);
    if (!d->codec) return ra_fail(d, "out of memory decoding the audio", 0);
    status = api->codec.avcodec_parameters_to_context(d->codec, d->format->streams[stream]->codecpar);
    if (status >= 0) status = api->codec.avcodec_open2(d->codec, decoder, NULL);
    if (status < 0) return ra_fail(d, "its audio decoder could not be opened", status);
    if (d->codec->sample_rate <= 0 || d->codec->ch_layout.nb_channels <= 0) return ra_fail(d, "its audio stream declares no sample rate or channels", 0);
    AVChannelLayout input_layout = d->codec->ch_layout;
    if (input_layout.order == AV_CHANNEL_ORDER_UNSPEC) api->util.av_channel_layout_default(&input_layout, input_layout.nb_channels);
    AVChannelLayout mono = AV_CHANNEL_LAYOUT_MONO;
    status = api->resample.swr_alloc_set_opts2(&d->resampler, &mono, AV_SAMPLE_FMT_FLT, sample_rate > 0 ? sample_rate : d->codec->sample_rate,
                                               &input_layout, d->codec->sample_fmt, d->codec->sample_rate, 0, NULL);
    // The mono mix is the channels' mean, as the SDK's own WAV reader mixes (FFmpeg's default
    // mix adds the front channels at -3 dB each, louder than any one of them).
    double matrix[64];
    int channels = input_layout.nb_channels;
    if (status >= 0 && channels > 1 && channels <= 64) {
        for (int channel = 0; channel < channels; channel++) matrix[channel] = 1.0 / channels;
        status = api->resample.swr_set_matrix(d->resampler, matrix, channels);
    }
    if (status >= 0) status = api->resample.swr_init(d->resampler);
    if (status < 0) return ra_fail(d, "its audio could not be converted to mono float samples", status);
    d->packet = api->codec.av_packet_alloc();
    d->frame = api->util.av_frame_alloc();
    if (!d->packet || !d->frame) return ra_fail(d, "out of memory decoding the audio", 0);
    return stream;
}

static int ra_run(ra_decode *d, int sample_rate) {
    int stream = ra_open(d, sample_rate);
    if (stream < 0) return -1;
    for (;;) {
        int status = d->api->format.av_read_frame(d->format, d->packet);
        if (status == AVERROR_EOF) break;
        if (status < 0) {
            if (d->output.count > 0) break;  // a truncated file: keep what was decoded
            return ra_fail(d, "it could not be read", status);
        }
        int decoded = d->packet->stream_index == stream ? ra_decode_packet(d, d->packet) : 0;
        d->api->codec.av_packet_unref(d->packet);
        if (decoded != 0) return -1;
    }
    if (ra_decode_packet(d, NULL) != 0 || ra_convert(d, NULL) != 0) return -1;
    if (d->output.count == 0) return ra_fail(d, "it holds no audio", 0);
    return 0;
}

int ra_ffmpeg_decode(const ra_ffmpeg_api *api, const unsigned char *data, size_t size, int sample_rate, size_t max_samples,
                     float **samples, size_t *count, int *rate_out, char *error, size_t error_size) {
    ra_decode d = {.api = api, .input = {data, size, 0}, .max_samples = max_samples, .error = error, .error_size = error_size};
    int result = ra_run(&d, sample_rate);
    if (result == 0) {
        *samples = d.output.samples;
        *count = d.output.count;
        *rate_out = sample_rate > 0 ? sample_rate : d.codec->sample_rate;
    } else {
        free(d.output.samples);
    }
    api->util.av_frame_free(&d.frame);
    api->codec.av_packet_free(&d.packet);
    api->resample.swr_free(&d.resampler);
    api->codec.avcodec_free_context(&d.codec);
    api->format.avformat_close_input(&d.format);
    if (d.io) {
        api->util.av_freep(&d.io->buffer);
        api->format.avio_context_free(&d.io);
    }
    return result;
}
