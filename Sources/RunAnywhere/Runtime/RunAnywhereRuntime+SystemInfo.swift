import Foundation

/// The device, its hardware, what each framework can do here, and where the SDK keeps its
/// files: what `runanywhere info` prints and the web app's Settings page shows.
public struct SystemInfo: Codable, Sendable, Equatable {
    /// The SDK's version.
    public let sdkVersion: String
    /// The machine's host name.
    public let hostname: String
    /// CPU, memory, SIMD features and whether a GPU is used.
    public let hardware: HardwareProfile
    /// The devices the engines can run models on, and the backends they cannot use here with why.
    public let accelerators: [Accelerator]
    /// Every known framework with its availability.
    public let frameworks: [FrameworkStatus]
    /// Every kind of work with the frameworks that do it here, or why none does.
    public let modalities: [ModalityStatus]
    /// Every model category with its name and the kind of work its models need.
    public let categories: [CategoryInfo]
    /// The models folder.
    public let modelsDirectory: String
    /// The app data folder (conversations, settings, benchmark runs).
    public let dataDirectory: String
    /// The default language model's id.
    public let defaultModel: String
    /// Whether the default language model is installed.
    public let defaultModelInstalled: Bool
}

/// A model category as people and the add-model flow see it.
public struct CategoryInfo: Codable, Sendable, Equatable {
    /// The category.
    public let category: ModelCategory
    /// Its name for people.
    public let displayName: String
    /// The kind of work its models need, which picks the frameworks that can run them.
    public let modality: FrameworkModality
    /// Whether its models may think (`<think>` reasoning) before they answer.
    public let supportsThinking: Bool
}

extension RunAnywhereRuntime {
    /// The device, its hardware, the frameworks and kinds of work available here, and the
    /// SDK's folders; the hardware and the devices as the registry's ``HardwareDetector`` reads them.
    public nonisolated func systemInfo() throws -> SystemInfo {
        let defaultModel = try model(id: RunAnywhere.defaultModelID)
        let statuses = frameworks.statuses()  // each engine's availability, read once
        let accelerators = frameworks.accelerators()
        return SystemInfo(
            sdkVersion: RunAnywhere.version, hostname: ProcessInfo.processInfo.hostName,
            hardware: frameworks.hardwareDetector.profile(accelerators: accelerators), accelerators: accelerators,
            frameworks: statuses, modalities: FrameworkAdapterRegistry.modalityStatuses(of: statuses),
            categories: ModelCategory.allCases.map {
                CategoryInfo(
                    category: $0, displayName: $0.displayName, modality: FrameworkModality(category: $0),
                    supportsThinking: $0.supportsThinking
                )
            },
            modelsDirectory: configuration.modelsDirectory.path, dataDirectory: configuration.dataDirectory.path,
            defaultModel: defaultModel.id, defaultModelInstalled: defaultModel.isDownloaded
        )
    }
}
