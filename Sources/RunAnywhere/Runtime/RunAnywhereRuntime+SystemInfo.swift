import Foundation

/// The device, its hardware, what each framework can do here, and where the SDK keeps its
/// files: what `runanywhere info` prints and the web app's Settings page shows.
public struct SystemInfo: Codable, Sendable, Equatable {
    /// The SDK's version.
    public let sdkVersion: String
    /// The machine's host name.
    public let hostname: String
    /// CPU, memory, SIMD features and GPU.
    public let hardware: HardwareProfile
    /// Every known framework with its availability.
    public let frameworks: [FrameworkStatus]
    /// Every kind of work with the frameworks that do it here, or why none does.
    public let modalities: [ModalityStatus]
    /// The models folder.
    public let modelsDirectory: String
    /// The app data folder (conversations, settings, benchmark runs).
    public let dataDirectory: String
    /// The default language model's id.
    public let defaultModel: String
    /// Whether the default language model is installed.
    public let defaultModelInstalled: Bool
}

extension RunAnywhereRuntime {
    /// The device, its hardware, the frameworks and kinds of work available here, and the
    /// SDK's folders.
    public nonisolated func systemInfo() throws -> SystemInfo {
        let defaultModel = try model(id: RunAnywhere.defaultModelID)
        return SystemInfo(
            sdkVersion: RunAnywhere.version, hostname: ProcessInfo.processInfo.hostName, hardware: HardwareProfile.current(),
            frameworks: frameworks.statuses(), modalities: frameworks.modalityStatuses(),
            modelsDirectory: configuration.modelsDirectory.path, dataDirectory: configuration.dataDirectory.path,
            defaultModel: defaultModel.id, defaultModelInstalled: defaultModel.isDownloaded
        )
    }
}
