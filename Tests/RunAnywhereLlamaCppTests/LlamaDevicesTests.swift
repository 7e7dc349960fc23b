import RunAnywhere
@testable import RunAnywhereLlamaCpp
import Testing

/// Why a GPU backend cannot be used, from what the machine has.
struct LlamaDevicesTests {
    @Test func theReasonNamesWhatIsMissing() {
        let none = GPUDrivers(nvidiaDriver: nil, vulkanDrivers: [], cudaCompiler: nil)
        #expect(LlamaDevices.missingReason("cuda", drivers: none).contains("no NVIDIA driver is loaded"))
        #expect(LlamaDevices.missingReason("vulkan", drivers: none).contains("no Vulkan driver is installed"))
        let driverOnly = GPUDrivers(nvidiaDriver: "NVRM version: 550.54.15", vulkanDrivers: ["nvidia_icd.json"], cudaCompiler: nil)
        let cuda = LlamaDevices.missingReason("cuda", drivers: driverOnly)
        #expect(cuda.contains("no CUDA backend") && cuda.contains("550.54.15") && cuda.contains("CUDA toolkit"))
        let vulkan = LlamaDevices.missingReason("vulkan", drivers: driverOnly)
        #expect(vulkan.contains("no Vulkan backend") && vulkan.contains("nvidia_icd.json"))
        let toolkit = GPUDrivers(nvidiaDriver: "NVRM version: 550.54.15", vulkanDrivers: [], cudaCompiler: "/usr/local/cuda/bin/nvcc")
        #expect(LlamaDevices.missingReason("cuda", drivers: toolkit).contains("/usr/local/cuda/bin/nvcc"))
    }
}
