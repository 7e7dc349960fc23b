import Foundation

/// The device, its hardware, what each framework can do here, and where the SDK keeps its
/// files: what `runanywhere info` prints and the web app's Settings page shows.
package struct SystemInfo: Codable, Sendable, Equatable {
    /// The SDK's version.
    package let sdkVersion: String
    /// The machine's host name.
    package let hostname: String
    /// CPU, memory, SIMD features and whether a GPU is used.
    package let hardware: HardwareProfile
    /// The devices the engines can run models on, and the backends they cannot use here with why.
    package let accelerators: [Accelerator]
    /// Every known framework with its availability.
    package let frameworks: [FrameworkStatus]
    /// Every kind of work with the frameworks that do it here, or why none does.
    package let modalities: [ModalityStatus]
    /// Every model category with its name and the kind of work its models need.
    package let categories: [CategoryInfo]
    /// The models folder.
    package let modelsDirectory: String
    /// The app data folder (conversations, settings, benchmark runs).
    package let dataDirectory: String
    /// The default language model's id.
    package let defaultModel: String
    /// Whether the default language model is installed.
    package let defaultModelInstalled: Bool
}

/// A model category as people and the add-model flow see it.
package struct CategoryInfo: Codable, Sendable, Equatable {
    /// The category.
    package let category: ModelCategory
    /// Its name for people.
    package let displayName: String
    /// The kind of work its models need, which picks the frameworks that can run them.
    package let modality: FrameworkModality
    /// Whether its models may think (`<think>` reasoning) before they answer.
    package let supportsThinking: Bool
}

extension RunAnywhereRuntime {
    /// The device, its hardware, the frameworks and kinds of work available here, and the
    /// SDK's folders; the hardware and the devices as the registry's ``HardwareDetector`` reads them.
    package nonisolated func systemInfo() throws -> SystemInfo {
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
