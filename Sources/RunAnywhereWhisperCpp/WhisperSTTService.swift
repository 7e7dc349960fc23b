internal import CWhisperCpp
import Foundation
import RunAnywhere

/// A whisper.cpp model, transcribing 16 kHz mono audio.
///
/// `@unchecked Sendable`: the context is only used in the model's turn (the runtime's
/// `inTurn(on:)`), one transcription at a time; it is freed once, in `deinit`.
final class WhisperSTTService: STTService, @unchecked Sendable {
    private let library: WhisperLibrary
    private let context: OpaquePointer
    private let threads: Int

    init(library: WhisperLibrary, path: String, threads: Int) throws {
        var params = library.api.whisper_context_default_params()
        params.use_gpu = false
        // With flash attention, whisper.cpp's decoder reads the audio's cross-attention cache padded
        // to 256 positions and unmasked: with a clip's shorter window (``audioContext(samples:)``)
        // the padding holds what earlier transcriptions left there, and one request's words
        // changed with what another transcribed before. Without it, exactly the window is read.
        params.flash_attn = false
        guard let context = library.api.whisper_init_from_file_with_params(path, params) else {
            throw SDKError(.modelLoadFailed, library.logSink.explain("whisper.cpp could not load \(path)"))
        }
        self.library = library
        self.context = context
        self.threads = threads
    }

    deinit {
        library.api.whisper_free(context)
        ra_engine_release_free_memory()  // give the freed buffers back to the system
    }

    /// The encoder's window for `samples` of 16 kHz audio transcribed without timestamps: whisper
    /// reads 30 s (1,500 frames of 20 ms) whatever the audio's length, and most of an encoding of
    /// a spoken question is of silence; a short clip gets a window twice its length and 2.5 s more
    /// (fitted tighter, whisper.cpp repeats itself at the window's end), which encodes it about
    /// twice as fast with the same words. 0 keeps the whole window: for audio of about 14 s or more.
    static func audioContext(samples: Int) -> Int32 {
        let frames = (samples + 319) / 320
        let window = 2 * frames + 128
        return window < 1_500 ? Int32(window) : 0
    }

    func transcribe(
        _ audio: AudioSamples, options: STTOptions, cancellation: CancellationFlag,
        onSegment: @escaping @Sendable (TranscriptionSegment) -> Void
    ) throws -> (segments: [TranscriptionSegment], language: String?) {
        let api = library.api
        let count = try Self.sampleCount(audio)
        // "auto" (or nothing) asks whisper.cpp to detect the language; for a name it does not know,
        // it would prompt with its start token in the language's place.
        let spoken = options.language.lowercased()
        let detect = options.detectLanguage || spoken.isEmpty || spoken == "auto"
        if !detect, !library.languages.contains(spoken) {
            throw SDKError(
                .invalidInput,
                "whisper.cpp knows no language '\(options.language)'; name it by its ISO 639-1 code (en, fr, de…) or its English name, or detect it (auto)"
            ).naming("language")
        }
        let multilingual = api.whisper_is_multilingual(context) != 0
        if !detect, !multilingual, !["en", "english"].contains(spoken) {
            throw SDKError(
                .invalidInput,
                "This Whisper model is English-only (a .en model): it cannot transcribe '\(options.language)'; use a multilingual Whisper model, or detect the language (auto)"
            ).naming("language")
        }
        if options.translateToEnglish, !multilingual {
            throw SDKError(
                .modelIncompatible,
                "This Whisper model is English-only (a .en model): it cannot translate; use a multilingual Whisper model (\(SDKConstants.Models.multilingualSpeechRecognitionModelID))"
            )
        }
        var params = api.whisper_full_default_params(WHISPER_SAMPLING_GREEDY)
        params.translate = options.translateToEnglish
        params.n_threads = Int32(options.threads ?? threads)  // both checked to be 1...512 (ModelLoadOptions.checkThreads)
        params.print_progress = false
        params.print_realtime = false
        params.print_timestamps = false
        params.print_special = false
        params.no_timestamps = !options.enableTimestamps
        params.suppress_blank = true
        params.temperature = options.temperature
        // Fitted to the clip, whisper would place its timestamps in the window, not in the audio.
        params.audio_ctx = options.enableTimestamps ? 0 : Self.audioContext(samples: Int(count))
        params.abort_callback = { data in
            guard let data else { return false }
            return Unmanaged<CancellationFlag>.fromOpaque(data).takeUnretainedValue().isCancelled
        }
        params.abort_callback_user_data = Unmanaged.passUnretained(cancellation).toOpaque()
        // whisper.cpp calls back on this thread, inside whisper_full, with the count of segments it just ended.
        let duration = Double(count) / Double(audio.sampleRate)  // 16 kHz, as the runtime resampled it
        let newSegments = NewSegments { [self] count in
            let total = api.whisper_full_n_segments(context)
            for index in max(0, total - count)..<total { segment(index, within: duration).map(onSegment) }
        }
        params.new_segment_callback = { _, _, count, data in
            guard let data else { return }
            Unmanaged<NewSegments>.fromOpaque(data).takeUnretainedValue().report(count)
        }
        params.new_segment_callback_user_data = Unmanaged.passUnretained(newSegments).toOpaque()
        let language = detect && multilingual ? "auto" : (multilingual ? spoken : "en")
        let mark = library.logSink.mark()
        let status = language.withCString { code in
            params.language = code
            params.detect_language = false
            return withOptionalCString(options.prompt) { prompt in
                params.initial_prompt = prompt
                return audio.samples.withUnsafeBufferPointer { api.whisper_full(context, params, $0.baseAddress, count) }
            }
        }
        withExtendedLifetime(newSegments) {}
        if cancellation.isCancelled { throw CancellationError() }
        guard status == 0 else {
            throw SDKError(
                .generationFailed, library.logSink.explain("whisper.cpp could not transcribe the audio (code \(status))", since: mark))
        }
        let segments = (0..<api.whisper_full_n_segments(context)).compactMap { segment($0, within: duration) }
        let detected = api.whisper_lang_str(api.whisper_full_lang_id(context)).map { String(cString: $0) }
        return (segments, detected ?? (multilingual ? nil : "en"))
    }

    /// Segment `index` of the last transcription: its text, times (whisper.cpp counts in
    /// centiseconds, within its 30 s window: a segment of a shorter clip may end past the audio,
    /// so it is cut at `duration`, the audio's seconds, and one that starts past it, written over
    /// the window's padding, is none), the mean probability of its text tokens, its tokens and how
    /// likely it is no speech.
    private func segment(_ index: Int32, within duration: Double) -> TranscriptionSegment? {
        let api = library.api
        let eot = api.whisper_token_eot(context)
        let start = Double(api.whisper_full_get_segment_t0(context, index)) / 100
        guard start < duration else { return nil }
        let text = api.whisper_full_get_segment_text(context, index).map { String(cString: $0) } ?? ""
        let positions = 0..<api.whisper_full_n_tokens(context, index)
        let tokens = positions.map { api.whisper_full_get_token_id(context, index, $0) }
        let probabilities = positions.filter { tokens[Int($0)] < eot }.map { api.whisper_full_get_token_p(context, index, $0) }
        return TranscriptionSegment(
            text: text, startTime: start,
            endTime: min(Double(api.whisper_full_get_segment_t1(context, index)) / 100, duration),
            confidence: probabilities.isEmpty ? 0 : probabilities.reduce(0, +) / Float(probabilities.count), tokens: tokens,
            noSpeechProbability: api.whisper_full_get_segment_no_speech_prob(context, index)
        )
    }

    /// The number of samples whisper.cpp takes as a C int; longer audio (37 hours at 16 kHz) is refused.
    static func sampleCount(_ audio: AudioSamples) throws -> Int32 {
        guard let count = Int32(exactly: audio.samples.count) else {
            throw SDKError(
                .invalidInput, "The audio holds \(audio.samples.count) samples; whisper.cpp takes at most \(Int32.max) (cut it into parts)")
        }
        return count
    }
}

/// What whisper.cpp's new-segment callback reaches through its user data: the transcription's
/// handler of the count of segments just ended.
private final class NewSegments {
    let report: (Int32) -> Void
    init(_ report: @escaping (Int32) -> Void) { self.report = report }
}

/// Silero voice activity detection through whisper.cpp.
///
/// `@unchecked Sendable`: used only in the model's turn (the runtime's `inTurn(on:)`); freed once in `deinit`.
final class WhisperVADService: VADProbabilities, @unchecked Sendable {
    private let library: WhisperLibrary
    private let context: OpaquePointer

    init(library: WhisperLibrary, path: String, threads: Int) throws {
        var params = library.api.whisper_vad_default_context_params()
        params.n_threads = Int32(threads)  // 1...512: the adapter validates its ModelLoadOptions
        params.use_gpu = false
        guard let context = library.api.whisper_vad_init_from_file_with_params(path, params) else {
            throw SDKError(.modelLoadFailed, library.logSink.explain("whisper.cpp could not load the voice activity model \(path)"))
        }
        self.library = library
        self.context = context
    }

    deinit { library.api.whisper_vad_free(context) }

    func detectSpeech(_ audio: AudioSamples, options: VADOptions) throws -> [SpeechSegment] {
        let api = library.api
        let count = try WhisperSTTService.sampleCount(audio)
        var params = api.whisper_vad_default_params()
        params.threshold = options.threshold
        // Durations beyond what C's int holds (24 days of milliseconds) mean "longer than any audio".
        params.min_speech_duration_ms = Int32(clamping: options.minSpeechDurationMs)
        params.min_silence_duration_ms = Int32(clamping: options.minSilenceDurationMs)
        params.speech_pad_ms = Int32(clamping: options.speechPadMs)
        let mark = library.logSink.mark()
        guard
            let found = audio.samples.withUnsafeBufferPointer({
                api.whisper_vad_segments_from_samples(context, params, $0.baseAddress, count)
            })
        else {
            throw SDKError(.generationFailed, library.logSink.explain("whisper.cpp could not run voice activity detection", since: mark))
        }
        defer { api.whisper_vad_free_segments(found) }
        return (0..<api.whisper_vad_segments_n_segments(found)).map { index in
            // whisper.cpp reports VAD segments in centiseconds.
            SpeechSegment(
                start: Double(api.whisper_vad_segments_get_segment_t0(found, index)) / 100,
                end: Double(api.whisper_vad_segments_get_segment_t1(found, index)) / 100)
        }
    }

    func speechProbabilities(_ audio: AudioSamples) throws -> [Float] {
        let api = library.api
        let count = try WhisperSTTService.sampleCount(audio)
        let mark = library.logSink.mark()
        guard audio.samples.withUnsafeBufferPointer({ api.whisper_vad_detect_speech(context, $0.baseAddress, count) }),
            let probabilities = api.whisper_vad_probs(context)
        else {
            throw SDKError(.generationFailed, library.logSink.explain("whisper.cpp could not run voice activity detection", since: mark))
        }
        return Array(UnsafeBufferPointer(start: probabilities, count: Int(api.whisper_vad_n_probs(context))))
    }
}

/// Calls `body` with `text` as a C string, or with nil when there is no text.
private func withOptionalCString<T>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> T) -> T {
    guard let text, !text.isEmpty else { return body(nil) }
    return text.withCString { body($0) }
}
