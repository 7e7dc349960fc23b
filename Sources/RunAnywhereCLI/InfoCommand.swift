import ArgumentParser
import Foundation
import RunAnywhere

/// `runanywhere info`: the device, its hardware, and which frameworks can run here.
struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info", abstract: "Show the device, its hardware and the available frameworks.")

    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print one JSON object.") var json = false

    /// `SystemInfo` and how this process started, as one flat JSON object.
    struct Report: Encodable {
        let system: SystemInfo
        let environment: String
        let initializationMs: Double

        func encode(to encoder: any Encoder) throws {
            try system.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(environment, forKey: Key(stringValue: "environment"))
            try container.encode(initializationMs, forKey: Key(stringValue: "initializationMs"))
        }
    }

    func run() async throws {
        try await CLIContext.run(global) { context in
            let report = Report(
                system: try RunAnywhere.runtime().systemInfo(), environment: RunAnywhere.environment?.rawValue ?? "",
                initializationMs: context.initializationTime.inSeconds * 1000
            )
            if json { return try JSONOutput.print(report) }
            let system = report.system
            let hw = system.hardware
            var text =
                Terminal.bold("RunAnywhere \(system.sdkVersion)")
                + " (\(report.environment), initialized in \(String(format: "%.2f", report.initializationMs)) ms)\n\n"
            text += Terminal.bold("Device") + "\n"
            text += "  Host:       \(system.hostname)\n  OS:         \(hw.operatingSystem)\n"
            text += "  CPU:        \(hw.cpuModel) (\(hw.architecture), \(hw.cores) cores)\n"
            text += "  SIMD:       \(hw.simdFeatures.isEmpty ? "none detected" : hw.simdFeatures.joined(separator: ", "))\n"
            text += "  Memory:     \(Terminal.bytes(hw.totalMemoryBytes)) total, \(Terminal.bytes(hw.availableMemoryBytes)) available\n"
            let gpus = system.accelerators.filter { $0.available && $0.isGPU }.map(\.name)
            let emulated = system.accelerators.filter { $0.available && $0.emulated }.map(\.name)
            let noGPU =
                emulated.isEmpty
                ? "none used (CPU inference)" : "none (\(emulated.joined(separator: ", ")): a GPU driver running on the CPU)"
            text += "  GPU:        \(hw.hasGPU ? "yes (\(gpus.joined(separator: ", ")))" : noGPU)\n\n"
            text += Terminal.bold("Accelerators") + "\n" + Self.describe(system.accelerators) + "\n"
            text += Terminal.bold("Frameworks") + "\n"
            let nameWidth = system.frameworks.map(\.displayName.count).max() ?? 0
            for status in system.frameworks {
                let state: String
                switch status.availability {
                case .available(let detail): state = Terminal.green("available") + (detail.map { " (\($0))" } ?? "")
                case .unavailable(let reason): state = Terminal.dim("unavailable: \(reason)")
                }
                text += "  \(status.displayName.padding(toLength: nameWidth, withPad: " ", startingAt: 0)) \(state)\n"
            }
            text += "\n" + Terminal.bold("Data") + "\n  Models:     \(system.modelsDirectory)\n  App data:   \(system.dataDirectory)\n"
            text +=
                "  Default model: \(system.defaultModel) (\(system.defaultModelInstalled ? "installed" : "not installed: run scripts/setup"))\n"
            Terminal.write(text)
        }
    }

    /// One line per accelerator: backend, device, memory, and why one cannot be used.
    static func describe(_ accelerators: [Accelerator]) -> String {
        guard !accelerators.isEmpty else { return "  none reported (no engine that lists its devices could be opened)\n" }
        let width = accelerators.map { "\($0.backend) \($0.name)".count }.max() ?? 0
        return accelerators.map { device in
            let label = "\(device.backend) \(device.name)".padding(toLength: width, withPad: " ", startingAt: 0)
            guard device.available else { return "  \(label)  " + Terminal.dim("unavailable: \(device.reason ?? "unknown")") + "\n" }
            var detail = device.deviceDescription
            if let total = device.memoryBytes {
                // ggml's CPU device reports the machine's memory as free too, so only a GPU's free memory is shown.
                detail +=
                    " · \(Terminal.bytes(total))"
                    + (device.isGPU ? device.freeMemoryBytes.map { ", \(Terminal.bytes($0)) free" } ?? "" : "")
            }
            let software = device.emulated ? " · runs on the CPU (a software GPU driver), not counted as a GPU" : ""
            return "  \(label)  " + Terminal.green("available") + (detail.isEmpty ? "" : " (\(detail))")
                + " · \(device.engine)\(software)\n"
        }.joined()
    }
}
