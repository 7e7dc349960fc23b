/// What the SDK reads about the machine it runs on: the CPU, memory and operating system
/// (`runanywhere info`, `GET /api/system`), the memory free for models (the model memory budget
/// and the check before each load), the GPU drivers installed (which llama.cpp build is opened,
/// and why a GPU backend cannot be used) and the devices models may be placed on (what system
/// info lists and what the GPU offload rule, `GPUOffload`, plans with).
///
/// `SystemHardwareDetector` reads them from Linux. An app replaces it through
/// ``RuntimeConfiguration/hardwareDetector`` or ``RunAnywhere/registerHardwareDetector(_:)`` to
/// describe the machine the way it knows it (a GPU kept for its own rendering, a memory limit of
/// its own); every requirement it does not implement keeps the system's answer.
public protocol HardwareDetector: Sendable {
    /// The machine's CPU, memory and operating system; `accelerators` are the devices the engines
    /// report (after ``accelerators(from:)``), which decide ``HardwareProfile/hasGPU``.
    func profile(accelerators: [Accelerator]) -> HardwareProfile
    /// Memory available to new allocations now, in bytes (0 when unknown).
    func availableMemory() -> Int64
    /// The GPU drivers and toolkits installed.
    func gpuDrivers() -> GPUDrivers
    /// The devices models may be placed on, from those an engine reports (`reported`, in the
    /// engine's order): what system info lists and what the GPU offload rule chooses among.
    func accelerators(from reported: [Accelerator]) -> [Accelerator]
}

extension HardwareDetector {
    /// Default: `SystemHardwareDetector`'s profile.
    public func profile(accelerators: [Accelerator]) -> HardwareProfile {
        SystemHardwareDetector().profile(accelerators: accelerators)
    }

    /// Default: `SystemHardwareDetector`'s reading.
    public func availableMemory() -> Int64 { SystemHardwareDetector().availableMemory() }

    /// Default: `SystemHardwareDetector`'s reading.
    public func gpuDrivers() -> GPUDrivers { SystemHardwareDetector().gpuDrivers() }

    /// Default: the devices as the engine reports them.
    public func accelerators(from reported: [Accelerator]) -> [Accelerator] { reported }
}

/// The machine as Linux describes it: `/proc/cpuinfo`, `/proc/meminfo` and `/etc/os-release`
/// (`HardwareProfile.current(accelerators:)`), the drivers' files (`GPUDrivers.current(root:environment:)`)
/// and the devices exactly as the engines report them.
package struct SystemHardwareDetector: HardwareDetector {
    /// The system's detector.
    package init() {}

    /// `HardwareProfile.current(accelerators:)`.
    package func profile(accelerators: [Accelerator]) -> HardwareProfile { HardwareProfile.current(accelerators: accelerators) }

    /// `HardwareProfile.availableMemory()` (MemAvailable).
    package func availableMemory() -> Int64 { HardwareProfile.availableMemory() }

    /// `GPUDrivers.current(root:environment:)` of this machine.
    package func gpuDrivers() -> GPUDrivers { GPUDrivers.current() }

    /// The devices as the engine reports them.
    package func accelerators(from reported: [Accelerator]) -> [Accelerator] { reported }
}
