import Foundation
import RunAnywhere
import RunAnywhereBenchRunner
import RunAnywhereTelemetry
import RunAnywhereTestSupport
import Testing

/// The same checks against real SQLite and real PostgreSQL.
@Suite(.inProcessLane, .serialized, .enabled(if: TestPostgres.isInstalled, "scripts/setup --tests installs PostgreSQL"), .postgresCluster)
struct TelemetryStoreTests {
    @Test(arguments: TelemetryStoreKind.allCases)
    func aRunIsStoredOnceAndReadBackAsSent(_ kind: TelemetryStoreKind) async throws {
        let store = try await kind.make()
        let payload = TelemetryFixtures.payload(battery: 2.1)
        let received = Date(timeIntervalSince1970: 1_790_000_000.123)
        #expect(try await store.insert(payload, receivedAt: received))
        #expect(try await store.insert(payload, receivedAt: Date()) == false)
        var changed = payload
        changed.metrics.fpsAvg = 1
        #expect(try await store.insert(changed, receivedAt: Date()) == false)  // the first copy of a run id wins
        let records = try await store.runs(TelemetryQuery())
        #expect(records == [TelemetryRecord(payload: payload, receivedAt: received)])
        #expect(try await store.count(TelemetryQuery()) == 1)
        let noBattery = TelemetryFixtures.payload(minutesAgo: 0)
        #expect(try await store.insert(noBattery, receivedAt: received))
        #expect(try await store.runs(TelemetryQuery(limit: 1)).first?.payload.metrics.batteryDropPct15m == nil)  // newest first
        try await store.close()
    }

    @Test(arguments: TelemetryStoreKind.allCases)
    func filtersPagesAndOrder(_ kind: TelemetryStoreKind) async throws {
        let store = try await kind.make()
        for index in 0..<12 {
            let payload = TelemetryFixtures.payload(
                model: index % 3 == 0 ? "smollm2" : "GradientIdentity", backend: index % 3 == 0 ? "llama.cpp" : "onnxruntime",
                minutesAgo: Double(index)
            )
            _ = try await store.insert(payload, receivedAt: Date())
        }
        let all = try await store.runs(TelemetryQuery(limit: 100))
        #expect(all.count == 12)
        #expect(all.map(\.runDate) == all.map(\.runDate).sorted(by: >))
        let llama = TelemetryQuery(modelID: "smollm2", backend: "llama.cpp")
        #expect(try await store.count(llama) == 4)
        #expect(try await store.runs(llama).allSatisfy { $0.payload.metrics.modelID == "smollm2" })
        #expect(try await store.count(TelemetryQuery(modelID: "smollm2", backend: "onnxruntime")) == 0)
        let page = try await store.runs(TelemetryQuery(limit: 5, offset: 10))
        #expect(page.map(\.payload) == Array(all.dropFirst(10)).map(\.payload))
        // Text that looks like SQL is a value like any other (bound, never spliced into a statement).
        #expect(try await store.count(TelemetryQuery(modelID: "x' OR '1'='1")) == 0)
        try await store.close()
    }

    /// Reopening runs no migration twice and keeps the runs.
    @Test(arguments: TelemetryStoreKind.allCases)
    func reopeningKeepsRunsAndSchema(_ kind: TelemetryStoreKind) async throws {
        switch kind {
        case .sqlite:
            let file = try TestEnvironment.temporaryDirectory("telemetry").appendingPathComponent("runs.sqlite")
            let first = try await SQLiteTelemetryStore.open(at: file, logger: .init(label: "t"))
            _ = try await first.insert(TelemetryFixtures.payload(), receivedAt: Date())
            try await first.close()
            let second = try await SQLiteTelemetryStore.open(at: file, logger: .init(label: "t"))
            #expect(try await second.count(TelemetryQuery()) == 1)
            try await second.close()
            // A store dropped without being closed (its user threw) closes its connection itself.
            var dropped: SQLiteTelemetryStore? = try await SQLiteTelemetryStore.open(at: file, logger: .init(label: "t"))
            #expect(try await dropped?.count(TelemetryQuery()) == 1)
            dropped = nil
        case .postgres:
            let url = try PostgresCluster.newDatabase()
            // Two collectors starting at once migrate once (an advisory lock orders them).
            async let first = PostgresTelemetryStore.open(url: url, logger: .init(label: "t"))
            async let second = PostgresTelemetryStore.open(url: url, logger: .init(label: "t"))
            let stores = try await [first, second]
            _ = try await stores[0].insert(TelemetryFixtures.payload(), receivedAt: Date())
            #expect(try await stores[1].count(TelemetryQuery()) == 1)
            for store in stores { try await store.close() }
            let third = try await PostgresTelemetryStore.open(url: url, logger: .init(label: "t"))
            #expect(try await third.count(TelemetryQuery()) == 1)
            try await third.close()
        }
    }

    @Test func unreachableOrMalformedDatabasesAreClearErrors() async throws {
        await #expect {
            try await PostgresTelemetryStore.open(url: "mysql://user@host/db", logger: .init(label: "t"))
        } throws: { error in
            (error as? SDKError)?.code == .invalidInput
        }
        // Nothing listens on port 1: the open gives up after its time limit with a message.
        await #expect(throws: (any Error).self) {
            try await PostgresTelemetryStore.open(
                url: "postgres://nobody@127.0.0.1:1/db?sslmode=disable", logger: .init(label: "t"), timeout: .seconds(2))
        }
        let folder = try TestEnvironment.temporaryDirectory("telemetry")
        let notADatabase = folder.appendingPathComponent("runs.sqlite")
        try Data("not an sqlite file, just text".utf8).write(to: notADatabase)
        await #expect(throws: (any Error).self) { try await SQLiteTelemetryStore.open(at: notADatabase, logger: .init(label: "t")) }
        #expect(try Data(contentsOf: notADatabase) == Data("not an sqlite file, just text".utf8))
    }
}
