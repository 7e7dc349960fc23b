import Foundation
import RunAnywhere

/// The engine worker processes tests start (``EngineProcesses``, with the `runanywhere` binary
/// built beside the test bundle as the worker program).
package enum EngineWorkers {
    /// The `runanywhere` binary beside the test bundle.
    package static let binary = URL(
        fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    )
    .deletingLastPathComponent().appendingPathComponent("runanywhere")

    /// A runtime over `models` (by default the installed ones) whose models run in workers of
    /// ``binary``, its data in a new folder; the caller registers the engines.
    package static func runtime(models: URL = TestEnvironment.installedModelsDirectory) -> RunAnywhereRuntime {
        var configuration = RuntimeConfiguration(
            modelsDirectory: models,
            dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("runanywhere-data-\(UUID())")
        )
        configuration.engineProcesses = EngineProcesses(executable: binary, arguments: ["engine-worker"])
        return RunAnywhereRuntime(configuration: configuration)
    }

    /// The pids of this process's engine workers holding `model` (running, not zombies).
    package static func holding(_ model: String) -> [Int32] {
        let parent = "\(getpid())"
        return ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(Int32.init).filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let fields = stat.split(separator: ")").last?.split(separator: " "), fields.count > 1, fields[0] != "Z",
                fields[1] == Substring(parent),
                let argv = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")).split(separator: 0).map({
                    String(decoding: $0, as: UTF8.self)
                })
            else { return false }
            return argv.contains("engine-worker")
                && argv.firstIndex(of: "--model").map { argv.index(after: $0) < argv.count && argv[$0 + 1] == model } == true
        }
    }
}
