import Foundation

/// What the operating system offers for GPU compute, read from what drivers and toolkits
/// install: the NVIDIA kernel driver, Vulkan's installable client drivers (ICDs) and the CUDA
/// compiler. Engines use it to say why a GPU backend cannot be used here.
public struct GPUDrivers: Sendable, Equatable {
    /// The NVIDIA kernel driver's version line (`/proc/driver/nvidia/version`), if loaded.
    public let nvidiaDriver: String?
    /// The Vulkan ICD manifests found (file names, e.g. `nvidia_icd.json`, `lvp_icd.x86_64.json`).
    public let vulkanDrivers: [String]
    /// The CUDA compiler (`nvcc` under `$CUDA_HOME/bin` or on the PATH), if any.
    public let cudaCompiler: String?
    /// The GPU render nodes (`/dev/dri/renderD*`): a GPU with a kernel driver (Mesa's CPU Vulkan
    /// driver, lavapipe, has none).
    public let renderNodes: [String]

    /// Reads them under `root` (the file system's root; tests give a tree of their own).
    package static func current(root: String = "/", environment: [String: String] = ProcessInfo.processInfo.environment) -> GPUDrivers {
        let base = URL(fileURLWithPath: root)
        let nvidia = (try? String(contentsOf: base.appendingPathComponent("proc/driver/nvidia/version"), encoding: .utf8))?
            .split(separator: "\n").first.map { $0.trimmingCharacters(in: .whitespaces) }
        let icdFolders = ["usr/share/vulkan/icd.d", "etc/vulkan/icd.d", "usr/local/share/vulkan/icd.d"]
        let icds = icdFolders.flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: base.appendingPathComponent(folder).path)) ?? []).filter {
                $0.hasSuffix(".json")
            }
        }
        var compilers: [String] = []
        if let home = environment["CUDA_HOME"], !home.isEmpty { compilers.append("\(home)/bin/nvcc") }
        compilers += (environment["PATH"] ?? "").split(separator: ":").map { "\($0)/nvcc" }
        compilers.append("/usr/local/cuda/bin/nvcc")
        let compiler = compilers.first { FileManager.default.isExecutableFile(atPath: base.appendingPathComponent($0).path) }
        let nodes = ((try? FileManager.default.contentsOfDirectory(atPath: base.appendingPathComponent("dev/dri").path)) ?? [])
            .filter { $0.hasPrefix("renderD") }.sorted()
        return GPUDrivers(nvidiaDriver: nvidia, vulkanDrivers: Array(Set(icds)).sorted(), cudaCompiler: compiler, renderNodes: nodes)
    }

    /// Drivers as given.
    public init(nvidiaDriver: String?, vulkanDrivers: [String], cudaCompiler: String?, renderNodes: [String] = []) {
        self.nvidiaDriver = nvidiaDriver
        self.vulkanDrivers = vulkanDrivers
        self.cudaCompiler = cudaCompiler
        self.renderNodes = renderNodes
    }
}
