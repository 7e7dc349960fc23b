import Foundation

/// What this machine offers for inference, read from `/proc` and `/etc/os-release` on Linux.
public struct HardwareProfile: Codable, Sendable, Equatable {
    /// CPU model name, e.g. "AMD EPYC 7B13".
    public let cpuModel: String
    /// Machine architecture, e.g. "x86_64", "aarch64".
    public let architecture: String
    /// Logical CPU cores available to this process.
    public let cores: Int
    /// SIMD extensions the CPU has that inference engines use (AVX2, AVX-512, NEON, ...).
    public let simdFeatures: [String]
    /// Total memory in bytes.
    public let totalMemoryBytes: Int64
    /// Memory available to new allocations in bytes (MemAvailable).
    public let availableMemoryBytes: Int64
    /// Operating system name and version, e.g. "Debian GNU/Linux 12 (bookworm)".
    public let operatingSystem: String
    /// Whether an engine can run models on a GPU here: true only when one of the accelerators
    /// the engines report is an available GPU (see `current(accelerators:)`).
    public let hasGPU: Bool

    /// A profile as given (a ``HardwareDetector`` of an app's own describes its machine with one).
    public init(
        cpuModel: String, architecture: String, cores: Int, simdFeatures: [String], totalMemoryBytes: Int64, availableMemoryBytes: Int64,
        operatingSystem: String, hasGPU: Bool
    ) {
        self.cpuModel = cpuModel
        self.architecture = architecture
        self.cores = cores
        self.simdFeatures = simdFeatures
        self.totalMemoryBytes = totalMemoryBytes
        self.availableMemoryBytes = availableMemoryBytes
        self.operatingSystem = operatingSystem
        self.hasGPU = hasGPU
    }

    /// Threads to use when the caller does not say: all cores, at most 4.
    package var defaultThreads: Int { max(1, min(4, cores)) }

    /// Reads the profile of this machine; `accelerators` are the devices the engines report
    /// (the framework registry's `accelerators()`), which decide ``hasGPU``.
    package static func current(accelerators: [Accelerator] = []) -> HardwareProfile {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        let osRelease = (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8)) ?? ""
        let flags = Set((field("flags", in: cpuinfo) ?? field("Features", in: cpuinfo) ?? "").split(separator: " ").map(String.init))
        let known: [(flag: String, name: String)] = [
            ("sse4_2", "SSE4.2"), ("avx", "AVX"), ("avx2", "AVX2"), ("fma", "FMA"), ("f16c", "F16C"),
            ("avx512f", "AVX-512F"), ("avx512bw", "AVX-512BW"), ("avx512_vnni", "AVX-512 VNNI"), ("avx512_bf16", "AVX-512 BF16"),
            ("amx_tile", "AMX"), ("asimd", "NEON"), ("asimddp", "NEON dot product"), ("sve", "SVE"), ("i8mm", "I8MM"),
        ]
        var name = utsname()
        uname(&name)
        let machine = withUnsafeBytes(of: &name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let os = field("PRETTY_NAME", in: osRelease, separator: "=").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        return HardwareProfile(
            cpuModel: field("model name", in: cpuinfo) ?? field("Model", in: cpuinfo) ?? machine,
            architecture: machine,
            cores: ProcessInfo.processInfo.activeProcessorCount,
            simdFeatures: known.filter { flags.contains($0.flag) }.map(\.name),
            totalMemoryBytes: kibibytes("MemTotal", in: meminfo) ?? Int64(ProcessInfo.processInfo.physicalMemory),
            availableMemoryBytes: kibibytes("MemAvailable", in: meminfo) ?? 0,
            operatingSystem: os ?? ProcessInfo.processInfo.operatingSystemVersionString,
            hasGPU: accelerators.contains { $0.available && $0.isGPU }
        )
    }

    /// The current MemAvailable in bytes.
    package static func availableMemory() -> Int64 {
        kibibytes("MemAvailable", in: (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? "") ?? 0
    }

    private static func field(_ key: String, in text: String, separator: Character = ":") -> String? {
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: separator, maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == key {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    private static func kibibytes(_ key: String, in meminfo: String) -> Int64? {
        field(key, in: meminfo).flatMap { Int64($0.split(separator: " ").first ?? "") }.map { $0 * 1024 }
    }
}
