import ArgumentParser
import Foundation
import RunAnywhere

/// `runanywhere info`: the device, its hardware, and which frameworks can run here.
struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "info", abstract: "Show the device, its hardware and the available frameworks.")

    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print one JSON object.") var json = false

    /// ``SystemInfo`` and how this process started, as one flat JSON object.
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
            let system = report.system, hw = system.hardware
            var text = Terminal.bold("RunAnywhere \(system.sdkVersion)") + " (\(report.environment), initialized in \(String(format: "%.2f", report.initializationMs)) ms)\n\n"
            text += Terminal.bold("Device") + "\n"
            text += "  Host:       \(system.hostname)\n  OS:         \(hw.operatingSystem)\n"
            text += "  CPU:        \(hw.cpuModel) (\(hw.architecture), \(hw.cores) cores)\n"
            text += "  SIMD:       \(hw.simdFeatures.isEmpty ? "none detected" : hw.simdFeatures.joined(separator: ", "))\n"
            text += "  Memory:     \(Terminal.bytes(hw.totalMemoryBytes)) total, \(Terminal.bytes(hw.availableMemoryBytes)) available\n"
            text += "  GPU:        \(hw.hasGPU ? "yes" : "none used (CPU inference)")\n\n"
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
            text += "  Default model: \(system.defaultModel) (\(system.defaultModelInstalled ? "installed" : "not installed: run scripts/setup"))\n"
            Terminal.write(text)
        }
    }
}
