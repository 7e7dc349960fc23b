import Foundation
import RunAnywhereBenchRunner
import RunAnywhereTelemetry
import Testing

@Suite struct TelemetrySummaryTests {
    private func record(_ payload: TelemetryPayload) -> TelemetryRecord {
        TelemetryRecord(payload: payload, receivedAt: Date())
    }

    @Test func groupsHaveMediansAndSpread() {
        let fps = [90.0, 100, 110, 120, 200]
        let records =
            fps.enumerated().map { record(TelemetryFixtures.payload(fps: $1, p95: 10 + Double($0), minutesAgo: Double($0))) }
            + [record(TelemetryFixtures.payload(model: "smollm2", backend: "llama.cpp", fps: 30))]
        let groups = TelemetrySummary.groups(records)
        #expect(groups.count == 2)
        let identity = groups[0]
        #expect(identity.modelID == "GradientIdentity" && identity.runs == 5)
        let spread = identity.fpsSpread
        #expect(identity.fpsMedian == 110 && [spread.min, spread.p25, spread.p75, spread.max] == [90, 100, 120, 200])
        #expect(identity.latencyP95MedianMs == 12 && identity.latest == records[0].payload.metrics.timestamp)
        #expect(groups[1].runs == 1 && groups[1].fpsMedian == 30 && groups[1].fpsSpread.p25 == 30)
        // An even count's median is the mean of the middle two.
        #expect(TelemetrySummary.groups(Array(records.prefix(4)))[0].fpsMedian == 105)
    }

    @Test func aDropBeyondTheThresholdIsARegression() {
        // Oldest first: ten runs near 100 fps, then three near 80 with a p95 latency 50 % higher.
        var records: [TelemetryRecord] = []
        for index in 0..<13 {
            let slow = index >= 10
            records.append(
                record(
                    TelemetryFixtures.payload(
                        fps: slow ? 80 + Double(index % 2) : 100 + Double(index % 3), p95: slow ? 15 : 10, minutesAgo: Double(100 - index)))
            )
        }
        records.append(record(TelemetryFixtures.payload(model: "steady", fps: 50, minutesAgo: 5)))
        let found = RegressionCheck().regressions(records)
        #expect(found.count == 2)
        let fps = found.first { $0.metric == "fps" }
        #expect(fps?.baseline == 101 && fps?.latest == 80 && fps?.latestRuns == 3 && fps?.baselineRuns == 10)
        #expect(found.first { $0.metric == "latency_p95" }?.changePercent == 50)
        #expect(RegressionCheck(thresholdPercent: 60).regressions(records).isEmpty)
        // Too few runs for a baseline: nothing to compare.
        #expect(RegressionCheck(latestRuns: 13).regressions(records).isEmpty)
    }

    @Test func exportsKeepEveryField() throws {
        let records = [
            record(TelemetryFixtures.payload(battery: 1.5)), record(TelemetryFixtures.payload(device: "Board \"Quoted\", rev 2")),
        ]
        let json = try TelemetryExport.json(records)
        let decoder = JSONDecoder()
        let back = try decoder.decode([TelemetryRecord].self, from: json)
        #expect(back.map(\.payload) == records.map(\.payload))
        let csv = String(decoding: try TelemetryExport.csv(records), as: UTF8.self)
        let lines = csv.components(separatedBy: "\r\n")
        #expect(lines.count == 4 && lines[3].isEmpty)
        #expect(lines[1].contains(",1.5,") && lines[2].contains("\"Board \"\"Quoted\"\", rev 2\""))
    }
}
