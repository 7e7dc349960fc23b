import Foundation
import RunAnywhere

/// llama.cpp's GPU variant, which `RUNANYWHERE_GPU=… scripts/setup` builds beside the CPU engine
/// (`$RUNANYWHERE_HOME/engines/llama.cpp-gpu`, a link to `llama.cpp-<backend>-…`).
///
/// A process opens one variant only: both name their ggml libraries alike (`libggml-base.so.0`),
/// and the dynamic loader would hand the second the first one's. So the choice is made before
/// either is opened, from the drivers the machine has; the GPU variant holds llama.cpp's CPU
/// backend too, so a model it cannot place on a GPU still runs.
struct LlamaGPUVariant: Equatable {
    /// `cuda` or `vulkan`.
    let backend: String
    /// Its libllama.
    let library: String

    /// The installed variant, if any (`$RUNANYWHERE_LLAMA_LIB` names a library of its own: then none).
    static func installed(environment: [String: String] = ProcessInfo.processInfo.environment) -> LlamaGPUVariant? {
        guard environment["RUNANYWHERE_LLAMA_LIB"]?.isEmpty ?? true else { return nil }
        let link = RuntimeConfiguration.homeDirectory(environment: environment).appendingPathComponent("engines/llama.cpp-gpu")
        let folder = link.resolvingSymlinksInPath()
        let library = folder.appendingPathComponent("lib/libllama.so").path
        guard FileManager.default.fileExists(atPath: library) else { return nil }
        let name = folder.lastPathComponent
        guard let backend = ["cuda", "vulkan"].first(where: { name.hasPrefix("llama.cpp-\($0)-") }) else { return nil }
        return LlamaGPUVariant(backend: backend, library: library)
    }

    /// Whether the machine has what this variant's backend needs to find a device: the NVIDIA
    /// driver for CUDA; for Vulkan a Vulkan driver and a GPU (a render node or the NVIDIA driver),
    /// or devices chosen by hand with `GGML_VK_VISIBLE_DEVICES` (which can name Mesa's CPU driver).
    func usable(drivers: GPUDrivers, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        switch backend {
        case "cuda": return drivers.nvidiaDriver != nil
        default:
            guard !drivers.vulkanDrivers.isEmpty else { return false }
            return !drivers.renderNodes.isEmpty || drivers.nvidiaDriver != nil || !(environment["GGML_VK_VISIBLE_DEVICES"] ?? "").isEmpty
        }
    }
}
