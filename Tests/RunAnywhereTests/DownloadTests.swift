import Foundation
import NIOCore
import RunAnywhereTestSupport
import Testing
import ZIPFoundation

@testable import RunAnywhere

/// Downloads against a real HTTP server on 127.0.0.1.
@Suite(.inProcessLane, .serialized) struct DownloadTests {
    /// A valid-looking GGUF (its header) padded to `size` bytes of pseudo-random data.
    static func modelBytes(_ size: Int, seed: UInt64 = 7) -> Data {
        var data = GGUFWriter.tinyLlama().data()
        var state = seed
        while data.count < size {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            data.append(UInt8(truncatingIfNeeded: state >> 33))
        }
        return data
    }

    @Test func progressIsMonotonicAndEndsComplete() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bytes = Self.modelBytes(2 << 20)
        let server = try await TestHTTPServer.start(routes: ["/m.gguf": .file(bytes, delayPerChunk: .milliseconds(4))])
        defer { Task { try? await server.shutdown() } }
        let rt = runtime(folder)
        let events = rt.events.subscribe()
        let model = try rt.addModel(
            from: server.url("/m.gguf"), category: .language, framework: .llamaCpp, sha256: FileDigestHelper.sha256(bytes))
        let (updates, error) = await collect(try rt.downloadModelWithProgress(model.id))
        #expect(error == nil)
        #expect(updates.count >= 4, "progress arrives several times a second (\(updates.count) updates)")
        #expect(zip(updates, updates.dropFirst()).allSatisfy { $0.bytesDownloaded <= $1.bytesDownloaded && $0.percentage <= $1.percentage })
        #expect(updates.last?.state == .completed && updates.last?.percentage == 1)
        #expect(updates.contains { $0.state == .verifying })
        #expect(updates.contains { ($0.speed ?? 0) > 0 && $0.estimatedTimeRemaining != nil })
        #expect(updates.first { $0.state == .downloading }?.totalBytes == Int64(bytes.count))
        let stored = try rt.model(id: model.id)
        #expect(stored.isDownloaded)
        #expect(try Data(contentsOf: try #require(stored.localPath)) == bytes)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("models/\(model.id)").path) == ["m.gguf"],
            "no partial files are left")
        var published = 0
        for await event in events {
            if case .downloadProgress(let progress) = event, progress.modelId == model.id { published += 1 }
            if published == updates.count { break }
        }
        #expect(published == updates.count, "progress is also published on the event stream")
    }

    @Test func aTransferCutHalfwayResumesWithARangeRequest() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bytes = Self.modelBytes(1 << 20)
        let server = try await TestHTTPServer.start(routes: ["/m.gguf": .file(bytes, cutFirstAfter: 1 << 19)])
        defer { Task { try? await server.shutdown() } }
        let rt = runtime(folder)
        let model = try rt.addModel(
            from: server.url("/m.gguf"), category: .language, framework: .llamaCpp, sha256: FileDigestHelper.sha256(bytes))
        let (updates, error) = await collect(try rt.downloadModelWithProgress(model.id))
        #expect(error == nil)
        let ranges = server.requests.map(\.range)
        #expect(ranges.count == 2 && ranges[0] == nil)
        let resumedAt = Int(ranges.last??.dropFirst(6).dropLast() ?? "") ?? 0
        #expect(resumedAt > 0 && resumedAt <= 1 << 19, "the second request asks only for the rest, from \(resumedAt)")
        #expect(updates.last?.state == .completed)
        #expect(zip(updates, updates.dropFirst()).allSatisfy { $0.bytesDownloaded <= $1.bytesDownloaded })
        #expect(try Data(contentsOf: try #require(try rt.model(id: model.id).localPath)) == bytes)
    }

    @Test func aChecksumMismatchDeletesTheFile() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await TestHTTPServer.start(routes: ["/m.gguf": .file(Self.modelBytes(100_000))])
        defer { Task { try? await server.shutdown() } }
        let rt = runtime(folder)
        let model = try rt.addModel(
            from: server.url("/m.gguf"), category: .language, framework: .llamaCpp, sha256: String(repeating: "ab", count: 32))
        let (updates, error) = await collect(try rt.downloadModelWithProgress(model.id))
        #expect((error as? SDKError)?.code == .checksumMismatch)
        guard case .failed(let failure)? = updates.last?.state else {
            Issue.record("the last update says failed")
            return
        }
        #expect(failure.message.contains("not the expected"))
        #expect(!(try rt.model(id: model.id).isDownloaded))
    }

    @Test func httpErrorsAreClear() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await TestHTTPServer.start(routes: [
            "/gone.gguf": .status(404), "/gated.gguf": .status(401), "/forbidden.gguf": .status(403),
        ])
        defer { Task { try? await server.shutdown() } }
        let rt = runtime(folder)
        for (path, code, fragment) in [
            ("/gone.gguf", ErrorCode.downloadFailed, "HTTP 404"), ("/gated.gguf", .unauthorized, "HF_TOKEN"),
            ("/forbidden.gguf", .unauthorized, "access token"),
        ] {
            let model = try rt.addModel(from: server.url(path), category: .language, framework: .llamaCpp)
            let (_, error) = await collect(try rt.downloadModelWithProgress(model.id))
            #expect((error as? SDKError)?.code == code, "\(path)")
            #expect((error as? SDKError)?.message.contains(fragment) == true, "\(path): \(String(describing: error))")
        }
        #expect(server.requests.count == 3, "client errors are not retried")
    }

    @Test func serverErrorsAreRetriedThenReported() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await TestHTTPServer.start(routes: ["/busy.gguf": .status(503)])
        defer { Task { try? await server.shutdown() } }
        let transfer = HTTPTransfer(
            url: server.url("/busy.gguf"), destination: folder.appendingPathComponent("busy.gguf"), logger: .init(label: "test"),
            maxRetries: 2, backoff: .milliseconds(10))
        let error = await #expect(throws: SDKError.self) { try await transfer.run(headers: [:]) { _, _ in } }
        #expect(error?.code == .networkError && error?.message.contains("HTTP 503") == true)
        #expect(server.requests.count == 3, "one try and two retries")
    }

    @Test func redirectsAreFollowed() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bytes = Self.modelBytes(50_000)
        let live = try await TestHTTPServer.start(routes: ["/new.gguf": .file(bytes), "/old.gguf": .redirect("/new.gguf")])
        defer { Task { try? await live.shutdown() } }
        let rt = runtime(folder)
        let model = try rt.addModel(from: live.url("/old.gguf"), category: .language, framework: .llamaCpp)
        let (_, error) = await collect(try rt.downloadModelWithProgress(model.id))
        #expect(error == nil)
        #expect(live.requests.map(\.path) == ["/old.gguf", "/new.gguf"])
        #expect(try Data(contentsOf: try #require(try rt.model(id: model.id).localPath)) == bytes)
    }

    /// Starts downloading `id` and returns, with the task reading its progress, once 100 kB have arrived.
    private func downloadUnderWay(_ rt: RunAnywhereRuntime, _ id: String) async throws -> Task<Void, any Error> {
        let stream = try rt.downloadModelWithProgress(id)
        let (seen, signal) = AsyncStream.makeStream(of: Int64.self)
        let consumer = Task {
            for try await update in stream { signal.yield(update.bytesDownloaded) }
        }
        for await bytes in seen where bytes > 100_000 { break }
        return consumer
    }

    @Test func cancellingKeepsThePartialFileAndTheNextDownloadResumes() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bytes = Self.modelBytes(1 << 20)
        let server = try await TestHTTPServer.start(routes: ["/slow.gguf": .file(bytes, delayPerChunk: .milliseconds(30))])
        defer { Task { try? await server.shutdown() } }
        let rt = runtime(folder)
        let model = try rt.addModel(from: server.url("/slow.gguf"), category: .language, framework: .llamaCpp)
        let consumer = try await downloadUnderWay(rt, model.id)
        consumer.cancel()  // what Ctrl-C does
        _ = await consumer.result
        try await Task.sleep(for: .milliseconds(200))
        let partial = folder.appendingPathComponent("models/\(model.id)/.slow.gguf.partial")
        let kept = ((try? FileManager.default.attributesOfItem(atPath: partial.path)[.size]) as? NSNumber)?.int64Value ?? 0
        #expect(kept > 0 && kept < Int64(bytes.count), "the partial file is kept (\(kept) bytes)")
        #expect(!(try rt.model(id: model.id).isDownloaded))
        let (updates, error) = await collect(try rt.downloadModelWithProgress(model.id))
        #expect(error == nil)
        #expect(updates.first.map { $0.bytesDownloaded >= kept } == true, "resumed from the kept bytes")
        #expect(server.requests.last?.range?.hasPrefix("bytes=") == true)
        #expect(try Data(contentsOf: try #require(try rt.model(id: model.id).localPath)) == bytes)
    }

    /// What the web app's Cancel then Resume does: cancelDownload returns once the download has
    /// stopped, so that the next one, started at once, resumes from the partial file.
    @Test func aCancelledDownloadHasStoppedWhenCancelReturnsAndResumesAtOnce() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bytes = Self.modelBytes(1 << 20)
        let server = try await TestHTTPServer.start(routes: ["/slow.gguf": .file(bytes, delayPerChunk: .milliseconds(30))])
        defer { Task { try? await server.shutdown() } }
        let rt = runtime(folder)
        let model = try rt.addModel(from: server.url("/slow.gguf"), category: .language, framework: .llamaCpp)
        #expect(await rt.cancelDownload(model.id) == false, "nothing to cancel yet")
        let consumer = try await downloadUnderWay(rt, model.id)
        #expect(await rt.cancelDownload(model.id))
        let first = await consumer.result
        #expect(throws: CancellationError.self) { try first.get() }
        let (updates, error) = await collect(try rt.downloadModelWithProgress(model.id))
        #expect(error == nil, "\(String(describing: error))")
        #expect(updates.last?.state == .completed)
        #expect(server.requests.last?.range?.hasPrefix("bytes=") == true, "resumed, not started again")
        #expect(try Data(contentsOf: try #require(try rt.model(id: model.id).localPath)) == bytes)
    }

    @Test func twoDownloadsAtOnceEachWithItsOwnProgress() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = Self.modelBytes(400_000, seed: 1)
        let b = Self.modelBytes(600_000, seed: 2)
        let server = try await TestHTTPServer.start(routes: [
            "/a.gguf": .file(a, delayPerChunk: .milliseconds(5)), "/b.gguf": .file(b, delayPerChunk: .milliseconds(5)),
            "/slow.gguf": .file(Self.modelBytes(1 << 20, seed: 3), delayPerChunk: .milliseconds(30)),
        ])
        defer { Task { try? await server.shutdown() } }
        let rt = runtime(folder)
        let first = try rt.addModel(from: server.url("/a.gguf"), category: .language, framework: .llamaCpp)
        let second = try rt.addModel(from: server.url("/b.gguf"), category: .language, framework: .llamaCpp)
        async let one = collect(try rt.downloadModelWithProgress(first.id))
        async let two = collect(try rt.downloadModelWithProgress(second.id))
        let (x, y) = try await (one, two)
        #expect(x.1 == nil && y.1 == nil)
        #expect(x.0.allSatisfy { $0.modelId == first.id } && y.0.allSatisfy { $0.modelId == second.id })
        #expect(x.0.last?.totalBytes == Int64(a.count) || x.0.last?.bytesDownloaded == Int64(a.count))
        #expect(try Data(contentsOf: try #require(try rt.model(id: second.id).localPath)) == b)
        let busy = try rt.addModel(from: server.url("/slow.gguf"), category: .language, framework: .llamaCpp)
        let running = try await downloadUnderWay(rt, busy.id)
        let (_, clash) = await collect(try rt.downloadModelWithProgress(busy.id))
        #expect((clash as? SDKError)?.code == .alreadyInProgress)
        try await running.value
    }

    @Test func freeSpaceIsCheckedBeforeWriting() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let free = try #require(FileDigest.freeSpace(at: folder))
        let server = try await TestHTTPServer.start(routes: ["/huge.gguf": .claims(length: free * 2)])
        defer { Task { try? await server.shutdown() } }
        let rt = runtime(folder)
        let model = try rt.addModel(from: server.url("/huge.gguf"), category: .language, framework: .llamaCpp)
        let (_, error) = await collect(try rt.downloadModelWithProgress(model.id))
        #expect((error as? SDKError)?.code == .insufficientStorage)
        #expect((error as? SDKError)?.message.contains("is free") == true)
    }
}

/// sha256 of bytes, for expected checksums.
enum FileDigestHelper {
    static func sha256(_ data: Data) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("digest-\(UUID())")
        try data.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try FileDigest.sha256(of: url)
    }
}
