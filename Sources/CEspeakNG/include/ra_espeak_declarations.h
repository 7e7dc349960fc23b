// The subset of eSpeak NG's C API (speak_lib.h, API revision 12, as in Debian 12's
// libespeak-ng-dev 1.51+dfsg-10+deb12u2) that RunAnywhere calls: synchronous synthesis into a
// callback, and text to IPA phonemes. Declared here, with the same names and types as
// speak_lib.h, so the package builds without the engine installed; the library itself is opened
// at run time (ra_espeak.h). scripts/check-declarations (run by the tests) checks every
// declaration below against the real header.
#ifndef RA_ESPEAK_DECLARATIONS_H
#define RA_ESPEAK_DECLARATIONS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What an espeak_EVENT reports.
typedef enum {
    espeakEVENT_LIST_TERMINATED = 0,
    espeakEVENT_WORD = 1,
    espeakEVENT_SENTENCE = 2,
    espeakEVENT_MARK = 3,
    espeakEVENT_PLAY = 4,
    espeakEVENT_END = 5,
    espeakEVENT_MSG_TERMINATED = 6,
    espeakEVENT_PHONEME = 7,
    espeakEVENT_SAMPLERATE = 8
} espeak_EVENT_TYPE;

/// One event passed to the synthesis callback; `user_data` is the pointer given to espeak_Synth.
typedef struct {
    espeak_EVENT_TYPE type;
    unsigned int unique_identifier;
    int text_position;
    int length;
    int audio_position;
    int sample;
    void *user_data;
    union {
        int number;
        const char *name;
        char string[8];
    } id;
} espeak_EVENT;

/// What espeak_Synth's `position` counts.
typedef enum {
    POS_CHARACTER = 1,
    POS_WORD,
    POS_SENTENCE
} espeak_POSITION_TYPE;

/// Where synthesized audio goes; RunAnywhere uses AUDIO_OUTPUT_SYNCHRONOUS (to the callback,
/// returning when synthesis is done).
typedef enum {
    AUDIO_OUTPUT_PLAYBACK,
    AUDIO_OUTPUT_RETRIEVAL,
    AUDIO_OUTPUT_SYNCHRONOUS,
    AUDIO_OUTPUT_SYNCH_PLAYBACK
} espeak_AUDIO_OUTPUT;

typedef enum {
    EE_OK = 0,
    EE_INTERNAL_ERROR = -1,
    EE_BUFFER_FULL = 1,
    EE_NOT_FOUND = 2
} espeak_ERROR;

/// Starts espeak-ng. Returns the sample rate in Hz, or -1 (EE_INTERNAL_ERROR).
int espeak_Initialize(espeak_AUDIO_OUTPUT output, int buflength, const char *path, int options);

/// Receives `numsamples` 16-bit samples (NULL once synthesis is complete) and the events, a list
/// ended by espeakEVENT_LIST_TERMINATED. Returns 0 to continue, 1 to abort.
typedef int (t_espeak_callback)(short *, int, espeak_EVENT *);

void espeak_SetSynthCallback(t_espeak_callback *SynthCallback);

/// espeak_Synth's `flags`: the text's encoding.
#define espeakCHARS_UTF8 1

/// Synthesizes `text` (`size` bytes, its terminating zero included) through the callback.
espeak_ERROR espeak_Synth(const void *text, size_t size, unsigned int position,
                          espeak_POSITION_TYPE position_type, unsigned int end_position,
                          unsigned int flags, unsigned int *unique_identifier, void *user_data);

/// The parameters espeak_SetParameter sets.
typedef enum {
    espeakSILENCE = 0,
    espeakRATE = 1,     ///< Words per minute, 80 to 450.
    espeakVOLUME = 2,   ///< 0 to 200 or more; 100 is normal.
    espeakPITCH = 3,    ///< 0 to 100; 50 is normal.
    espeakRANGE = 4,
    espeakPUNCTUATION = 5,
    espeakCAPITALS = 6,
    espeakWORDGAP = 7,
    espeakOPTIONS = 8,
    espeakINTONATION = 9,
    espeakRESERVED1 = 10,
    espeakRESERVED2 = 11,
    espeakEMPHASIS,
    espeakLINELENGTH,
    espeakVOICETYPE,
    N_SPEECH_PARAM
} espeak_PARAMETER;

/// Sets `parameter` to `value` (`relative` 0), or changes it by `value` (`relative` 1).
espeak_ERROR espeak_SetParameter(espeak_PARAMETER parameter, int value, int relative);

/// espeak_TextToPhonemes's `phonememode`: IPA phoneme names.
#define espeakPHONEMES_IPA 0x02

/// The phonemes of the clause `*textptr` starts with; advances `*textptr` past it, or sets it to
/// NULL at the end of the text. Select a voice first.
const char *espeak_TextToPhonemes(const void **textptr, int textmode, int phonememode);

/// Selects the voice named `name` (UTF-8).
espeak_ERROR espeak_SetVoiceByName(const char *name);

#ifdef __cplusplus
}
#endif

#endif
