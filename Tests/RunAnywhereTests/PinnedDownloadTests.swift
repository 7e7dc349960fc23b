import Crypto
import Foundation
import RunAnywhereTestSupport
import Testing

/// scripts/requirements/fetch-sdist, which set-up downloads the engines' source distributions with:
/// run against a real package index on 127.0.0.1 (PEP 691's JSON simple API), it keeps a file
/// whose sha256 the lock lists and refuses, leaving nothing behind, one whose sha256 it does not.
/// And the checked-in locks pin every file they name by sha256, each package at one version.
@Suite struct PinnedDownloadTests {
    static let requirements = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/requirements")

    /// Runs fetch-sdist for `demo-engine` 1.2.0 from an index serving `archive`, with a lock listing `pinned`.
    private func fetch(archive: Data, pinned: [String]) async throws -> (status: Int32, output: String, folder: URL) {
        let work = try TestEnvironment.temporaryDirectory()
        let index = """
            {"meta": {"api-version": "1.0"}, "name": "demo-engine", "files": [
              {"filename": "demo_engine-1.1.0.tar.gz", "url": "/files/old.tar.gz", "hashes": {}},
              {"filename": "demo_engine-1.2.0.tar.gz", "url": "/files/demo_engine-1.2.0.tar.gz", "hashes": {}},
              {"filename": "demo_engine-1.2.0-py3-none-any.whl", "url": "/files/wheel.whl", "hashes": {}}]}
            """
        let server = try await TestHTTPServer.start(routes: [
            "/simple/demo-engine/": .file(Data(index.utf8)), "/files/demo_engine-1.2.0.tar.gz": .file(archive),
        ])
        defer { Task { try? await server.shutdown() } }
        let lock = work.appendingPathComponent("run.txt")
        let hashes = pinned.map { "    --hash=sha256:\($0)" }.joined(separator: " \\\n")
        try "other==1.0 \\\n    --hash=sha256:\(String(repeating: "a", count: 64))\ndemo-engine==1.2.0 \\\n\(hashes)\n    # via -r run.in\n"
            .write(to: lock, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", Self.requirements.appendingPathComponent("fetch-sdist").path, lock.path, "demo-engine",
            work.appendingPathComponent("downloads").path,
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(["PIP_INDEX_URL": server.url("/simple").absoluteString]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text, work.appendingPathComponent("downloads"))
    }

    private static func sha256(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    @Test func aFileWhoseHashIsPinnedIsKept() async throws {
        let archive = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let result = try await fetch(archive: archive, pinned: [String(repeating: "b", count: 64), Self.sha256(archive)])
        #expect(result.status == 0, "\(result.output)")
        let saved = result.folder.appendingPathComponent("demo_engine-1.2.0.tar.gz")
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == saved.path)
        #expect(FileManager.default.contents(atPath: saved.path) == archive)
    }

    @Test func aFileWhoseHashIsNotPinnedIsRefusedAndNotKept() async throws {
        let archive = Data("a tampered archive".utf8)
        let result = try await fetch(archive: archive, pinned: [String(repeating: "c", count: 64)])
        #expect(result.status == 1)
        #expect(result.output.contains("demo_engine-1.2.0.tar.gz has sha256 \(Self.sha256(archive))"), "\(result.output)")
        #expect(result.output.contains("does not list for demo-engine==1.2.0; nothing was kept"))
        let left = (try? FileManager.default.contentsOfDirectory(atPath: result.folder.path)) ?? []
        #expect(left.isEmpty, "left behind: \(left)")
    }

    @Test func everyLockedFileIsPinnedBySHA256() throws {
        var versions: [String: String] = [:]
        for name in ["run.txt", "tests.txt", "files.txt"] {
            let text = try String(contentsOf: Self.requirements.appendingPathComponent(name), encoding: .utf8)
            let entries = text.split(separator: "\n").filter { $0.first?.isLetter == true }
            for pin in entries.map({ $0.split(separator: " ")[0].split(separator: "=") }) where pin.count == 2 {
                let (package, version) = (String(pin[0]), String(pin[1]))
                #expect(versions[package, default: version] == version, "\(package) is pinned at two versions")
                versions[package] = version
            }
            #expect(entries.count >= 4, "\(name) has \(entries.count) entries")
            for entry in entries {
                #expect(entry.contains("==") && entry.hasSuffix(" \\"), "\(name): \(entry) is not pinned with hashes")
            }
            #expect(!text.contains("--find-links") && !text.contains("--index-url"), "\(name) names no other index")
        }
    }
}
