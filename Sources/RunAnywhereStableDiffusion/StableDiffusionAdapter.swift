import Foundation
import Logging
import RunAnywhere

/// Image generation on stable-diffusion.cpp, opened at run time from the engines cache that
/// scripts/setup fills (or `$RUNANYWHERE_SD_LIB`).
public struct StableDiffusionAdapter: FrameworkAdapter {
    /// ``RunAnywhere/InferenceFramework/stableDiffusionCpp``.
    public let framework = InferenceFramework.stableDiffusionCpp
    /// Text to image.
    public let supportedModalities: Set<FrameworkModality> = [.textToImage]
    private let libraryCandidates: [String]
    private let logger: Logger
    /// What the machine offers: the default thread count.
    private var hardware: any HardwareDetector = SystemHardwareDetector()

    /// Creates the adapter; stable-diffusion.cpp's own log goes to `logger`.
    public init(
        libraryPath: String? = nil,
        logger: Logger = Logger(label: "runanywhere.stablediffusion", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.libraryCandidates = libraryPath.map { [$0] } ?? StableDiffusionLibrary.candidatePaths()
        self.logger = logger
    }

    /// This adapter with `hardwareDetector`'s default thread count.
    public func using(hardwareDetector: any HardwareDetector) -> any FrameworkAdapter {
        var adapter = self
        adapter.hardware = hardwareDetector
        return adapter
    }

    /// Available when libstable-diffusion opens and has every function the SDK calls; the detail
    /// names the library and its compute backends.
    public func availability() -> FrameworkAvailability {
        do {
            let library = try StableDiffusionLibrary.load(candidates: libraryCandidates, logger: logger)
            return .available(detail: "\(library.path); backends: \(library.backends.joined(separator: ", "))")
        } catch {
            return .unavailable(reason: (error as? SDKError)?.message ?? "\(error)")
        }
    }

    /// The weights of every file of the model, plus a working margin; each generation's own
    /// buffers are checked against the memory free when it starts (``RunAnywhere/DiffusionService/workingMemory(width:height:)``).
    public func estimateMemoryUsage(for model: ModelInfo) -> Int64 {
        let files = (try? StableDiffusionFiles(model: model))?.all ?? []
        let size = files.isEmpty ? model.primaryFileSize : files.reduce(0) { $0 + StableDiffusionFiles.size(of: $1) }
        return size + size / 10 + (64 << 20)
    }

    /// Loads a diffusion model: one file, or a folder whose files are told apart by name.
    public func loadDiffusionModel(_ model: ModelInfo, configuration: DiffusionConfiguration, logger: Logger) async throws
        -> any DiffusionService
    {
        let (candidates, engineLogger) = (libraryCandidates, self.logger)
        let files = try StableDiffusionFiles(model: model)
        let threads = configuration.threads ?? hardware.profile(accelerators: []).defaultThreads
        return try await runBlocking {
            try StableDiffusionService(
                library: StableDiffusionLibrary.load(candidates: candidates, logger: engineLogger), files: files,
                configuration: configuration, threads: threads
            )
        }
    }
}
