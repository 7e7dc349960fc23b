import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// scripts/engine-check, the proof set-up asks of every engine build on the CPU that built it: one
/// tiny real computation per engine in a child process, passing here; and the same computation
/// made to fault for real (RUNANYWHERE_ENGINE_CHECK_CRASH: a read of address 0 in the child) is
/// refused with exit status 3, naming the engine, the signal and the CPU's features, which is
/// what makes set-up rebuild that engine conservatively.
@Suite(
    .processLane, .serialized,
    .enabled(
        if: TestEnvironment.engineInstalled && TestEnvironment.venvPython != nil && TestEnvironment.speechInstalled,
        "needs the engines and the venv: run scripts/setup --tests --build tests"))
struct EngineCheckTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/engine-check")

    /// Each engine's check arguments, as set-up passes them: the engine's name, then its files.
    static func engines() throws -> [[String]] {
        let engines = RuntimeConfiguration.homeDirectory().appendingPathComponent("engines")
        // llama-cpp-python's package folder: engines/llama.cpp/lib is its llama_cpp/lib.
        let site = engines.appendingPathComponent("llama.cpp/lib").resolvingSymlinksInPath().deletingLastPathComponent()
            .deletingLastPathComponent()
        let whisperLibraries = engines.appendingPathComponent("whisper.cpp/lib").resolvingSymlinksInPath()
        let whisper = try #require(
            try FileManager.default.contentsOfDirectory(atPath: whisperLibraries.path).first { $0.hasPrefix("libwhisper-") })
        let vad = TestEnvironment.installedModelsDirectory.appendingPathComponent("silero-vad/silero-v6.2.0-ggml.bin")
        var cases = [
            ["llama.cpp", site.path, try #require(TestEnvironment.defaultModelFile).path],
            ["whisper.cpp", whisperLibraries.appendingPathComponent(whisper).path, vad.path],
        ]
        if let image = TestEnvironment.diffusionFixture { cases.append(["stable-diffusion.cpp", image.path]) }
        return cases
    }

    static func check(_ arguments: [String], crash: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = TestEnvironment.venvPython
        process.arguments = [script.path] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["RUNANYWHERE_ENGINE_CHECK_CRASH"] = crash
        process.environment = environment
        let (output, errors) = (Pipe(), Pipe())
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    @Test func everyEngineRunsItsComputationOnThisCPU() throws {
        let engines = try Self.engines()
        #expect(engines.count == 3 || TestEnvironment.diffusionFixture == nil)
        for arguments in engines {
            let result = try Self.check(arguments)
            #expect(result.status == 0, "\(arguments[0]): \(result.stderr)")
            #expect(result.stdout.contains("\(arguments[0]): runs on this CPU"), "\(result.stdout)")
        }
    }

    @Test func aComputationThatDiesIsRefusedNamingTheEngineTheSignalAndTheCPU() throws {
        for arguments in try Self.engines() {
            let result = try Self.check(arguments, crash: arguments[0])
            #expect(result.status == 3, "\(arguments[0]) faulting: status \(result.status): \(result.stdout) \(result.stderr)")
            for part in [arguments[0], "SIGSEGV", "on this CPU (", "features:"] {
                #expect(result.stderr.contains(part), "\(arguments[0]): the refusal names \(part): \(result.stderr)")
            }
        }
    }

    /// Whether this CPU advertises AMX (Intel Xeon Sapphire Rapids and later).
    static var cpuHasAMX: Bool {
        let info = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        return info.split(separator: "\n").first { $0.hasPrefix("flags") }?.split(separator: " ").contains("amx_tile") ?? false
    }

    /// On a CPU with AMX, the engines set-up built hold no AMX instruction (ggml's AMX kernels
    /// crash without a tile configuration: llama.cpp PR 26954); runs where such a CPU is present.
    @Test(.enabled(if: cpuHasAMX, "this CPU has no AMX")) func enginesBuiltHereHoldNoAMXCode() throws {
        let engines = RuntimeConfiguration.homeDirectory().appendingPathComponent("engines")
        var folders = ["llama.cpp/lib", "stable-diffusion.cpp/lib"].map { engines.appendingPathComponent($0).resolvingSymlinksInPath() }
        let gpu = engines.appendingPathComponent("llama.cpp-gpu/lib")
        if FileManager.default.fileExists(atPath: gpu.path) { folders.append(gpu.resolvingSymlinksInPath()) }
        for folder in folders {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.contains(".so") {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/objdump")
                process.arguments = ["-d", "--no-show-raw-insn", folder.appendingPathComponent(name).path]
                let output = Pipe()
                process.standardOutput = output
                try process.run()
                let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                let amx = text.split(separator: "\n").filter {
                    $0.contains(/\t(tilezero|tileloadd|tileloaddt1|tilestored|ldtilecfg|sttilecfg|tilerelease|tdpb[a-z]+|tdpfp16ps)\s/)
                }
                #expect(amx.isEmpty, "\(folder.path)/\(name) holds \(amx.count) AMX instructions, first \(amx.first ?? "")")
            }
        }
    }

    @Test func aMissingFileIsAFailureNotACrash() throws {
        let result = try Self.check(["llama.cpp", "/nonexistent", "/nonexistent/model.gguf"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("/nonexistent/model.gguf does not exist"), "\(result.stderr)")
    }
}
