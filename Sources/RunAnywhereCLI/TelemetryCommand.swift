import ArgumentParser
import Foundation
import RunAnywhere
import RunAnywhereTelemetry

/// `runanywhere telemetry …`: the collector BenchRunner posts to and the SDK's staging and
/// production environments send to, and what it stored.
struct TelemetryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "telemetry",
        abstract: "Collect BenchRunner payloads and the SDK's device registrations and analytics; list, summarize and export them.",
        subcommands: [Serve.self, List.self, Summary.self, Export.self, Devices.self, Events.self]
    )

    /// Where runs are kept: `--database` or `$RUNANYWHERE_TELEMETRY_DATABASE`, else an SQLite file in the data folder.
    struct StoreOptions: ParsableArguments {
        @Option(
            name: .long,
            help: "A postgres://user:password@host:port/database URL or an SQLite file (default: <data>/telemetry/telemetry.sqlite).")
        var database: String?

        func open(_ context: CLIContext) async throws -> any TelemetryStore {
            let database = database ?? ProcessInfo.processInfo.environment["RUNANYWHERE_TELEMETRY_DATABASE"]
            return try await TelemetryStores.open(database, dataDirectory: context.configuration.dataDirectory, logger: context.logger)
        }

        /// Runs `body` with the store open, and closes it after.
        func with<T>(_ context: CLIContext, _ body: (any TelemetryStore) async throws -> T) async throws -> T {
            let store = try await open(context)
            do {
                let result = try await body(store)
                try await store.close()
                return result
            } catch {
                try? await store.close()
                throw error
            }
        }
    }

    /// Which runs: filters on the payload's fields.
    struct Filters: ParsableArguments {
        @Option(name: .long, help: "Only runs of this model.") var model: String?
        @Option(name: .long, help: "Only runs from this device model.") var device: String?
        @Option(name: .long, help: "Only runs on this backend.") var backend: String?
        @Option(name: .long, help: "Only runs from this platform (linux, android, ios…).") var platform: String?

        func query(limit: Int, offset: Int = 0) -> TelemetryQuery {
            TelemetryQuery(modelID: model, deviceModel: device, backend: backend, platform: platform, limit: limit, offset: offset)
        }
    }

    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve", abstract: "Receive payloads on POST /telemetry and store each run once.",
            discussion: """
                Binds to 127.0.0.1:8000 (BenchRunner's default endpoint) unless told otherwise; another address needs an API key \
                (--api-key-stdin), which harnesses send from BENCH_TELEMETRY_API_KEY. Also serves GET /telemetry/runs, \
                /telemetry/summary, /telemetry/export and /health, and is the SDK's staging or production backend: \
                POST /api/v1/devices/register and POST /api/v1/analytics/events (each event stored once), read back with \
                GET /api/v1/devices and GET /api/v1/analytics/events. SIGINT or SIGTERM stops it gracefully.
                """
        )
        @OptionGroup var global: GlobalOptions
        @OptionGroup var store: StoreOptions
        @Option(name: .long, help: "Address to bind.") var host = "127.0.0.1"
        @Option(name: .long, help: "Port (0 picks a free one).") var port = 8000
        @Flag(
            name: .customLong("api-key-stdin"), help: "Read an API key from standard input; clients then send 'Authorization: Bearer KEY'.")
        var apiKeyStdin = false
        @Option(
            name: .customLong("allowed-host"),
            help: "A host name clients may reach the collector by, beyond loopback and --host (repeatable; * for any).")
        var allowedHosts: [String] = []
        @OptionGroup var idleTimeout: IdleTimeoutOption

        func run() async throws {
            try await CLIContext.run(global) { context in
                let key =
                    apiKeyStdin
                    ? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(
                        in: .whitespacesAndNewlines) : nil
                if apiKeyStdin, key?.isEmpty ?? true {
                    throw SDKError(.invalidConfiguration, "--api-key-stdin read no key from standard input")
                }
                // Checked before the store is opened: nothing to close when the address is refused.
                try TelemetryCollector.validate(host: host, port: port, apiKey: key)
                var collector = TelemetryCollector(
                    store: try await store.open(context), host: host, port: port, apiKey: key, logger: context.logger)
                collector.allowedHosts = allowedHosts
                collector.idleTimeout = idleTimeout.duration
                let kind = collector.store.kind
                try await collector.run { port in
                    Terminal.standardError("Collecting telemetry at http://\(host):\(port)/telemetry (\(kind)); Ctrl-C stops.")
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "The newest stored runs.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var store: StoreOptions
        @OptionGroup var filters: Filters
        @Option(name: .long, help: "How many runs (1 to 1000).") var limit = 20
        @Flag(name: .long, help: "Print JSON.") var json = false

        func validate() throws {
            guard (1...1000).contains(limit) else { throw ValidationError("--limit must be from 1 to 1000") }
        }

        func run() async throws {
            try await CLIContext.run(global) { context in
                let query = filters.query(limit: limit)
                let (records, total, kind) = try await store.with(context) { store in
                    (try await store.runs(query), try await store.count(query), store.kind)
                }
                if json {
                    Terminal.write(String(decoding: try TelemetryExport.json(records), as: UTF8.self) + "\n")
                    return
                }
                let rows = records.map { record -> [String] in
                    let m = record.payload.metrics
                    return [
                        m.timestamp, m.deviceModel, m.modelID, m.backend, "\(m.fpsAvg)", "\(m.latencyP50Ms)", "\(m.latencyP95Ms)",
                        String(m.runID.prefix(8)),
                    ]
                }
                Terminal.write(Terminal.table(["time", "device", "model", "backend", "fps", "p50 ms", "p95 ms", "run"], rows))
                Terminal.standardError("\(records.count) of \(total) runs in \(kind)")
            }
        }
    }

    struct Summary: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "summary", abstract: "Medians and spread per device model, OS, model and backend, and regressions.",
            discussion:
                "A regression: the median of a group's latest runs is worse than the median of the runs before them by more than the threshold (fps lower, or p95 latency higher). With --check the exit status is 3 when there is one."
        )
        @OptionGroup var global: GlobalOptions
        @OptionGroup var store: StoreOptions
        @OptionGroup var filters: Filters
        @Option(name: .long, help: "Runs per group that count as latest.") var latest = 3
        @Option(name: .long, help: "Runs before them that make the baseline.") var baseline = 20
        @Option(name: .long, help: "Percent worse that counts as a regression.") var threshold = 10.0
        @Flag(name: .long, help: "Exit with status 3 when a regression is found.") var check = false
        @Flag(name: .long, help: "Print JSON.") var json = false

        func validate() throws {
            guard latest >= 1, baseline >= 1 else { throw ValidationError("--latest and --baseline must be at least 1") }
            guard threshold.isFinite, threshold >= 0 else { throw ValidationError("--threshold must be a percentage of 0 or more") }
        }

        func run() async throws {
            try await CLIContext.run(global) { context in
                let query = filters.query(limit: TelemetryRoutes.summaryWindow)
                let (records, kind) = try await store.with(context) { store in (try await store.runs(query), store.kind) }
                let groups = TelemetrySummary.groups(records)
                let regressions = RegressionCheck(latestRuns: latest, baselineRuns: baseline, thresholdPercent: threshold).regressions(
                    records)
                if json {
                    struct Body: Encodable {
                        let runs: Int
                        let groups: [TelemetryGroup]
                        let regressions: [TelemetryRegression]
                    }
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                    Terminal.write(
                        String(
                            decoding: try encoder.encode(Body(runs: records.count, groups: groups, regressions: regressions)), as: UTF8.self
                        ) + "\n")
                } else {
                    Terminal.write(Self.text(groups, regressions, runs: records.count, store: kind))
                }
                if check, !regressions.isEmpty { throw ExitCode(3) }
            }
        }

        private static func text(_ groups: [TelemetryGroup], _ regressions: [TelemetryRegression], runs: Int, store: String) -> String {
            func number(_ value: Double) -> String { String(format: value >= 100 ? "%.0f" : "%.2f", value) }
            let rows = groups.map { g in
                [
                    g.deviceModel, g.osVersion, g.modelID, g.backend, "\(g.runs)", number(g.fpsMedian),
                    "\(number(g.fpsSpread.p25))–\(number(g.fpsSpread.p75))",
                    number(g.latencyP50MedianMs), number(g.latencyP95MedianMs), number(g.coldStartMedianMs),
                ]
            }
            var text = Terminal.table(
                ["device", "OS", "model", "backend", "runs", "fps", "fps p25–p75", "p50 ms", "p95 ms", "cold ms"], rows)
            text += "\(runs) runs in \(store).\n"
            if regressions.isEmpty { return text + "No regressions.\n" }
            text += "\n" + Terminal.red("Regressions:") + "\n"
            for r in regressions {
                text +=
                    "  \(r.deviceModel) · \(r.modelID) · \(r.backend): \(r.metric) \(number(r.baseline)) → \(number(r.latest)) (\(r.changePercent)% worse, \(r.latestRuns) latest vs \(r.baselineRuns) before)\n"
            }
            return text
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "export", abstract: "Every stored run as CSV or JSON.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var store: StoreOptions
        @OptionGroup var filters: Filters
        @Option(name: .long, help: "csv or json.") var format = "csv"
        @Option(name: .long, help: "The file to write (default: standard output).") var output: String?

        func validate() throws {
            guard ["csv", "json"].contains(format) else { throw ValidationError("--format must be csv or json") }
        }

        func run() async throws {
            try await CLIContext.run(global) { context in
                let query = filters.query(limit: TelemetryRoutes.summaryWindow)
                let records = try await store.with(context) { store in try await store.runs(query) }
                let data = format == "csv" ? try TelemetryExport.csv(records) : try TelemetryExport.json(records)
                guard let output else {
                    Terminal.write(String(decoding: data, as: UTF8.self))
                    return
                }
                try OutputFile.write(data, to: output)
                Terminal.standardError("Wrote \(records.count) runs to \(output)")
            }
        }
    }

    struct Devices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "devices", abstract: "The devices registered by the SDK in staging or production.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var store: StoreOptions
        @Option(name: .long, help: "How many devices (1 to 1000).") var limit = 20
        @Flag(name: .long, help: "Print JSON.") var json = false

        func validate() throws {
            guard (1...1000).contains(limit) else { throw ValidationError("--limit must be from 1 to 1000") }
        }

        func run() async throws {
            try await CLIContext.run(global) { context in
                let (devices, total) = try await store.with(context) { store in
                    (try await store.devices(limit: limit, offset: 0), try await store.deviceCount())
                }
                if json { return try JSONOutput.print(devices) }
                let rows = devices.map { device in
                    [
                        device.deviceID, device.registration.environment, device.registration.osVersion, device.registration.sdkVersion,
                        device.registeredAt.formatted(.iso8601), device.lastSeenAt.formatted(.iso8601),
                    ]
                }
                Terminal.write(Terminal.table(["device", "environment", "OS", "SDK", "registered", "last seen"], rows))
                Terminal.standardError("\(devices.count) of \(total) devices")
            }
        }
    }

    struct Events: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "events", abstract: "The newest analytics events the SDK sent in staging or production.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var store: StoreOptions
        @Option(name: .long, help: "Only events from this device (its id from `telemetry devices`).") var device: String?
        @Option(name: .long, help: "Only events of this type: generation, transcription or synthesis.") var type: String?
        @Option(name: .long, help: "How many events (1 to 1000).") var limit = 20
        @Flag(name: .long, help: "Print JSON.") var json = false

        func validate() throws {
            guard (1...1000).contains(limit) else { throw ValidationError("--limit must be from 1 to 1000") }
            if let type, !AnalyticsEvent.types.contains(type) {
                throw ValidationError("--type must be one of \(AnalyticsEvent.types.sorted().joined(separator: ", "))")
            }
        }

        func run() async throws {
            try await CLIContext.run(global) { context in
                let query = AnalyticsQuery(deviceID: device, type: type, limit: limit)
                let (records, total) = try await store.with(context) { store in
                    (try await store.analyticsEvents(query), try await store.analyticsEventCount(query))
                }
                if json { return try JSONOutput.print(records) }
                let rows = records.map { record -> [String] in
                    let model: String
                    switch record.event.properties["model_id"] ?? record.event.properties["voice"] {
                    case .text(let text)?: model = text
                    default: model = ""
                    }
                    return [
                        record.event.occurredAt, record.event.type, model, String(record.deviceID.prefix(8)),
                        String(record.event.id.prefix(8)),
                    ]
                }
                Terminal.write(Terminal.table(["time", "type", "model", "device", "event"], rows))
                Terminal.standardError("\(records.count) of \(total) events")
            }
        }
    }
}
