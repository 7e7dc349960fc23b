import Foundation
import RunAnywhere
import Testing

/// What `make test` runs in parallel and what it keeps apart. Swift Testing runs every test side by
/// side; a suite that runs models, the binary or a browser takes a lane, and the tests holding one
/// lane run one at a time: models in this process, the `runanywhere` commands and servers under
/// their clients run beside each other (most of their time is spent waiting, on a process or a
/// port), never two of one kind at once, and a suite that needs the whole machine (the CPU Vulkan
/// driver's threads, the browser's timed waits) runs alone. The unit tests take no lane.
///
/// With `RUNANYWHERE_TEST_UNIT=1` (`make test-unit`) every test that holds a lane is skipped, as
/// cancelled, so that the unit tests run alone, in seconds.
package enum TestLane: Sendable, CaseIterable {
    /// Models run in this process: the SDK's engines and its process-wide state.
    case inProcess
    /// The `runanywhere` binary and the database servers the tests start.
    case processes
    /// `runanywhere serve` under a client: the official clients, schemathesis, crashes and kills.
    case servers
}

/// Runs each test of the suite (or the test) it is attached to while holding its lanes; with
/// `wholeSuite`, a suite holds them from its first test to its last.
package struct LaneTrait: SuiteTrait, TestTrait, TestScoping {
    let lanes: Set<TestLane>
    var wholeSuite = false

    /// The lanes the current task holds already: a test inside a suite that holds them, or with a
    /// trait of its own beside its suite's, takes only those it lacks.
    @TaskLocal static var held: Set<TestLane> = []

    /// The suite's nested suites and tests hold the lanes too.
    package var isRecursive: Bool { true }

    /// Each test case holds the lanes, or with `wholeSuite` the suite does. (Swift Testing's own
    /// choice for a recursive suite trait scopes only the test cases, so a whole-suite trait
    /// must say so: without this, each test of an `alone` suite waited for every lane on its own,
    /// and the other lanes stood idle while the ones still running finished, once a test.)
    package func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite ? (wholeSuite ? self : nil) : (testCase == nil ? nil : self)
    }

    /// Holds the lanes around a test case, or around the whole suite with `wholeSuite`.
    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        if ProcessInfo.processInfo.environment["RUNANYWHERE_TEST_UNIT"] == "1" && !test.isSuite {
            try Test.cancel("a unit-test run (RUNANYWHERE_TEST_UNIT=1) skips the tests that run models, the binary or a browser")
        }
        let needed = lanes.subtracting(Self.held)
        guard !needed.isEmpty else {
            try await function()
            return
        }
        let asked = ContinuousClock.now
        await LaneLock.shared.acquire(needed)
        let started = ContinuousClock.now
        defer { LaneTimings.record(test, lanes: needed, waited: started - asked, ran: .now - started) }
        do {
            try await withTaskExecutorPreference(LaneExecutor.shared) {
                try await Self.$held.withValue(Self.held.union(needed)) { try await function() }
            }
        } catch {
            await LaneLock.shared.release(needed)
            throw error
        }
        await LaneLock.shared.release(needed)
    }
}

/// With `RUNANYWHERE_TEST_TIMINGS=FILE`, each test (or whole suite) that held a lane adds a line to
/// FILE: the seconds it ran holding its lanes, the seconds it waited for them, the lanes and its
/// name, tab-separated. The lanes are where `make test`'s time goes on a small machine (everything
/// else runs beside them), so `sort -rn FILE` lists what a faster suite would shorten first.
enum LaneTimings {
    private static let lock = NSLock()

    static func record(_ test: Test, lanes: Set<TestLane>, waited: Duration, ran: Duration) {
        guard let path = ProcessInfo.processInfo.environment["RUNANYWHERE_TEST_TIMINGS"], !path.isEmpty else { return }
        func seconds(_ duration: Duration) -> String { String(format: "%.1f", duration.inSeconds) }
        let names = lanes.map { "\($0)" }.sorted().joined(separator: ",")
        let line = "\(seconds(ran))\t\(seconds(waited))\t\(names)\t\(test.id)\n"
        lock.withLock {
            if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
            guard let file = FileHandle(forWritingAtPath: path) else { return }
            defer { try? file.close() }
            _ = try? file.seekToEnd()
            try? file.write(contentsOf: Data(line.utf8))
        }
    }
}

extension Trait where Self == LaneTrait {
    /// One test at a time among those that run models in this process.
    package static var inProcessLane: Self { LaneTrait(lanes: [.inProcess]) }
    /// One test at a time among those that run the binary or a database server.
    package static var processLane: Self { LaneTrait(lanes: [.processes]) }
    /// One test at a time among those that run `runanywhere serve` under a client.
    package static var serverLane: Self { LaneTrait(lanes: [.servers]) }
    /// Nothing heavy beside it: every lane, held by a suite from its first test to its last (the
    /// CPU Vulkan driver's threads take every core; the browser's waits on a page and on
    /// downloads it starts are timed, and missed them beside the other lanes).
    package static var alone: Self { LaneTrait(lanes: Set(TestLane.allCases), wholeSuite: true) }
}

/// A limit on how long a test runs once it holds its lanes, to stop a hang: Swift Testing's
/// `.timeLimit` also counts the wait for the lanes, which grows with every test queued before it
/// (a suite that runs alone holds every lane for minutes). Attached to a test function, its scope
/// sits inside the lanes' (inherited suite traits come first), so its clock starts once they are
/// held. Past the limit it records an issue and cancels the test, which, like `.timeLimit`, then
/// ends when the test notices.
package struct HangLimit: TestTrait, TestScoping {
    let limit: Duration

    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let limit = limit
        // The group ends before this returns, so the test's body never outlives its call.
        try await withoutActuallyEscaping(function) { function in
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    try await function()
                    return true
                }
                group.addTask {
                    try? await Task.sleep(for: limit)
                    return Task.isCancelled  // cancelled: the test ended first
                }
                let finished = try await group.next() ?? true
                if !finished { Issue.record("\(test.name) ran past its limit of \(limit) holding its lanes: cancelled") }
                group.cancelAll()
                try await group.waitForAll()
            }
        }
    }
}

extension Trait where Self == HangLimit {
    /// Records an issue and cancels the test once it has run for `limit` holding its lanes.
    package static func hangLimit(_ limit: Duration) -> Self { HangLimit(limit: limit) }
}

/// The lanes held, and the tests waiting for theirs, first come first served: a test waits while an
/// earlier waiter needs one of its lanes, so one that needs every lane is never passed over.
actor LaneLock {
    static let shared = LaneLock()

    private var held = Set<TestLane>()
    private var waiting: [(lanes: Set<TestLane>, resume: CheckedContinuation<Void, Never>)] = []

    func acquire(_ lanes: Set<TestLane>) async {
        let claimed = waiting.reduce(held) { $0.union($1.lanes) }
        if claimed.isDisjoint(with: lanes) {
            held.formUnion(lanes)
            return
        }
        await withCheckedContinuation { waiting.append((lanes, $0)) }
    }

    func release(_ lanes: Set<TestLane>) {
        held.subtract(lanes)
        var claimed = held
        var stillWaiting: [(lanes: Set<TestLane>, resume: CheckedContinuation<Void, Never>)] = []
        for waiter in waiting {
            if claimed.isDisjoint(with: waiter.lanes) {
                held.formUnion(waiter.lanes)
                waiter.resume.resume()
            } else {
                stillWaiting.append(waiter)
            }
            claimed.formUnion(waiter.lanes)
        }
        waiting = stillWaiting
    }
}

/// Where the tests holding a lane run: Dispatch's global queue, not Swift's cooperative pool. They
/// wait on child processes, pipes and sockets with blocking calls, and the cooperative pool has
/// one thread per core: two such waits would stall every other test. Dispatch adds a thread when
/// one of its threads blocks.
final class LaneExecutor: TaskExecutor {
    static let shared = LaneExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
