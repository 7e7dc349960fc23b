import Foundation
import RunAnywhereTestSupport

/// Runs the built `runanywhere` binary and captures what it prints.
struct CLIRunner {
    struct Output {
        let status: Int32
        let stdout: String
        let stderr: String

        /// Standard output parsed as a JSON object.
        func json() throws -> [String: Any] {
            guard let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any] else {
                throw CocoaError(.coderReadCorrupt)
            }
            return object
        }
    }

    /// The binary, built beside the test bundle.
    static var binary: URL {
        let executable = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        return executable.deletingLastPathComponent().appendingPathComponent("runanywhere")
    }

    /// Extra environment, e.g. a private `RUNANYWHERE_HOME`.
    var environment: [String: String] = [:]

    /// Runs the binary with `arguments`, feeding `input` on standard input.
    func run(_ arguments: [String], input: String = "") throws -> Output {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }

    /// A runner whose models and app data live in a new temporary folder; the engine is still
    /// found where scripts/setup installed it.
    static func isolated() throws -> (CLIRunner, URL) {
        let home = try TestEnvironment.temporaryDirectory()
        var environment = ["RUNANYWHERE_HOME": home.path, "RUNANYWHERE_DATA": home.appendingPathComponent("data").path]
        if let library = TestEnvironment.llamaLibrary { environment["RUNANYWHERE_LLAMA_LIB"] = library.path }
        return (CLIRunner(environment: environment), home)
    }
}
