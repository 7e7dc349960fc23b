import RunAnywhere
import Testing

@testable import RunAnywhereLlamaCpp

/// Why a GPU backend cannot be used, from what the machine has, and when the GPU variant is chosen.
struct LlamaDevicesTests {
    @Test func theReasonNamesWhatIsMissing() {
        let none = GPUDrivers(nvidiaDriver: nil, vulkanDrivers: [], cudaCompiler: nil)
        #expect(LlamaDevices.missingReason("cuda", drivers: none, variant: nil).contains("no NVIDIA driver is loaded"))
        #expect(LlamaDevices.missingReason("vulkan", drivers: none, variant: nil).contains("no Vulkan driver is installed"))
        let driverOnly = GPUDrivers(nvidiaDriver: "NVRM version: 550.54.15", vulkanDrivers: ["nvidia_icd.json"], cudaCompiler: nil)
        let cuda = LlamaDevices.missingReason("cuda", drivers: driverOnly, variant: nil)
        #expect(cuda.contains("no CUDA backend") && cuda.contains("550.54.15") && cuda.contains("CUDA toolkit"))
        let vulkan = LlamaDevices.missingReason("vulkan", drivers: driverOnly, variant: nil)
        #expect(vulkan.contains("no Vulkan backend") && vulkan.contains("RUNANYWHERE_GPU=vulkan") && vulkan.contains("nvidia_icd.json"))
        let toolkit = GPUDrivers(nvidiaDriver: "NVRM version: 550.54.15", vulkanDrivers: [], cudaCompiler: "/usr/local/cuda/bin/nvcc")
        #expect(
            LlamaDevices.missingReason("cuda", drivers: toolkit, variant: nil).contains(
                "RUNANYWHERE_GPU=cuda scripts/setup builds one with /usr/local/cuda/bin/nvcc"))
        let lavapipe = GPUDrivers(nvidiaDriver: nil, vulkanDrivers: ["lvp_icd.x86_64.json"], cudaCompiler: nil)
        let unused = LlamaDevices.missingReason(
            "vulkan", drivers: lavapipe, variant: LlamaGPUVariant(backend: "vulkan", library: "/x/libllama.so"))
        #expect(unused.contains("installed but not used") && unused.contains("GGML_VK_VISIBLE_DEVICES"))
        let cudaUnused = LlamaDevices.missingReason(
            "cuda", drivers: none, variant: LlamaGPUVariant(backend: "cuda", library: "/x/libllama.so"))
        #expect(cudaUnused.contains("CUDA build of llama.cpp is installed but not used") && cudaUnused.contains("no NVIDIA driver"))
        #expect(cuda.contains("nvidia-cuda-toolkit"))
    }

    /// The GPU variant is opened only where its backend can find a device.
    @Test func theGPUVariantNeedsItsDriver() {
        let vulkan = LlamaGPUVariant(backend: "vulkan", library: "/x/libllama.so")
        let cuda = LlamaGPUVariant(backend: "cuda", library: "/x/libllama.so")
        let lavapipe = GPUDrivers(nvidiaDriver: nil, vulkanDrivers: ["lvp_icd.x86_64.json"], cudaCompiler: nil)
        let radeon = GPUDrivers(
            nvidiaDriver: nil, vulkanDrivers: ["radeon_icd.x86_64.json"], cudaCompiler: nil, renderNodes: ["renderD128"])
        let nvidia = GPUDrivers(nvidiaDriver: "NVRM version: 550.54.15", vulkanDrivers: ["nvidia_icd.json"], cudaCompiler: nil)
        #expect(!vulkan.usable(drivers: lavapipe, environment: [:]))
        #expect(vulkan.usable(drivers: lavapipe, environment: ["GGML_VK_VISIBLE_DEVICES": "0"]))
        #expect(vulkan.usable(drivers: radeon, environment: [:]) && vulkan.usable(drivers: nvidia, environment: [:]))
        #expect(!cuda.usable(drivers: radeon, environment: [:]) && cuda.usable(drivers: nvidia, environment: [:]))
        #expect(LlamaGPUVariant.installed(environment: ["RUNANYWHERE_LLAMA_LIB": "/elsewhere/libllama.so"]) == nil)
    }
}
