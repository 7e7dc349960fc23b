import ArgumentParser
import Foundation
import RunAnywhere

/// `runanywhere info`: the device, its hardware, and which frameworks can run here.
struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "info", abstract: "Show the device, its hardware and the available frameworks.")

    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print one JSON object.") var json = false

    struct Report: Encodable {
        let sdkVersion: String
        let environment: String
        let initializationMs: Double
        let hostname: String
        let hardware: HardwareProfile
        let frameworks: [FrameworkStatus]
        let modelsDirectory: String
        let dataDirectory: String
        let defaultModel: String
        let defaultModelInstalled: Bool
    }

    func run() async throws {
        try await CLIContext.run(global) { context in
            let runtime = try RunAnywhere.runtime()
            let defaultModel = try runtime.model(id: RunAnywhere.defaultModelID)
            let report = Report(
                sdkVersion: RunAnywhere.version,
                environment: RunAnywhere.environment?.rawValue ?? "",
                initializationMs: context.initializationTime.inSeconds * 1000,
                hostname: ProcessInfo.processInfo.hostName,
                hardware: HardwareProfile.current(),
                frameworks: try RunAnywhere.frameworkStatuses(),
                modelsDirectory: runtime.configuration.modelsDirectory.path,
                dataDirectory: runtime.configuration.dataDirectory.path,
                defaultModel: defaultModel.id,
                defaultModelInstalled: defaultModel.isDownloaded
            )
            if json { return try JSONOutput.print(report) }
            let hw = report.hardware
            var text = Terminal.bold("RunAnywhere \(report.sdkVersion)") + " (\(report.environment), initialized in \(String(format: "%.2f", report.initializationMs)) ms)\n\n"
            text += Terminal.bold("Device") + "\n"
            text += "  Host:       \(report.hostname)\n  OS:         \(hw.operatingSystem)\n"
            text += "  CPU:        \(hw.cpuModel) (\(hw.architecture), \(hw.cores) cores)\n"
            text += "  SIMD:       \(hw.simdFeatures.isEmpty ? "none detected" : hw.simdFeatures.joined(separator: ", "))\n"
            text += "  Memory:     \(Terminal.bytes(hw.totalMemoryBytes)) total, \(Terminal.bytes(hw.availableMemoryBytes)) available\n"
            text += "  GPU:        \(hw.hasGPU ? "yes" : "none used (CPU inference)")\n\n"
            text += Terminal.bold("Frameworks") + "\n"
            for status in report.frameworks {
                let state: String
                switch status.availability {
                case .available(let detail): state = Terminal.green("available") + (detail.map { " (\($0))" } ?? "")
                case .unavailable(let reason): state = Terminal.dim("unavailable: \(reason)")
                }
                text += "  \(status.displayName.padding(toLength: 18, withPad: " ", startingAt: 0)) \(state)\n"
            }
            text += "\n" + Terminal.bold("Data") + "\n  Models:     \(report.modelsDirectory)\n  App data:   \(report.dataDirectory)\n"
            text += "  Default model: \(report.defaultModel) (\(report.defaultModelInstalled ? "installed" : "not installed: run scripts/setup"))\n"
            Terminal.write(text)
        }
    }
}
