import Foundation
import Logging
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// A machine described by the app: a CPU of its own, little free memory, and a GPU added to the
/// devices the engines report.
private struct DescribedMachine: HardwareDetector {
    static let gpu = Accelerator(
        backend: "cuda", name: "CUDA0", deviceDescription: "Described GPU", kind: .gpu, memoryBytes: 8 << 30, freeMemoryBytes: 8 << 30,
        available: true, engine: "test"
    )
    var freeMemory: Int64 = 512 << 20

    func profile(accelerators: [Accelerator]) -> HardwareProfile {
        HardwareProfile(
            cpuModel: "Described CPU", architecture: "riscv64", cores: 64, simdFeatures: ["RVV"], totalMemoryBytes: 1 << 40,
            availableMemoryBytes: freeMemory, operatingSystem: "Described OS", hasGPU: accelerators.contains { $0.available && $0.isGPU }
        )
    }

    func availableMemory() -> Int64 { freeMemory }

    func accelerators(from reported: [Accelerator]) -> [Accelerator] { reported + [Self.gpu] }
}

/// An engine that reports the CPU, through the detector the registry hands it, as the SDK's
/// engines do.
private struct CPUEngine: FrameworkAdapter {
    let framework = InferenceFramework.whisperCpp
    let supportedModalities: Set<FrameworkModality> = [.voiceToText]
    var hardware: any HardwareDetector = SystemHardwareDetector()

    func availability() -> FrameworkAvailability { .available(detail: nil) }
    func estimateMemoryUsage(for model: ModelInfo) -> Int64 { 0 }
    func accelerators() -> [Accelerator] {
        hardware.accelerators(from: [Accelerator(backend: "cpu", name: "CPU", kind: .cpu, available: true, engine: "test")])
    }
    func using(hardwareDetector: any HardwareDetector) -> any FrameworkAdapter {
        var engine = self
        engine.hardware = hardwareDetector
        return engine
    }
}

/// The hardware detector an app can replace: what system info reports, the memory budget and the
/// memory check before a load follow it.
struct HardwareDetectorTests {
    private func runtime(_ configuration: (inout RuntimeConfiguration) -> Void = { _ in }, name: String = #function) throws
        -> RunAnywhereRuntime
    {
        let folder = try TestEnvironment.temporaryDirectory(name)
        var settings = RuntimeConfiguration(
            modelsDirectory: folder.appendingPathComponent("models"), dataDirectory: folder.appendingPathComponent("data"))
        configuration(&settings)
        return RunAnywhereRuntime(configuration: settings)
    }

    @Test func systemInfoReportsTheDetectorsMachine() throws {
        let system = try runtime().systemInfo()
        #expect(system.hardware.cpuModel == HardwareProfile.current().cpuModel && system.hardware.cores == HardwareProfile.current().cores)

        let described = try runtime { $0.hardwareDetector = DescribedMachine() }
        described.frameworks.register(CPUEngine())
        let info = try described.systemInfo()
        #expect(info.hardware.cpuModel == "Described CPU" && info.hardware.cores == 64 && info.hardware.operatingSystem == "Described OS")
        #expect(
            info.accelerators.map(\.name) == ["CPU", "CUDA0"] && info.hardware.hasGPU, "the engine's devices pass through the detector")
        #expect(described.frameworks.hardwareDetector is DescribedMachine)
    }

    /// Replaced after the engines were registered, the detector reaches them too.
    @Test func aDetectorRegisteredLaterReachesTheEngines() throws {
        let runtime = try runtime()
        runtime.frameworks.register(CPUEngine())
        #expect(try runtime.systemInfo().accelerators.map(\.name) == ["CPU"])
        runtime.frameworks.register(hardwareDetector: DescribedMachine())
        let info = try runtime.systemInfo()
        #expect(info.accelerators.map(\.name) == ["CPU", "CUDA0"] && info.hardware.cpuModel == "Described CPU")
        runtime.frameworks.register(hardwareDetector: SystemHardwareDetector())
        #expect(try runtime.systemInfo().accelerators.map(\.name) == ["CPU"])
    }

    /// What a detector leaves out is the system's: here only the free memory is described.
    @Test func whatADetectorDoesNotDescribeIsTheSystems() throws {
        struct LittleMemory: HardwareDetector {
            func availableMemory() -> Int64 { 4 << 30 }
        }
        let runtime = try runtime { $0.hardwareDetector = LittleMemory() }
        #expect(try runtime.systemInfo().hardware.cpuModel == HardwareProfile.current().cpuModel)
        #expect(LittleMemory().accelerators(from: [DescribedMachine.gpu]) == [DescribedMachine.gpu])
        #expect(LittleMemory().gpuDrivers() == GPUDrivers.current())
    }

    /// The memory budget and the check before a load use the detector's free memory.
    @Test func theMemoryCheckFollowsTheDetector() async throws {
        let budgeted = try runtime { $0.hardwareDetector = DescribedMachine(freeMemory: 4 << 30) }
        #expect(await budgeted.modelMemoryBudget == 3 << 30, "three quarters of the free memory")

        let scripted = try scriptedRuntime(adapter: ScriptedAdapter(memory: 64 << 20))
        scripted.frameworks.register(hardwareDetector: DescribedMachine(freeMemory: 16 << 20))
        let error = await #expect(throws: SDKError.self) { try await scripted.loadModel("scripted") }
        #expect(error?.code == .insufficientMemory && error?.message.contains("only 16 MiB is available") == true)
        scripted.frameworks.register(hardwareDetector: DescribedMachine(freeMemory: 1 << 30))
        try await scripted.loadModel("scripted")
        #expect(await scripted.isModelLoaded)
    }
}
