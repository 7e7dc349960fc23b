import Foundation
import Logging
import RunAnywhereTestSupport
import SQLiteNIO
import Testing

@testable import RunAnywhere

/// An SQLite file's connection is closed whatever ends its work, a cancelled task included:
/// sqlite-nio's `async` close is dropped by NIO's thread pool in a cancelled task, which left the
/// file open (and failed sqlite-nio's assertion, taking a debug server down, when a background
/// response was cancelled while it was being stored).
@Suite struct SQLiteFileTests {
    /// This process's open file descriptors on `url`.
    static func openDescriptors(on url: URL) throws -> Int {
        let folder = "/proc/self/fd"
        return try FileManager.default.contentsOfDirectory(atPath: folder).count { name in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(name)")) == url.path
        }
    }

    @Test func aCancelledTaskStillClosesTheConnection() async throws {
        let url = try TestEnvironment.temporaryDirectory().appendingPathComponent("cancelled.sqlite")
        let file = SQLiteFile(url: url, logger: Logger(label: "test"), schema: ["CREATE TABLE IF NOT EXISTS t (x INTEGER)"])
        for _ in 0..<3 {
            let task = Task {
                try await file.withConnection { connection in
                    withUnsafeCurrentTask { $0?.cancel() }
                    _ = try await connection.query("INSERT INTO t (x) VALUES (1)")
                }
            }
            _ = await task.result
            #expect(task.isCancelled)
            #expect(try Self.openDescriptors(on: url) == 0, "the connection of a cancelled task is closed")
        }
        let rows = try await file.withConnection { try await $0.query("SELECT count(*) AS n FROM t") }
        #expect(rows.first?.column("n")?.integer != nil)
        #expect(try Self.openDescriptors(on: url) == 0)
    }

    @Test func aNamedDatabaseIsAFileInAFolderThatExists() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try SQLiteFile.named(folder.path + "/new.sqlite").path == folder.path + "/new.sqlite")
        let asFolder = try #require(throws: SDKError.self) { try SQLiteFile.named(folder.path) }
        #expect(asFolder.code == .invalidInput && asFolder.message.contains("is a folder"), "\(asFolder.message)")
        let missing = try #require(throws: SDKError.self) { try SQLiteFile.named(folder.path + "/no/such.sqlite") }
        #expect(missing.message.contains("No such folder \(folder.path)/no "), "\(missing.message)")
        #expect(throws: SDKError.self) { try SQLiteFile.named(folder.path + "/new/") }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/no"), "nothing is made")
    }
}
