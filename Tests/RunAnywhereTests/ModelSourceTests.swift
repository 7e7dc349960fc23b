import Foundation
import NIOCore
import RunAnywhereTestSupport
import Testing
import ZIPFoundation

@testable import RunAnywhere

@Suite struct FormatDetectionTests {
    /// Real-world URL shapes and what they point to.
    @Test func formatsFromURLs() {
        let table: [(String, ModelFormat, ArchiveType?)] = [
            ("https://huggingface.co/LiquidAI/LFM2-350M-GGUF/resolve/main/LFM2-350M-Q4_K_M.gguf", .gguf, nil),
            (
                "https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct-GGUF/resolve/main/qwen2.5-0.5b-instruct-q6_k.gguf?download=true", .gguf,
                nil
            ),
            ("https://huggingface.co/bartowski/Llama-3.2-1B-Instruct-GGUF/blob/main/Llama-3.2-1B-Instruct-Q6_K.gguf", .gguf, nil),
            ("https://huggingface.co/rhasspy/piper-voices/resolve/v1.0.0/en/en_US/joe/medium/en_US-joe-medium.onnx", .onnx, nil),
            ("https://huggingface.co/ggerganov/whisper.cpp/resolve/main/ggml-tiny.en.bin", .bin, nil),
            ("https://github.com/k2-fsa/sherpa-onnx/releases/download/tts-models/vits-piper-en_US-amy-low.tar.bz2", .unknown, .tarBz2),
            ("https://example.com/models/voice.tar.gz?token=abc", .unknown, .tarGz),
            ("https://example.com/bundle.zip", .unknown, .zip),
            ("https://huggingface.co/org/model/resolve/main/model.safetensors", .safetensors, nil),
            ("https://example.com/download?id=42", .unknown, nil),
            ("file:///home/me/Models/My%20Model.Q8_0.gguf", .gguf, nil),
        ]
        for (text, format, archive) in table {
            let url = URL(string: text)!
            #expect(ModelFormat.detectFromURL(url) == format, "\(text)")
            #expect(ArchiveType.from(path: url.path) == archive, "\(text)")
        }
    }

    @Test func formatsFromHeaders() {
        #expect(ModelFormat.sniff(Array(GGUFWriter.tinyLlama().data().prefix(64))) == .gguf)
        #expect(ModelFormat.sniff([0x6C, 0x6D, 0x67, 0x67, 1, 0, 0, 0, 0]) == .ggml)
        let header = Array(#"{"w":{"dtype":"F32"}}"#.utf8)
        #expect(ModelFormat.sniff(withUnsafeBytes(of: UInt64(header.count).littleEndian, Array.init) + header) == .safetensors)
        #expect(ModelFormat.sniff([0x08, 0x07, 0x12, 0x07] + Array("pytorch".utf8)) == .onnx)
        #expect(ModelFormat.sniff(Array("<!DOCTYPE html><html>".utf8)) == .unknown)
        #expect(ModelFormat.sniff([1, 2]) == .unknown)
    }
}

@Suite(.inProcessLane, .serialized) struct ModelSourceTests {
    @Test func incompatibleCombinationsAreRefusedBeforeAnyDownload() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let rt = runtime(folder)
        let cases: [(URL, ModelCategory, InferenceFramework?, String)] = [
            (URL(string: "ftp://example.com/m.gguf")!, .language, .llamaCpp, "use http, https or file"),
            (URL(string: "https://example.com/voice.onnx")!, .language, .llamaCpp, "this URL points to a onnx file"),
            (URL(string: "https://example.com/m.gguf")!, .speechSynthesis, .llamaCpp, "llama.cpp does not run text-to-voice"),
            (URL(string: "https://example.com/m.mlmodel")!, .language, .coreml, "only available on Apple platforms"),
            (URL(string: "https://example.com/whisper.bin")!, .speechRecognition, nil, "No installed framework runs voice-to-text"),
        ]
        for (url, category, framework, fragment) in cases {
            let error = try #require(throws: SDKError.self, "\(url)") {
                try rt.addModel(from: url, category: category, framework: framework)
            }
            #expect(error.message.contains(fragment), "\(url): \(error.message)")
        }
        #expect(
            (try #require(throws: SDKError.self) {
                try rt.addModel(from: URL(string: "https://e.com/m.gguf")!, category: .language, framework: .llamaCpp, sha256: "xyz")
            }).message.contains("64 hexadecimal"))
        let unsafe = try rt.addModel(
            from: URL(string: "https://e.com/..%2F..%2Fetc%2Fpasswd.gguf")!, category: .language, framework: .llamaCpp)
        #expect(!unsafe.id.contains("/") && !unsafe.id.contains(".."), "derived ids are safe: \(unsafe.id)")
        #expect(rt.availableModels().filter { $0.source == .local }.count == 1, "refused models were not registered")
    }

    @Test func aFileWhoseExtensionLiesIsJudgedByItsHeader() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let gguf = GGUFWriter.tinyLlama().data()
        let server = try await TestHTTPServer.start(routes: [
            "/weights.bin": .file(gguf), "/model.gguf": .file(Data("<!DOCTYPE html><html>Please log in</html>".utf8)),
        ])
        defer { Task { try? await server.shutdown() } }
        let rt = runtime(folder)
        let renamed = try rt.addModel(from: server.url("/weights.bin"), category: .language, framework: .llamaCpp)
        #expect(await download(rt, renamed.id) == nil)
        #expect(try rt.model(id: renamed.id).format == .gguf, "the header says GGUF")
        let page = try rt.addModel(from: server.url("/model.gguf"), category: .language, framework: .llamaCpp)
        let error = await download(rt, page.id) as? SDKError
        #expect(error?.code == .invalidModelFormat && error?.message.contains("not a model file") == true)
        #expect(!(try rt.model(id: page.id).isDownloaded), "the page was deleted")
    }

    @Test func zipArchivesAreExtractedAndEscapingEntriesRefused() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        func zip(_ entries: [(String, Data)]) throws -> Data {
            let url = folder.appendingPathComponent("\(UUID()).zip")
            let archive = try Archive(url: url, accessMode: .create)
            for (path, data) in entries {
                try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count)) { position, size in
                    data.subdata(in: Int(position)..<Int(position) + size)
                }
            }
            return try Data(contentsOf: url)
        }
        let good = try zip([("voice/model.gguf", GGUFWriter.tinyLlama().data()), ("voice/README.txt", Data("hi".utf8))])
        let evil = try zip([("ok.gguf", Data("x".utf8)), ("../../escaped.txt", Data("pwned".utf8))])
        let server = try await TestHTTPServer.start(routes: ["/good.zip": .file(good), "/evil.zip": .file(evil)])
        defer { Task { try? await server.shutdown() } }
        let rt = runtime(folder)
        let model = try rt.addModel(from: server.url("/good.zip"), category: .language, framework: .llamaCpp)
        #expect(model.artifactType == .archive(.zip))
        #expect(await download(rt, model.id) == nil)
        let stored = try rt.model(id: model.id)
        #expect(stored.isDownloaded)
        #expect(stored.primaryFile?.lastPathComponent == "model.gguf")
        let bad = try rt.addModel(from: server.url("/evil.zip"), category: .language, framework: .llamaCpp)
        let error = await download(rt, bad.id) as? SDKError
        #expect(error?.message.contains("outside the model folder") == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("escaped.txt").path))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("models/escaped.txt").path))
        #expect(!(try rt.model(id: bad.id).isDownloaded))
    }

    @Test func tarArchivesWithEscapingEntriesAreRefused() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        func tar(_ names: [String], mode: String) throws -> Data {
            let url = folder.appendingPathComponent("\(UUID()).tar")
            let script =
                "import io, sys, tarfile\nwith tarfile.open(sys.argv[1], 'w:\(mode)') as t:\n    for name in sys.argv[2:]:\n        data = b'GGUF' + bytes(60)\n        info = tarfile.TarInfo(name); info.size = len(data); t.addfile(info, io.BytesIO(data))\n"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", script, url.path] + names
            try process.run()
            process.waitUntilExit()
            return try Data(contentsOf: url)
        }
        let server = try await TestHTTPServer.start(routes: [
            "/good.tar.gz": .file(try tar(["pack/model.gguf"], mode: "gz")),
            "/evil.tar.bz2": .file(try tar(["model.gguf", "../../escaped.gguf"], mode: "bz2")),
            "/absolute.tar.gz": .file(try tar(["/tmp/absolute-\(UUID()).gguf"], mode: "gz")),
        ])
        defer { Task { try? await server.shutdown() } }
        let rt = runtime(folder)
        let good = try rt.addModel(from: server.url("/good.tar.gz"), category: .language, framework: .llamaCpp)
        #expect(await download(rt, good.id) == nil)
        #expect(try rt.model(id: good.id).primaryFile?.lastPathComponent == "model.gguf")
        for path in ["/evil.tar.bz2", "/absolute.tar.gz"] {
            let bad = try rt.addModel(from: server.url(path), category: .language, framework: .llamaCpp)
            let error = await download(rt, bad.id) as? SDKError
            #expect(error?.message.contains("outside the model folder") == true, "\(path): \(String(describing: error))")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("escaped.gguf").path))
    }

    @Test func multiFileModelsDownloadEveryFile() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let main = GGUFWriter.tinyLlama().data()
        let projector = Data(repeating: 3, count: 70_000)
        let server = try await TestHTTPServer.start(routes: ["/model.gguf": .file(main), "/mmproj.gguf": .file(projector)])
        defer { Task { try? await server.shutdown() } }
        let rt = runtime(folder)
        let files = [ModelFileDescriptor(url: server.url("/model.gguf")), ModelFileDescriptor(url: server.url("/mmproj.gguf"))]
        let model = ModelInfo(
            id: "vision", name: "Vision", category: .multimodal, format: .gguf, framework: .llamaCpp,
            localPath: folder.appendingPathComponent("models/vision"), artifactType: .multiFile(files), source: .local
        )
        try rt.catalog.add(model)
        #expect(!(try rt.model(id: "vision").isDownloaded))
        var totals: Set<Int64?> = []
        for try await update in try rt.downloadModelWithProgress("vision") { totals.insert(update.totalBytes) }
        #expect(totals.contains(Int64(main.count + projector.count)), "one progress over all files")
        let stored = try rt.model(id: "vision")
        #expect(stored.isDownloaded)
        #expect(stored.primaryFile?.lastPathComponent == "model.gguf", "the projector is never the primary file")
    }

    @Test func storageInfoAndDelete() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bytes = GGUFWriter.tinyLlama().data()
        let server = try await TestHTTPServer.start(routes: ["/m.gguf": .file(bytes)])
        defer { Task { try? await server.shutdown() } }
        let rt = runtime(folder)
        let model = try rt.addModel(from: server.url("/m.gguf"), category: .language, framework: .llamaCpp)
        #expect(await download(rt, model.id) == nil)
        let info = rt.storageInfo()
        #expect(info.models.map(\.modelId) == [model.id])
        #expect(info.models.first?.sizeBytes == Int64(bytes.count) && info.totalModelBytes == Int64(bytes.count))
        #expect((info.freeBytes ?? 0) > 0)
        let external = folder.appendingPathComponent("mine.gguf")
        try bytes.write(to: external)
        let registered = try rt.registerModel(id: "mine", name: "Mine", url: external, framework: .llamaCpp)
        try await rt.deleteStoredModel(registered.id)
        #expect(FileManager.default.fileExists(atPath: external.path), "a file registered where it lies is not deleted")
        try await rt.deleteStoredModel(model.id)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("models/\(model.id)").path))
        #expect(throws: SDKError.self) { try rt.model(id: model.id) }
        #expect(rt.storageInfo().models.isEmpty)
    }
}
