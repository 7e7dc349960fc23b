import Synchronization

/// A framework and whether it can run here.
public struct FrameworkStatus: Sendable, Codable, Equatable {
    /// The framework.
    public let framework: InferenceFramework
    /// Its display name.
    public let displayName: String
    /// The kinds of work it does.
    public let modalities: [FrameworkModality]
    /// Whether it can run, and why not.
    public let availability: FrameworkAvailability
}

/// A kind of work and whether this build can do it here.
package struct ModalityStatus: Sendable, Codable, Equatable {
    /// The kind of work.
    package let modality: FrameworkModality
    /// The available frameworks that do it.
    package let frameworks: [InferenceFramework]
    /// Why none can, when none can: each framework known to do it, with its reason.
    package let reason: String?
}

/// The engines plugged into the SDK, the hardware detector they read the machine through, and
/// the choice of an engine for a model.
package final class FrameworkAdapterRegistry: Sendable {
    private let adapters = Mutex<[InferenceFramework: any FrameworkAdapter]>([:])
    private let decoder = Mutex<(any AudioFileDecoder)?>(nil)
    private let pdf = Mutex<(any PDFTextReader)?>(nil)
    /// Taken before `adapters` wherever both are, so that every adapter has the current detector.
    private let detector: Mutex<any HardwareDetector>

    /// Creates an empty registry whose engines read the machine through `hardwareDetector`.
    package init(hardwareDetector: any HardwareDetector = SystemHardwareDetector()) {
        detector = Mutex(hardwareDetector)
    }

    /// Adds an adapter, replacing any earlier one for the same framework; it reads the machine
    /// through the registry's `hardwareDetector`.
    package func register(_ adapter: any FrameworkAdapter) {
        detector.withLock { detector in
            adapters.withLock { $0[adapter.framework] = adapter.using(hardwareDetector: detector) }
        }
    }

    /// Replaces the hardware detector, for the adapters registered already and those to come.
    package func register(hardwareDetector: any HardwareDetector) {
        detector.withLock { detector in
            detector = hardwareDetector
            adapters.withLock { $0 = $0.mapValues { $0.using(hardwareDetector: hardwareDetector) } }
        }
    }

    /// What the runtime and the engines read the machine through (`SystemHardwareDetector`
    /// unless one is registered).
    package var hardwareDetector: any HardwareDetector { detector.withLock { $0 } }

    /// Sets the reader of compressed audio files (MP3, FLAC, Ogg, WebM…), replacing any earlier one.
    package func register(audioDecoder: any AudioFileDecoder) {
        decoder.withLock { $0 = audioDecoder }
    }

    /// The reader of compressed audio files, if one is registered.
    package var audioDecoder: (any AudioFileDecoder)? { decoder.withLock { $0 } }

    /// Sets the reader of PDF files' text that RAG sessions use, replacing any earlier one.
    package func register(pdfReader: any PDFTextReader) {
        pdf.withLock { $0 = pdfReader }
    }

    /// The reader of PDF files' text, if one is registered.
    package var pdfReader: (any PDFTextReader)? { pdf.withLock { $0 } }

    /// The adapter registered for `framework`.
    package func adapter(for framework: InferenceFramework) -> (any FrameworkAdapter)? {
        adapters.withLock { $0[framework] }
    }

    /// Every known framework with its availability: registered adapters report their own;
    /// Apple-only frameworks say they cannot run on Linux; the rest say no adapter is installed.
    package func statuses() -> [FrameworkStatus] {
        let registered = adapters.withLock { $0 }
        return InferenceFramework.allCases.filter { ![.builtIn, .none, .unknown].contains($0) }.map { framework in
            let availability: FrameworkAvailability
            if let adapter = registered[framework] {
                availability = adapter.availability()
            } else if let restriction = framework.platformRestriction {
                availability = .unavailable(reason: restriction)
            } else {
                availability = .unavailable(reason: "no \(framework.displayName) adapter is registered in this build")
            }
            let modalities = (registered[framework]?.supportedModalities ?? framework.modalities).sorted { $0.rawValue < $1.rawValue }
            return FrameworkStatus(
                framework: framework, displayName: framework.displayName, modalities: modalities, availability: availability)
        }
    }

    /// The accelerators every registered adapter reports, in the order of the frameworks.
    package func accelerators() -> [Accelerator] {
        let registered = adapters.withLock { $0 }
        return InferenceFramework.allCases.compactMap { registered[$0] }.flatMap { $0.accelerators() }
    }

    /// The available frameworks that do `modality`.
    package func frameworks(for modality: FrameworkModality) -> [InferenceFramework] {
        statuses().filter { $0.availability.isAvailable && $0.modalities.contains(modality) }.map(\.framework)
    }

    /// Every kind of work, with the available frameworks that do it, or why none does, from
    /// the frameworks' ``statuses()``.
    package static func modalityStatuses(of statuses: [FrameworkStatus]) -> [ModalityStatus] {
        FrameworkModality.allCases.map { modality in
            let claiming = statuses.filter { $0.modalities.contains(modality) }
            let available = claiming.filter(\.availability.isAvailable).map(\.framework)
            guard available.isEmpty else { return ModalityStatus(modality: modality, frameworks: available, reason: nil) }
            let reasons = claiming.compactMap { status -> String? in
                if case .unavailable(let reason) = status.availability { return reason }
                return nil
            }
            let reason =
                "No framework in this build does \(modality.rawValue) here"
                + (reasons.isEmpty ? "" : ": " + reasons.joined(separator: "; "))
            return ModalityStatus(modality: modality, frameworks: [], reason: reason)
        }
    }

    /// Whether `framework` does `modality`.
    package func frameworkSupports(_ framework: InferenceFramework, modality: FrameworkModality) -> Bool {
        (adapter(for: framework)?.supportedModalities ?? framework.modalities).contains(modality)
    }

    /// The best available adapter for `model`: it must handle the model and be available; the
    /// preferred framework wins, then the model's own framework, then the one whose memory
    /// estimate fits best within `availableMemory`.
    package func bestAdapter(for model: ModelInfo, preferred: InferenceFramework? = nil, availableMemory: Int64) -> (any FrameworkAdapter)?
    {
        let candidates = adapters.withLock { Array($0.values) }.filter { $0.canHandle(model: model) && $0.availability().isAvailable }
        func score(_ adapter: any FrameworkAdapter) -> Double {
            var score = 0.0
            if adapter.framework == preferred { score += 100 }
            if adapter.framework == model.framework { score += 50 }
            let memory = adapter.estimateMemoryUsage(for: model)
            if memory <= availableMemory { score += 10 * (1 - Double(memory) / Double(max(availableMemory, 1))) }
            return score
        }
        return candidates.max { score($0) < score($1) }
    }
}
