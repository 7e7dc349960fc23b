import CLlamaCpp
import RunAnywhere

/// The devices llama.cpp can run models on in this build, read from ggml's backend and device
/// registry, and the GPU backends the build has not got, with why.
enum LlamaDevices {
    /// The GPU backends llama.cpp has on Linux that RunAnywhere looks for: ggml's registry name
    /// and the lower-case backend name results carry.
    static let gpuBackends: [(registry: String, backend: String)] = [("CUDA", "cuda"), ("Vulkan", "vulkan")]

    /// The names of the backends in `library`'s ggml registry, e.g. ["Vulkan", "CPU"].
    static func backendNames(library: LlamaLibrary) -> [String] {
        let api = library.api
        return GGMLBackends.names(count: api.ggml_backend_reg_count, get: api.ggml_backend_reg_get, name: api.ggml_backend_reg_name)
    }

    /// Every device of every backend in `library`, then an unavailable entry for each GPU
    /// backend the build lacks, its reason read from `drivers` and the GPU `variant` installed.
    static func accelerators(library: LlamaLibrary, drivers: GPUDrivers, variant: LlamaGPUVariant?) -> [Accelerator] {
        let api = library.api
        var accelerators: [Accelerator] = []
        var backends: Set<String> = []
        for index in 0..<api.ggml_backend_reg_count() {
            guard let registry = api.ggml_backend_reg_get(index) else { continue }
            let name = text(api.ggml_backend_reg_name(registry))
            let backend = name.lowercased()
            backends.insert(backend)
            let devices = api.ggml_backend_reg_dev_count(registry)
            if devices == 0 {
                accelerators.append(
                    Accelerator(
                        backend: backend, name: name, kind: gpuBackends.contains { $0.backend == backend } ? .gpu : .accelerator,
                        available: false, reason: "llama.cpp's \(name) backend found no device", engine: "llama.cpp"
                    ))
            }
            for position in 0..<devices {
                guard let device = api.ggml_backend_reg_dev_get(registry, position) else { continue }
                var free = 0
                var total = 0
                api.ggml_backend_dev_memory(device, &free, &total)
                accelerators.append(
                    Accelerator(
                        backend: backend, name: text(api.ggml_backend_dev_name(device)),
                        deviceDescription: text(api.ggml_backend_dev_description(device)), kind: kind(api.ggml_backend_dev_type(device)),
                        memoryBytes: total > 0 ? Int64(total) : nil, freeMemoryBytes: total > 0 ? Int64(free) : nil, available: true,
                        engine: "llama.cpp"
                    ))
            }
        }
        for (registry, backend) in gpuBackends where !backends.contains(backend) {
            accelerators.append(
                Accelerator(
                    backend: backend, name: registry, kind: .gpu, available: false,
                    reason: missingReason(backend, drivers: drivers, variant: variant),
                    engine: "llama.cpp"
                ))
        }
        return accelerators
    }

    private static func text(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }

    private static func kind(_ type: ggml_backend_dev_type) -> Accelerator.Kind {
        switch type {
        case GGML_BACKEND_DEVICE_TYPE_CPU: .cpu
        case GGML_BACKEND_DEVICE_TYPE_GPU: .gpu
        case GGML_BACKEND_DEVICE_TYPE_IGPU: .integratedGPU
        default: .accelerator
        }
    }

    /// Why the GPU backend `backend` cannot be used: no driver for it, its build installed but
    /// no GPU found for it, or no build with it (and how to make one).
    static func missingReason(_ backend: String, drivers: GPUDrivers, variant: LlamaGPUVariant?) -> String {
        switch backend {
        case "cuda":
            guard let driver = drivers.nvidiaDriver else {
                let installed = variant?.backend == "cuda" ? "the CUDA build of llama.cpp is installed but not used: " : ""
                return installed + "no NVIDIA driver is loaded (/proc/driver/nvidia/version is absent)"
            }
            let build =
                drivers.cudaCompiler.map { "RUNANYWHERE_GPU=cuda scripts/setup builds one with \($0)" }
                ?? "building one needs the CUDA toolkit (nvcc on the PATH or under CUDA_HOME: NVIDIA's CUDA 12, or on Debian 12 "
                + "nvidia-cuda-toolkit from non-free, CUDA 11.8, for GPUs before Hopper; PyPI's NVIDIA wheels have no nvcc), "
                + "then RUNANYWHERE_GPU=cuda scripts/setup"
            return "this build of llama.cpp has no CUDA backend: \(build); NVIDIA driver: \(driver)"
        default:
            guard !drivers.vulkanDrivers.isEmpty else {
                return "no Vulkan driver is installed (no ICD manifest in /usr/share/vulkan/icd.d or /etc/vulkan/icd.d)"
            }
            if variant?.backend == "vulkan" {
                return "the Vulkan build of llama.cpp is installed but not used: no GPU was found (no render node in /dev/dri); "
                    + "GGML_VK_VISIBLE_DEVICES=N picks Vulkan devices by hand"
            }
            return "this build of llama.cpp has no Vulkan backend: RUNANYWHERE_GPU=vulkan scripts/setup builds one "
                + "(with Debian's glslc, libvulkan-dev and spirv-headers); Vulkan drivers: \(drivers.vulkanDrivers.joined(separator: ", "))"
        }
    }
}
