internal import CEspeakNG
import Foundation
import RunAnywhere
import Synchronization

/// libespeak-ng, opened once per process. espeak-ng keeps global state and is not thread-safe,
/// so every call goes through ``withLock(_:)``.
final class EspeakEngine: Sendable {
    /// The function table: C function pointers that never change after loading.
    let api: ra_espeak_api
    /// The sample rate of espeak-ng's own voices.
    let sampleRate: Int
    private let lock = Mutex(())

    private init(api: ra_espeak_api, sampleRate: Int) {
        self.api = api
        self.sampleRate = sampleRate
    }

    private static let shared = Mutex<Result<EspeakEngine, SDKError>?>(nil)

    /// `$RUNANYWHERE_ESPEAK_LIB`, else the system's libespeak-ng.so.1.
    static func load() throws -> EspeakEngine {
        try shared.withLock { cached in
            if let cached { return cached }
            let result = Result { try open(ProcessInfo.processInfo.environment["RUNANYWHERE_ESPEAK_LIB"] ?? "libespeak-ng.so.1") }
                .mapError { $0 as? SDKError ?? SDKError(.frameworkNotAvailable, "\($0)") }
            cached = result
            return result
        }.get()
    }

    private static func open(_ path: String) throws -> EspeakEngine {
        let table = UnsafeMutablePointer<ra_espeak_api>.allocate(capacity: 1)
        defer { table.deallocate() }
        var message = [CChar](repeating: 0, count: 1024)
        guard ra_espeak_api_load(path, table, &message, message.count) == 0 else {
            let detail = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw SDKError(.frameworkNotAvailable, "eSpeak NG is not installed (\(detail)); run scripts/setup, or apt-get install libespeak-ng1 espeak-ng-data")
        }
        let api = table.pointee
        let rate = api.espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nil, 0)
        guard rate > 0 else { throw SDKError(.frameworkNotAvailable, "eSpeak NG could not start (its voice data, espeak-ng-data, is missing?)") }
        api.espeak_SetSynthCallback { wav, count, events in
            guard let wav, count > 0, let box = events?.pointee.user_data else { return 0 }
            let collector = Unmanaged<SampleCollector>.fromOpaque(box).takeUnretainedValue()
            collector.samples += UnsafeBufferPointer(start: wav, count: Int(count)).map { Float($0) / 32768 }
            return collector.cancellation.isCancelled ? 1 : 0
        }
        return EspeakEngine(api: api, sampleRate: Int(rate))
    }

    /// Runs `body` while no other thread uses espeak-ng.
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        try lock.withLock { _ in try body() }
    }

    /// Selects a voice by name ("en-us", "de", …).
    func setVoice(_ name: String) throws {
        guard api.espeak_SetVoiceByName(name) == EE_OK else {
            throw SDKError(.invalidInput, "eSpeak NG has no voice '\(name)'")
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
