import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// The package builds with no engine installed because its C loaders declare the engine functions,
/// types and constants they use themselves (`Sources/C*/include/*_declarations.h`). These tests keep
/// those declarations equal to the engines' real headers, which scripts/setup installs under
/// `$RUNANYWHERE_HOME/engines`, through `scripts/check-declarations` (clang's AST of both sides),
/// and keep every header in `Sources/` free of paths outside the package.
@Suite struct EngineDeclarationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let engines = RuntimeConfiguration.homeDirectory().appendingPathComponent("engines")

    /// Each declarations file and the engine headers it mirrors (relative to the engines cache).
    static let pairs: [(ours: String, real: [String])] = [
        ("Sources/CLlamaCpp/include/ra_llama_declarations.h", ["llama.cpp/include/llama.h", "llama.cpp/include/ggml-rpc.h"]),
        ("Sources/CLlamaCpp/include/ra_mtmd_declarations.h", ["llama.cpp/include/mtmd.h", "llama.cpp/include/mtmd-helper.h"]),
        ("Sources/CWhisperCpp/include/ra_whisper_declarations.h", ["whisper.cpp/include/whisper.h", "whisper.cpp/include/ggml-backend.h"]),
        ("Sources/CStableDiffusion/include/ra_sd_declarations.h", ["stable-diffusion.cpp/include/stable-diffusion.h"]),
        ("Sources/CSherpaOnnx/include/ra_sherpa_declarations.h", ["sherpa-onnx/include/sherpa-onnx/c-api/c-api.h"]),
        ("Sources/CEspeakNG/include/ra_espeak_declarations.h", ["espeak-ng/include/speak_lib.h"]),
        ("Sources/CPoppler/include/ra_poppler_declarations.h", ["poppler/include/poppler.h"]),
    ]

    /// The folders a pair's real headers include from, beyond their own: for Poppler's, those
    /// pkg-config named to scripts/setup (GLib's, cairo's), one per line in
    /// `engines/poppler/include-paths`.
    static func includes(_ pair: (ours: String, real: [String])) -> [String] {
        let engine = pair.real[0].split(separator: "/")[0]
        let list = engines.appendingPathComponent("\(engine)/include-paths")
        return ((try? String(contentsOf: list, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Runs scripts/check-declarations on `ours` against `real` (absolute paths), the headers
    /// found in `includes` too.
    static func check(_ ours: String, against real: [String], includes: [String] = []) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["python3", root.appendingPathComponent("scripts/check-declarations").path, ours] + real + includes.flatMap { ["-I", $0] }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    /// The real headers of `pair`, or a recorded issue naming the set-up that installs them.
    static func realHeaders(_ pair: (ours: String, real: [String])) -> [String]? {
        let paths = pair.real.map { engines.appendingPathComponent($0).path }
        if let missing = paths.first(where: { !FileManager.default.fileExists(atPath: $0) }) {
            Issue.record("\(missing) is missing: scripts/setup installs the engines' headers that \(pair.ours) is checked against")
            return nil
        }
        return paths
    }

    @Test(arguments: pairs.map(\.ours))
    func declarationsMatchTheEngineHeaders(_ ours: String) throws {
        let pair = try #require(Self.pairs.first { $0.ours == ours })
        guard let real = Self.realHeaders(pair) else { return }
        let result = try Self.check(Self.root.appendingPathComponent(ours).path, against: real, includes: Self.includes(pair))
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains(", 0 different from"), "\(result.output)")
    }

    /// A declaration that drifted from the engine (a field's type, an enum's value, also in an
    /// anonymous `typedef enum`) is reported by name.
    @Test func aDriftedDeclarationIsReported() throws {
        let drifts: [(pair: Int, from: String, to: String, reported: String)] = [
            (0, "uint32_t n_ctx;", "uint64_t n_ctx;", "llama_context_params.n_ctx: 'uint64_t' here, 'uint32_t' in the engine"),
            (0, "int32_t n_tokens;", "int64_t n_tokens;", "llama_batch.n_tokens"),
            (0, "GGML_BACKEND_DEVICE_TYPE_GPU,", "GGML_BACKEND_DEVICE_TYPE_GPU = 7,", "enum ggml_backend_dev_type"),
            (5, "EE_NOT_FOUND = 2", "EE_NOT_FOUND = 3", "enum espeak_ERROR"),
            (6, "gint code;", "guint32 code;", "_GError.code"),
        ]
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        for drift in drifts {
            let pair = Self.pairs[drift.pair]
            guard let real = Self.realHeaders(pair) else { return }
            let original = try String(contentsOf: Self.root.appendingPathComponent(pair.ours), encoding: .utf8)
            #expect(original.contains(drift.from), "\(pair.ours) no longer holds \(drift.from)")
            let copy = folder.appendingPathComponent("drifted.h")
            try original.replacingOccurrences(of: drift.from, with: drift.to).write(to: copy, atomically: true, encoding: .utf8)
            let result = try Self.check(copy.path, against: real, includes: Self.includes(pair))
            #expect(result.status == 1, "\(drift.to): \(result.output)")
            #expect(result.output.contains(drift.reported), "\(drift.to): \(result.output)")
        }
    }

    /// No header or source in the package reaches outside it (the `.deps` link set-up once made,
    /// a relative path up and out): a package that depends on this one builds from its files alone.
    @Test func theCTargetsIncludeNothingOutsideThePackage() throws {
        let sources = Self.root.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)).compactMap { $0 as? URL }
            .filter { ["h", "c", "cpp"].contains($0.pathExtension) }
        #expect(files.count >= 20)
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for line in text.split(separator: "\n") where line.trimmingCharacters(in: .whitespaces).hasPrefix("#include") {
                #expect(!line.contains("..") && !line.contains(".deps"), "\(file.lastPathComponent): \(line)")
            }
        }
    }
}
