/// A device an inference engine can run models on, as the engine itself reports it (llama.cpp:
/// ggml's backend and device registry), or a backend this machine might use that the engine
/// cannot use here, with the reason.
public struct Accelerator: Codable, Sendable, Equatable {
    /// What kind of device it is (ggml's device types).
    public enum Kind: String, Codable, Sendable {
        /// The CPU.
        case cpu
        /// A discrete GPU.
        case gpu
        /// A GPU sharing the host's memory.
        case integratedGPU = "igpu"
        /// Another accelerator (one that works beside the CPU, such as BLAS).
        case accelerator
    }

    /// The backend, in lower case: `cuda`, `vulkan`, `cpu`, ….
    public let backend: String
    /// The device's name in its engine (`CUDA0`, `Vulkan0`, `CPU`); the backend's name for a
    /// backend with no device.
    public let name: String
    /// What the engine says the device is, e.g. "NVIDIA H100 80GB HBM3"; empty when no device.
    public let deviceDescription: String
    /// The kind of device.
    public let kind: Kind
    /// The device's memory in bytes, when the engine reports it.
    public let memoryBytes: Int64?
    /// Its free memory in bytes when it was read, when the engine reports it.
    public let freeMemoryBytes: Int64?
    /// Whether models can run on it.
    public let available: Bool
    /// Why models cannot run on it, and what would change that; nil when available.
    public let reason: String?
    /// The engine that reported it, e.g. "llama.cpp".
    public let engine: String
    /// Whether it is a GPU driver that runs on the CPU (Mesa's lavapipe, "llvmpipe …", or
    /// SwiftShader): a device a model can be placed on when it is picked by hand (ggml skips
    /// such devices unless `GGML_VK_VISIBLE_DEVICES` names them), but not a GPU.
    public let emulated: Bool

    /// The device descriptions of GPU drivers that run on the CPU begin with one of these.
    static let emulatedDevicePrefixes = ["llvmpipe", "SwiftShader"]

    /// Whether it is a GPU (discrete or integrated) in hardware.
    public var isGPU: Bool { takesLayers && !emulated }

    /// Whether a model's layers can be placed on it: an available GPU-type device, in hardware
    /// or emulated.
    public var takesLayers: Bool { kind == .gpu || kind == .integratedGPU }

    /// An accelerator as described above; ``emulated`` follows from the description.
    public init(
        backend: String, name: String, deviceDescription: String = "", kind: Kind, memoryBytes: Int64? = nil,
        freeMemoryBytes: Int64? = nil, available: Bool, reason: String? = nil, engine: String
    ) {
        self.backend = backend
        self.name = name
        self.deviceDescription = deviceDescription
        self.kind = kind
        self.memoryBytes = memoryBytes
        self.freeMemoryBytes = freeMemoryBytes
        self.available = available
        self.reason = reason
        self.engine = engine
        emulated = Self.emulatedDevicePrefixes.contains { deviceDescription.hasPrefix($0) }
    }

    private enum CodingKeys: String, CodingKey {
        case backend, name, deviceDescription = "description", kind, memoryBytes, freeMemoryBytes, available, reason, engine, emulated
    }
}
