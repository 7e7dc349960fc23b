internal import CEspeakNG
import Foundation
import RunAnywhere
import Synchronization

/// libespeak-ng, opened once per process. espeak-ng keeps global state and is not thread-safe,
/// so every call goes through ``withLock(_:)``.
final class EspeakEngine: Sendable {
    /// The function table: C function pointers that never change after loading.
    let api: ra_espeak_api
    /// The library file.
    let path: String
    /// The sample rate of espeak-ng's own voices.
    let sampleRate: Int
    private let lock = Mutex(())

    private init(api: ra_espeak_api, path: String, sampleRate: Int) {
        self.api = api
        self.path = path
        self.sampleRate = sampleRate
    }

    private static let libraries = EngineLibraryCache<EspeakEngine>(
        engine: "eSpeak NG", hint: "apt-get install libespeak-ng1 espeak-ng-data"
    )

    /// `$RUNANYWHERE_ESPEAK_LIB`, then the engines cache, then the system's libespeak-ng.so.1.
    static func candidatePaths() -> [String] {
        EngineLibraryLocator.candidates(
            environmentVariable: "RUNANYWHERE_ESPEAK_LIB", engine: "espeak-ng", fileName: "libespeak-ng", systemName: "libespeak-ng.so.1")
    }

    /// Opens the first library that exists among `candidates` and starts espeak-ng (cached per
    /// process).
    static func load(candidates: [String] = candidatePaths()) throws -> EspeakEngine {
        try libraries.library(candidates: candidates, load: ra_espeak_api_load) { api, path in
            let rate = api.espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nil, 0)
            guard rate > 0 else {
                throw SDKError(.frameworkNotAvailable, "eSpeak NG could not start (its voice data, espeak-ng-data, is missing?)")
            }
            api.espeak_SetSynthCallback { wav, count, events in
                guard let wav, count > 0, let box = events?.pointee.user_data else { return 0 }
                let collector = Unmanaged<SampleCollector>.fromOpaque(box).takeUnretainedValue()
                collector.samples.append(contentsOf: UnsafeBufferPointer(start: wav, count: Int(count)).lazy.map { Float($0) / 32768 })
                return collector.cancellation.isCancelled ? 1 : 0
            }
            return EspeakEngine(api: api, path: path, sampleRate: Int(rate))
        }
    }

    /// Runs `body` while no other thread uses espeak-ng.
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        try lock.withLock { _ in try body() }
    }

    /// Selects a voice by name ("en-us", "de", …).
    func setVoice(_ name: String) throws {
        guard api.espeak_SetVoiceByName(name) == EE_OK else {
            throw SDKError(.invalidInput, "eSpeak NG has no voice '\(name)'").naming("voice")
        }
    }
}

/// Receives synthesized samples from espeak-ng's callback during one `espeak_Synth` call.
/// `@unchecked Sendable`: touched only by the thread that holds the engine lock.
final class SampleCollector: @unchecked Sendable {
    var samples: [Float] = []
    let cancellation: CancellationFlag

    init(cancellation: CancellationFlag) { self.cancellation = cancellation }
}
