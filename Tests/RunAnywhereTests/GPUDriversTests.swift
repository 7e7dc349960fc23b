import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// GPU drivers read from trees in the formats drivers install, and `hasGPU` from accelerators.
struct GPUDriversTests {
    @Test func driversAreReadFromWhatTheyInstall() throws {
        let root = try TestEnvironment.temporaryDirectory("gpu-drivers")
        let empty = GPUDrivers.current(root: root.path, environment: ["PATH": "/nowhere"])
        #expect(empty == GPUDrivers(nvidiaDriver: nil, vulkanDrivers: [], cudaCompiler: nil))

        let nvidia = root.appendingPathComponent("proc/driver/nvidia")
        try FileManager.default.createDirectory(at: nvidia, withIntermediateDirectories: true)
        try "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\nGCC version:  gcc 12\n"
            .write(to: nvidia.appendingPathComponent("version"), atomically: true, encoding: .utf8)
        for (folder, file) in [
            ("usr/share/vulkan/icd.d", "lvp_icd.x86_64.json"), ("etc/vulkan/icd.d", "nvidia_icd.json"), ("etc/vulkan/icd.d", "README"),
        ] {
            let url = root.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try Data("{}".utf8).write(to: url.appendingPathComponent(file))
        }
        let bin = root.appendingPathComponent("opt/cuda/bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let nvcc = bin.appendingPathComponent("nvcc")
        try Data("#!/bin/sh\n".utf8).write(to: nvcc)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: nvcc.path)

        let found = GPUDrivers.current(root: root.path, environment: ["CUDA_HOME": "/opt/cuda", "PATH": "/nowhere"])
        #expect(found.nvidiaDriver?.hasPrefix("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15") == true)
        #expect(found.vulkanDrivers == ["lvp_icd.x86_64.json", "nvidia_icd.json"])
        #expect(found.cudaCompiler == "/opt/cuda/bin/nvcc")
        #expect(GPUDrivers.current(root: root.path, environment: ["PATH": "/usr/bin:/opt/cuda/bin"]).cudaCompiler == "/opt/cuda/bin/nvcc")
    }

    /// Only an available GPU makes `hasGPU` true: not the CPU, not a GPU backend without a device.
    @Test func hasGPUNeedsAnAvailableGPU() {
        let cpu = Accelerator(backend: "cpu", name: "CPU", kind: .cpu, available: true, engine: "llama.cpp")
        let missing = Accelerator(backend: "cuda", name: "CUDA", kind: .gpu, available: false, reason: "no driver", engine: "llama.cpp")
        let gpu = Accelerator(
            backend: "vulkan", name: "Vulkan0", kind: .integratedGPU, memoryBytes: 1 << 30, available: true, engine: "llama.cpp")
        #expect(!HardwareProfile.current().hasGPU)
        #expect(!HardwareProfile.current(accelerators: [cpu, missing]).hasGPU)
        #expect(HardwareProfile.current(accelerators: [cpu, missing, gpu]).hasGPU)
    }

    /// Mesa's lavapipe is a Vulkan device that runs on the CPU: it takes layers when picked by
    /// hand, but it is not a GPU, and a hardware GPU beside it comes first.
    @Test func aSoftwareGPUDriverIsNotAGPU() {
        let lavapipe = Accelerator(
            backend: "vulkan", name: "Vulkan0", deviceDescription: "llvmpipe (LLVM 15.0.6, 256 bits)", kind: .gpu,
            memoryBytes: 2 << 30, freeMemoryBytes: 2 << 30, available: true, engine: "llama.cpp"
        )
        #expect(lavapipe.emulated && lavapipe.takesLayers && !lavapipe.isGPU)
        #expect(!HardwareProfile.current(accelerators: [lavapipe]).hasGPU)
        #expect(
            GPUOffload.plan(requested: nil, layerCount: 30, modelBytes: 100 << 20, contextBytes: 0, accelerators: [lavapipe]).device
                == lavapipe)
        let radeon = Accelerator(
            backend: "vulkan", name: "Vulkan1", deviceDescription: "AMD Radeon RX 7600", kind: .gpu, memoryBytes: 1 << 30,
            freeMemoryBytes: 1 << 30, available: true, engine: "llama.cpp"
        )
        #expect(!radeon.emulated)
        #expect(
            GPUOffload.plan(requested: 10, layerCount: 30, modelBytes: 100 << 20, contextBytes: 0, accelerators: [lavapipe, radeon]).device
                == radeon)
    }

    @Test func acceleratorsEncodeWithTheDocumentedKeys() throws {
        let gpu = Accelerator(
            backend: "cuda", name: "CUDA0", deviceDescription: "NVIDIA H100 80GB HBM3", kind: .gpu, memoryBytes: 85_000_000_000,
            freeMemoryBytes: 84_000_000_000, available: true, engine: "llama.cpp"
        )
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(gpu)) as? [String: Any])
        #expect(
            Set(object.keys) == [
                "backend", "name", "description", "kind", "memoryBytes", "freeMemoryBytes", "available", "engine", "emulated",
            ])
        #expect(try JSONDecoder().decode(Accelerator.self, from: JSONEncoder().encode(gpu)) == gpu)
    }
}

/// The placement rule: whole model when it fits, as many layers as fit, the CPU without a GPU,
/// and a requested count over all of it.
struct GPUOffloadTests {
    private let cpu = Accelerator(
        backend: "cpu", name: "CPU", kind: .cpu, memoryBytes: 24 << 30, freeMemoryBytes: 20 << 30, available: true, engine: "llama.cpp")
    private func gpu(free: Int64, total: Int64 = 8 << 30) -> Accelerator {
        Accelerator(
            backend: "cuda", name: "CUDA0", kind: .gpu, memoryBytes: total, freeMemoryBytes: free, available: true, engine: "llama.cpp")
    }

    @Test func withoutAGPUEverythingStaysOnTheCPU() {
        let missing = Accelerator(backend: "vulkan", name: "Vulkan", kind: .gpu, available: false, reason: "no driver", engine: "llama.cpp")
        let plan = GPUOffload.plan(
            requested: nil, layerCount: 30, modelBytes: 1 << 30, contextBytes: 1 << 26, accelerators: [cpu, missing])
        #expect(plan.layers == 0 && plan.device == nil && plan.reason == "no GPU is available")
        #expect(GPUOffload.plan(requested: 12, layerCount: 30, modelBytes: 1 << 30, contextBytes: 0, accelerators: [cpu]).layers == 0)
        // Layers asked for with no GPU: the reason says why each GPU backend cannot take them.
        let asked = GPUOffload.plan(requested: 99, layerCount: 30, modelBytes: 1 << 30, contextBytes: 0, accelerators: [cpu, missing])
        #expect(
            asked.layers == 0
                && asked.reason == "99 GPU layers were asked for, but no GPU is available (vulkan: no driver); running on the CPU")
    }

    @Test func aModelThatFitsGoesWholeAndOneThatDoesNotGoesInPart() {
        let roomy = GPUOffload.plan(
            requested: nil, layerCount: 30, modelBytes: 2 << 30, contextBytes: 1 << 28, accelerators: [cpu, gpu(free: 7 << 30)])
        #expect(roomy.layers == 30 && roomy.device?.name == "CUDA0")
        // 1 GiB free less the 409.6 MiB reserve (5 % of 8 GiB) and 64 MiB of context: 550 MiB for 100 MiB layers.
        let tight = GPUOffload.plan(
            requested: nil, layerCount: 30, modelBytes: 3000 << 20, contextBytes: 64 << 20, accelerators: [cpu, gpu(free: 1 << 30)])
        #expect(tight.layers == 5 && tight.reason.contains("5 of 30 layers"))
        let full = GPUOffload.plan(
            requested: nil, layerCount: 30, modelBytes: 3000 << 20, contextBytes: 0, accelerators: [cpu, gpu(free: 300 << 20)])
        #expect(full.layers == 0 && full.device == nil)
        let unknown = GPUOffload.plan(requested: nil, layerCount: 0, modelBytes: 0, contextBytes: 0, accelerators: [gpu(free: 7 << 30)])
        #expect(unknown.layers == 0)
    }

    @Test func aRequestedCountOverridesTheRule() {
        let devices = [cpu, gpu(free: 100 << 20), gpu(free: 6 << 30)]
        #expect(GPUOffload.plan(requested: 0, layerCount: 30, modelBytes: 1 << 30, contextBytes: 0, accelerators: devices).layers == 0)
        let some = GPUOffload.plan(requested: 12, layerCount: 30, modelBytes: 1 << 30, contextBytes: 0, accelerators: devices)
        #expect(some.layers == 12 && some.device?.freeMemoryBytes == 6 << 30)
        #expect(GPUOffload.plan(requested: 999, layerCount: 30, modelBytes: 1 << 30, contextBytes: 0, accelerators: devices).layers == 30)
    }
}
