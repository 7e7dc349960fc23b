import Foundation
import RunAnywhere
import Synchronization

/// Temporary folders and the locations of the real engine and model that scripts/setup --tests installs.
package enum TestEnvironment {
    /// A new empty folder under the system's temporary folder.
    package static func temporaryDirectory(_ name: String = #function) throws -> URL {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("runanywhere-tests-\(safe)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The models folder scripts/setup fills.
    package static var installedModelsDirectory: URL {
        RuntimeConfiguration.homeDirectory().appendingPathComponent("models")
    }

    /// The default model file, when scripts/setup has installed it.
    package static var defaultModelFile: URL? {
        let url = installedModelsDirectory.appendingPathComponent("\(RunAnywhere.defaultModelID)/SmolLM2-135M-Instruct.Q4_1.gguf")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// The default embedding model's GGUF (all-MiniLM-L6-v2, converted by scripts/setup), when installed.
    package static var embeddingModelFile: URL? {
        let id = SDKConstants.Models.defaultEmbeddingModelID
        let url = installedModelsDirectory.appendingPathComponent("\(id)/\(id).gguf")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// The libllama scripts/setup --tests installs, when present.
    package static var llamaLibrary: URL? {
        let url = RuntimeConfiguration.homeDirectory().appendingPathComponent("engines/llama.cpp/lib/libllama.so")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// The Python of the venv scripts/setup makes (llama-cpp-python, the `openai` client), when present.
    package static var venvPython: URL? {
        let url = RuntimeConfiguration.homeDirectory().appendingPathComponent("engines/venv/bin/python")
        return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
    }

    /// Whether `python` imports `module` (asked once per module and process).
    package static func pythonHas(_ module: String, python: URL) -> Bool {
        if let known = importable.withLock({ $0[module] }) { return known }
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", "import \(module)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let found =
            (try? process.run()).map {
                process.waitUntilExit()
                return process.terminationStatus == 0
            } ?? false
        importable.withLock { $0[module] = found }
        return found
    }

    private static let importable = Mutex<[String: Bool]>([:])

    /// Debian's ffmpeg command, which scripts/setup --tests installs for the tests to encode audio with.
    package static var ffmpeg: URL? {
        ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].map(URL.init(fileURLWithPath:)).first {
            FileManager.default.isExecutableFile(atPath: $0.path)
        }
    }

    /// `input` (any audio file) re-encoded by ffmpeg as a `container` file ("mp3", "ogg", "webm",
    /// "flac", "ipod" for M4A, "wav"…), with `arguments` added (a codec, a rate, channels).
    package static func encodeAudio(_ input: Data, as container: String, _ arguments: [String] = []) throws -> Data {
        guard let ffmpeg else { throw SDKError(.frameworkNotAvailable, "ffmpeg is not installed; run scripts/setup --tests --build tests") }
        let folder = try temporaryDirectory("encode")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("input")
        let output = folder.appendingPathComponent("output")
        try input.write(to: source)
        let process = Process()
        process.executableURL = ffmpeg
        process.arguments = ["-loglevel", "error", "-y", "-i", source.path] + arguments + ["-f", container, output.path]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw SDKError(.invalidInput, "ffmpeg could not make a \(container) file") }
        return try Data(contentsOf: output)
    }

    /// Whether scripts/setup has installed llama.cpp and the default model.
    package static var engineInstalled: Bool { llamaLibrary != nil && defaultModelFile != nil }

    /// The folder of the vision-language fixture scripts/setup --tests writes (SmolVLM's shape, random
    /// weights), when it is there with libmtmd beside libllama.
    package static var visionFixture: URL? {
        let folder = installedModelsDirectory.appendingPathComponent(SDKConstants.Models.visionFixtureID)
        let files = ["SmolVLM-fixture.gguf", "mmproj-SmolVLM-fixture.gguf"].map { folder.appendingPathComponent($0).path }
        guard let llamaLibrary, files.allSatisfy(FileManager.default.fileExists(atPath:)),
            FileManager.default.fileExists(atPath: llamaLibrary.deletingLastPathComponent().appendingPathComponent("libmtmd.so").path)
        else { return nil }
        return folder
    }

    /// The fill-in-the-middle fixture scripts/setup --tests writes (a code model's tokens, random
    /// weights), when it is there with libllama.
    package static var infillFixture: URL? {
        let file = installedModelsDirectory.appendingPathComponent(
            "\(SDKConstants.Models.infillFixtureID)/\(SDKConstants.Models.infillFixtureID).gguf")
        return llamaLibrary != nil && FileManager.default.fileExists(atPath: file.path) ? file : nil
    }

    /// The SentencePiece fixture scripts/setup --tests writes (Llama's vocabulary with ChatML's
    /// turn tokens, random weights), when it is there with libllama.
    package static var sentencePieceFixture: URL? {
        let file = RuntimeConfiguration.homeDirectory().appendingPathComponent("fixtures/spm-fixture.gguf")
        return llamaLibrary != nil && FileManager.default.fileExists(atPath: file.path) ? file : nil
    }

    /// The image-generation fixture scripts/setup --tests writes (a tiny FLUX.2 klein-shaped model, random
    /// weights), when it is there with libstable-diffusion.
    package static var diffusionFixture: URL? {
        let file = installedModelsDirectory.appendingPathComponent(
            "\(SDKConstants.Models.diffusionFixtureID)/\(SDKConstants.Models.diffusionFixtureID).gguf")
        let library = RuntimeConfiguration.homeDirectory().appendingPathComponent("engines/stable-diffusion.cpp/lib/libstable-diffusion.so")
        return [file, library].allSatisfy { FileManager.default.fileExists(atPath: $0.path) } ? file : nil
    }

    /// `width`×`height` pixels of the colour `rgb` as an image file of `format` ("png", "mjpeg"
    /// for JPEG, "gif", "bmp"), written by ffmpeg.
    package static func encodeImage(width: Int, height: Int, rgb: (UInt8, UInt8, UInt8) = (255, 0, 0), as format: String = "png") throws
        -> Data
    {
        guard let ffmpeg else { throw SDKError(.frameworkNotAvailable, "ffmpeg is not installed; run scripts/setup --tests --build tests") }
        let folder = try temporaryDirectory("image")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("image")
        let colour = String(format: "0x%02X%02X%02X", rgb.0, rgb.1, rgb.2)
        let process = Process()
        process.executableURL = ffmpeg
        process.arguments = [
            "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=\(colour):s=\(width)x\(height)", "-frames:v", "1",
            "-f", format == "png" || format == "bmp" || format == "gif" ? "image2" : format, "-c:v", format == "mjpeg" ? "mjpeg" : format,
            output.path,
        ]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw SDKError(.invalidInput, "ffmpeg could not make a \(format) image") }
        return try Data(contentsOf: output)
    }

    /// Seeded cases per fuzz test: `RUNANYWHERE_FUZZ_CASES`, or `standard` (long runs set the
    /// variable, e.g. to 500).
    package static func fuzzCases(standard: Int = 40) -> Int {
        ProcessInfo.processInfo.environment["RUNANYWHERE_FUZZ_CASES"].flatMap { Int($0) } ?? standard
    }

    /// Whether scripts/setup has installed the speech models (Whisper tiny.en, Silero VAD, the
    /// Piper voice) and the eSpeak NG headers.
    package static var speechInstalled: Bool {
        ["whisper-tiny.en/ggml-tiny.en.bin", "silero-vad/silero-v6.2.0-ggml.bin", "piper-en_US-joe-medium/tokens.txt"]
            .allSatisfy { FileManager.default.fileExists(atPath: installedModelsDirectory.appendingPathComponent($0).path) }
            && FileManager.default.fileExists(atPath: "/usr/include/espeak-ng/speak_lib.h")
    }

    /// Whether scripts/setup --tests has installed Whisper base, the multilingual speech model
    /// (other languages, translation to English), besides the speech models.
    package static var multilingualSpeechInstalled: Bool {
        speechInstalled
            && FileManager.default.fileExists(atPath: installedModelsDirectory.appendingPathComponent("whisper-base/ggml-base.bin").path)
    }

    /// Whether llama.cpp's Vulkan variant is installed (`RUNANYWHERE_GPU=vulkan scripts/setup`) and
    /// Mesa's CPU Vulkan driver (lavapipe, Debian's mesa-vulkan-drivers) is there to run it: then
    /// `GGML_VK_VISIBLE_DEVICES=0` gives the variant a real Vulkan device on a machine without a GPU.
    package static var vulkanOnLavapipe: Bool {
        let variant = RuntimeConfiguration.homeDirectory().appendingPathComponent("engines/llama.cpp-gpu").resolvingSymlinksInPath()
        return variant.lastPathComponent.hasPrefix("llama.cpp-vulkan-")
            && FileManager.default.fileExists(atPath: variant.appendingPathComponent("lib/libllama.so").path)
            && GPUDrivers.current().vulkanDrivers.contains { $0.hasPrefix("lvp_icd.") }
    }

    /// Whether scripts/setup has installed LiteRT (libLiteRt.so from the ai-edge-litert wheel, for
    /// the platforms that wheel is built for).
    package static var liteRTInstalled: Bool {
        FileManager.default.fileExists(
            atPath: RuntimeConfiguration.homeDirectory().appendingPathComponent("engines/litert/lib/libLiteRt.so").path)
    }

    /// Writes the first `bytes` bytes of `source` to `destination`: a truncated model file.
    package static func writeTruncatedCopy(of source: URL, to destination: URL, bytes: Int) throws {
        let handle = try FileHandle(forReadingFrom: source)
        defer { try? handle.close() }
        try (handle.read(upToCount: bytes) ?? Data()).write(to: destination)
    }

    /// A port nothing listens on now (the kernel's pick for a socket bound to port 0).
    package static func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw SDKError(.networkError, "no socket") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw SDKError(.networkError, "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts connections on loopback `port`.
    package static func listening(_ port: Int) -> Bool {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(clamping: port)).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// Waits until `process` listens on loopback `port`, at most `limit`; false when it ended
    /// first or the time ran out.
    package static func waitUntilListening(_ port: Int, by process: Process, within limit: Duration = .seconds(60)) -> Bool {
        let deadline = ContinuousClock.now + limit
        while !listening(port) {
            guard process.isRunning, ContinuousClock.now < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return true
    }
}
