import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhereBenchmarks

@Suite struct BenchmarkStoreTests {
    @Test func keepsTheNewest50() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = BenchmarkStore(dataDirectory: folder)
        let runs = (0..<55).map { Fixtures.run(startedAt: 1_700_000_000 + Double($0) * 60) }
        for run in runs { try store.save(run) }
        let kept = try store.loadRuns().runs
        #expect(kept.count == 50)
        #expect(kept.map(\.id) == runs.reversed().prefix(50).map(\.id), "newest first; the 5 oldest pruned")
        #expect(try store.run(id: String(runs[54].id.prefix(8))).id == runs[54].id, "a unique prefix is enough")
        #expect(throws: SDKError.self) { try store.run(id: "zzzz") }
        try store.clearAll()
        #expect(try store.loadRuns().runs.isEmpty)
    }

    /// A run saved while it goes is `running` while its process lives, and `interrupted` once
    /// that process is gone without finishing it.
    @Test func aRunWhoseProcessIsGoneReadsAsInterrupted() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = BenchmarkStore(dataDirectory: folder)
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        var live = Fixtures.run(startedAt: 1_700_000_000)
        var dead = Fixtures.run(startedAt: 1_700_000_060)
        var unowned = Fixtures.run(startedAt: 1_700_000_120)
        (live.status, dead.status, unowned.status) = (.running, .running, .running)
        (live.processID, dead.processID) = (getpid(), gone.processIdentifier)
        for run in [live, dead, unowned] { try store.save(run) }
        let statuses = Dictionary(uniqueKeysWithValues: try store.loadRuns().runs.map { ($0.id, $0.status) })
        #expect(statuses == [live.id: .running, dead.id: .interrupted, unowned.id: .interrupted])
        #expect(try store.run(id: dead.id).results == dead.results, "the finished results are kept")
    }

    @Test func aCorruptHistoryIsMovedAsideAndReported() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = BenchmarkStore(dataDirectory: folder)
        try Data("[{\"id\": \"half".utf8).write(to: store.url)
        let history = try store.loadRuns()
        #expect(history.runs.isEmpty)
        let aside = try #require(history.movedAside)
        #expect(try String(contentsOfFile: aside, encoding: .utf8) == "[{\"id\": \"half", "nothing is lost")
        try Data("garbage".utf8).write(to: store.url)
        let reported = try store.save(Fixtures.run())
        #expect(reported != nil, "saving over a corrupt history reports it")
        #expect(try store.loadRuns().runs.count == 1)
    }

    /// Seeded damage to the history (`RUNANYWHERE_FUZZ_CASES` cases, 40 by default): each read
    /// gives runs or an `SDKError`, and a save always works afterwards.
    @Test func aDamagedHistoryIsReadOrRefusedNeverATrap() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = BenchmarkStore(dataDirectory: folder)
        try store.save(Fixtures.run(startedAt: 1_700_000_000))
        try store.save(Fixtures.run(startedAt: 1_700_000_100, results: [Fixtures.result(), Fixtures.result(error: "out of memory")]))
        let original = try Data(contentsOf: store.url)
        var random = SeededGenerator(seed: 5)
        var outcomes: [String: Int] = [:]
        for index in 0..<(TestEnvironment.fuzzCases()) {
            try original.damagedJSON(using: &random).write(to: store.url)
            do {
                let history = try store.loadRuns()
                outcomes[history.movedAside == nil ? "read" : "moved aside", default: 0] += 1
            } catch is SDKError {
                outcomes["refused", default: 0] += 1
            } catch {
                Issue.record("case \(index): \(error)")
            }
            try store.save(Fixtures.run(startedAt: 1_700_000_200))
            #expect(try store.loadRuns().runs.contains { $0.startedAt == Date(timeIntervalSince1970: 1_700_000_200) })
        }
        print("damaged benchmark history: \(outcomes)")
    }

    @Test func concurrentSavesKeepEveryRun() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let runs = (0..<24).map { Fixtures.run(startedAt: 1_700_000_000 + Double($0)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for run in runs {
                group.addTask { try BenchmarkStore(dataDirectory: folder).save(run) }
            }
            try await group.waitForAll()
        }
        #expect(Set(try BenchmarkStore(dataDirectory: folder).loadRuns().runs.map(\.id)) == Set(runs.map(\.id)))
    }
}
