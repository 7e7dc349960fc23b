import Foundation
import RunAnywhere

/// Benchmark runs in `<data>/benchmarks.json`, newest first, at most 50 (the oldest are pruned).
/// Writes are atomic and taken in turn under a file lock, so two processes saving at once both
/// keep their run; a file that cannot be read is moved aside and reported, never replaced. A run
/// is saved after each of its scenarios, so a run whose process was killed is read back as
/// ``BenchmarkRunStatus/interrupted`` with the results it had finished.
package struct BenchmarkStore: Sendable {
    /// Most runs kept.
    package static let maxRuns = 50
    /// The file.
    package let url: URL
    private var lockURL: URL { url.deletingLastPathComponent().appendingPathComponent(".benchmarks.lock") }
    /// Where ``persist(_:)``, ``savedRuns()`` and ``clearSaved()`` keep the history instead of
    /// the file: the server's replicas' database.
    package let backend: (any BenchmarkHistoryBackend)?

    /// A store in `dataDirectory`.
    package init(dataDirectory: URL) {
        url = dataDirectory.appendingPathComponent("benchmarks.json")
        backend = nil
    }

    /// A store whose history is `backend`'s (exports still go to `dataDirectory`).
    package init(dataDirectory: URL, backend: any BenchmarkHistoryBackend) {
        url = dataDirectory.appendingPathComponent("benchmarks.json")
        self.backend = backend
    }

    /// Saves `run` where this store keeps the history: its backend, else the file (``save(_:)``).
    package func persist(_ run: BenchmarkRun) async throws {
        guard let backend else {
            _ = try save(run)
            return
        }
        try await backend.save(run)
    }

    /// The saved runs, newest first, from the backend or the file.
    package func savedRuns() async throws -> [BenchmarkRun] {
        guard let backend else { return try loadRuns().runs }
        return try await backend.runs()
    }

    /// Deletes every saved run, in the backend or the file.
    package func clearSaved() async throws {
        guard let backend else { return try clearAll() }
        try await backend.clear()
    }

    /// The saved runs, and where an unreadable history file was moved.
    package struct History: Sendable {
        /// Newest first.
        package let runs: [BenchmarkRun]
        /// Set when the file could not be read and was moved aside to this path.
        package let movedAside: String?
    }

    /// The saved runs, newest first.
    package func loadRuns() throws -> History {
        try FileLock.withLock(at: lockURL) { try read() }
    }

    /// Adds `run` at the front (replacing a saved run with the same id) and prunes beyond 50.
    /// Returns where an unreadable history was moved, if it was.
    @discardableResult
    package func save(_ run: BenchmarkRun) throws -> String? {
        try FileLock.withLock(at: lockURL) {
            let history = try read()
            var runs = history.runs.filter { $0.id != run.id }
            runs.append(run)
            runs.sort { $0.startedAt > $1.startedAt }
            do {
                try AtomicFile.write(try JSONEncoder.runAnywhere.encode(Array(runs.prefix(Self.maxRuns))), to: url)
            } catch {
                throw SDKError.writeFailed("Cannot save the benchmark history to \(url.path)", error)
            }
            return history.movedAside
        }
    }

    /// The run `id` names, exactly or as a unique prefix.
    package func run(id: String) throws -> BenchmarkRun {
        try Self.run(id: id, in: loadRuns().runs)
    }

    /// The run among `runs` whose id is `id` or starts with it (case-insensitive).
    package static func run(id: String, in runs: [BenchmarkRun]) throws -> BenchmarkRun {
        if let exact = runs.first(where: { $0.id == id }) { return exact }
        let matches = runs.filter { !id.isEmpty && $0.id.lowercased().hasPrefix(id.lowercased()) }
        guard !matches.isEmpty else { throw SDKError(.invalidInput, "No benchmark run \(id); `runanywhere bench list` shows them") }
        guard matches.count == 1 else { throw SDKError(.invalidInput, "'\(id)' matches \(matches.count) runs; give more of the id") }
        return matches[0]
    }

    /// Writes `run` as `format` to `exports/benchmark_<id>.<format>` beside the history (the
    /// app's Save to Files); returns where it went.
    @discardableResult
    package func export(_ run: BenchmarkRun, as format: BenchmarkReportFormatter.Format) throws -> URL {
        let url = url.deletingLastPathComponent().appendingPathComponent("exports/benchmark_\(run.id).\(format.rawValue)")
        do {
            try AtomicFile.write(Data(try BenchmarkReportFormatter.format(run, as: format).utf8), to: url)
        } catch {
            throw SDKError.writeFailed("Cannot write \(url.path)", error)
        }
        return url
    }

    /// Deletes every stored run.
    package func clearAll() throws {
        try FileLock.withLock(at: lockURL) { try AtomicFile.remove(url) }
    }

    /// Whether the process `id` still runs.
    private static func isAlive(_ id: Int32) -> Bool {
        kill(id, 0) == 0 || errno == EPERM
    }

    private func read() throws -> History {
        guard let data = FileManager.default.contents(atPath: url.path) else { return History(runs: [], movedAside: nil) }
        do {
            let runs = try JSONDecoder.runAnywhere.decode([BenchmarkRun].self, from: data).map { run in
                var run = run
                if run.status == .running, !(run.processID.map(Self.isAlive) ?? false) { run.status = .interrupted }
                return run
            }
            return History(runs: runs, movedAside: nil)
        } catch {
            do {
                return History(runs: [], movedAside: try AtomicFile.moveAside(url).path)
            } catch {
                throw SDKError.fileManagement(
                    .modelStorageCorrupted, "The benchmark history \(url.path) is unreadable and could not be moved aside")
            }
        }
    }
}

/// Where a benchmark history is kept other than its file (the server's replicas' database): the
/// newest ``BenchmarkStore/maxRuns`` runs, newest first.
package protocol BenchmarkHistoryBackend: Sendable {
    /// Adds `run`, replacing a saved run with its id, and prunes the oldest beyond the limit.
    func save(_ run: BenchmarkRun) async throws
    /// The saved runs, newest first; one marked running that has not been saved for a while is
    /// reported interrupted (its process is gone).
    func runs() async throws -> [BenchmarkRun]
    /// Deletes every saved run.
    func clear() async throws
}
