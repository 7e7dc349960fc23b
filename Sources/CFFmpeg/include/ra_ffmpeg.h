// Tables of the FFmpeg functions RunAnywhere calls to read compressed audio (libavformat,
// libavcodec, libswresample, libavutil), filled by dlopen/dlsym (see ra_engine.h), and the
// decode loop that uses them. The headers are Debian's libav*-dev, installed by scripts/setup.
#ifndef RA_FFMPEG_H
#define RA_FFMPEG_H

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libswresample/swresample.h>
#include "ra_engine.h"
#include <stddef.h>

#define RA_AVFORMAT_FUNCTIONS(X) \
    X(avformat_alloc_context)    \
    X(avformat_open_input)       \
    X(avformat_find_stream_info) \
    X(av_find_best_stream)       \
    X(av_read_frame)             \
    X(avformat_close_input)      \
    X(avio_alloc_context)        \
    X(avio_context_free)

#define RA_AVCODEC_FUNCTIONS(X)        \
    X(avcodec_alloc_context3)          \
    X(avcodec_parameters_to_context)   \
    X(avcodec_open2)                   \
    X(avcodec_send_packet)             \
    X(avcodec_receive_frame)           \
    X(avcodec_free_context)            \
    X(av_packet_alloc)                 \
    X(av_packet_free)                  \
    X(av_packet_unref)

#define RA_AVUTIL_FUNCTIONS(X)    \
    X(av_frame_alloc)             \
    X(av_frame_free)              \
    X(av_malloc)                  \
    X(av_freep)                   \
    X(av_strerror)                \
    X(av_log_set_level)           \
    X(av_channel_layout_default)  \

#define RA_SWRESAMPLE_FUNCTIONS(X) \
    X(swr_alloc_set_opts2)         \
    X(swr_set_matrix)              \
    X(swr_init)                    \
    X(swr_convert)                 \
    X(swr_get_out_samples)         \
    X(swr_free)

/// Function pointers into one dlopen'ed libavformat.
typedef struct ra_avformat_api { RA_AVFORMAT_FUNCTIONS(RA_ENGINE_FIELD) } ra_avformat_api;
/// Function pointers into one dlopen'ed libavcodec.
typedef struct ra_avcodec_api { RA_AVCODEC_FUNCTIONS(RA_ENGINE_FIELD) } ra_avcodec_api;
/// Function pointers into one dlopen'ed libavutil.
typedef struct ra_avutil_api { RA_AVUTIL_FUNCTIONS(RA_ENGINE_FIELD) } ra_avutil_api;
/// Function pointers into one dlopen'ed libswresample.
typedef struct ra_swresample_api { RA_SWRESAMPLE_FUNCTIONS(RA_ENGINE_FIELD) } ra_swresample_api;

/// The four libraries a decode needs.
typedef struct ra_ffmpeg_api {
    ra_avformat_api format;
    ra_avcodec_api codec;
    ra_avutil_api util;
    ra_swresample_api resample;
} ra_ffmpeg_api;

/// The library file names (sonames) these headers were written for, e.g. "libavformat.so.59".
extern const char * _Nonnull const ra_ffmpeg_libavformat;
extern const char * _Nonnull const ra_ffmpeg_libavcodec;
extern const char * _Nonnull const ra_ffmpeg_libavutil;
extern const char * _Nonnull const ra_ffmpeg_libswresample;

/// Opens each library from the file names above, in `directory` when it is not NULL (else where
/// the dynamic linker looks), fills `api` and silences FFmpeg's own logging. Returns 0 on
/// success; otherwise writes a message to `error` and returns -1.
int ra_ffmpeg_api_load(const char * _Nullable directory, ra_ffmpeg_api * _Nonnull api, char * _Nonnull error, size_t error_size);

/// Decodes the first audio stream of the file held in `data` (any container and codec FFmpeg
/// reads) to mono 32-bit float samples at `sample_rate` (0: the stream's own rate), failing once
/// there are more than `max_samples` of them (0: no limit). On success
/// returns 0 with a buffer of `*count` samples in `*samples`, to be released with free(), and the
/// rate in `*rate_out`; otherwise writes a message to `error` and returns -1.
int ra_ffmpeg_decode(const ra_ffmpeg_api * _Nonnull api, const unsigned char * _Nonnull data, size_t size,
                     int sample_rate, size_t max_samples, float * _Nullable * _Nonnull samples, size_t * _Nonnull count,
                     int * _Nonnull rate_out, char * _Nonnull error, size_t error_size);

#endif
