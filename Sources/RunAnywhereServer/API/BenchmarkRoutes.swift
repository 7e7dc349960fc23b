import Foundation
import Hummingbird
import OpenAPIRuntime
import RunAnywhere
import RunAnywhereBenchmarks

/// RunAnywhere's benchmarks API, which the web app's Benchmarks page uses (the runs
/// `runanywhere bench` saves):
/// - `POST /api/benchmarks` (`categories`, `scenarios`, `repetitions`, `threads`, all optional):
///   starts a run on every installed model of the categories; 202; one run at a time (409);
/// - `GET /api/benchmarks/current`: the run's progress as server-sent events, from its start
///   whenever one subscribes: `skipped`, `progress`, `result`, then `done` with the saved run;
/// - `DELETE /api/benchmarks/current`: stops it; the results so far are saved as cancelled;
/// - `GET /api/benchmarks`: the saved runs, newest first, whether one is running, and each
///   category with its downloaded models (none: the run will skip it); `DELETE /api/benchmarks`
///   clears them;
/// - `GET /api/benchmarks/{id}` and `GET /api/benchmarks/{id}/export?format=json|csv|md` (a file
///   to download); `POST /api/benchmarks/{id}/export?format=json|csv` saves it in the exports
///   folder, as `runanywhere bench export` does, and says where.
struct BenchmarkRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration
    let store: BenchmarkStore
    let jobs = BenchmarkJobs()

    init(runtime: RunAnywhereRuntime, configuration: ServerConfiguration) {
        self.runtime = runtime
        self.configuration = configuration
        let data = runtime.configuration.dataDirectory
        store =
            configuration.database.map { BenchmarkStore(dataDirectory: data, backend: PostgresBenchmarkHistory(database: $0)) }
            ?? BenchmarkStore(dataDirectory: data)
    }

    struct StartRequest: Decodable, Sendable {
        let categories: [BenchmarkCategory]?
        let scenarios: [String]?
        @NumberField var repetitions: Int?
        @NumberField var threads: Int?
    }

    struct Runs: Encodable, Sendable {
        let runs: [BenchmarkRun]
        let running: Bool
        let categories: [CategoryModels]
    }

    /// A benchmark category and the downloaded models a run would benchmark in it.
    struct CategoryModels: Encodable, Sendable {
        let category: BenchmarkCategory
        let displayName: String
        let models: [String]
    }

    struct SavedExport: Encodable, Sendable {
        let path: String
        let fileName: String
    }

    struct Skipped: Encodable, Sendable {
        let category: BenchmarkCategory
        let reason: String
    }

    struct Progress: Encodable, Sendable {
        let currentScenario: String
        let progress: Double
        let completedCount: Int
        let totalCount: Int
    }

    func register(on router: some RouterMethods<ServerContext>) {
        router.post("api/benchmarks") { request, _ in
            let body = try await decodeJSON(StartRequest.self, from: request, limit: configuration.maxBodySize)
            if let repetitions = body.repetitions, !(1...20).contains(repetitions) {
                throw APIError(.badRequest, "repetitions must be between 1 and 20", param: "repetitions")
            }
            if let threads = body.threads, !(1...256).contains(threads) {
                throw APIError(.badRequest, "threads must be between 1 and 256", param: "threads")
            }
            let runner = BenchmarkRunner(
                configuration: BenchmarkConfiguration(
                    runtime: runtime, repetitions: body.repetitions ?? 3, threads: body.threads ?? configuration.threads),
                store: store, appVersion: configuration.appVersion
            )
            do {
                try runner.checkScenarios(body.scenarios ?? [], in: Set(body.categories ?? []))
            } catch let error as SDKError {
                throw APIError(.badRequest, error.message, param: "scenarios")
            }
            try await jobs.start { runner.start(categories: Set(body.categories ?? []), scenarios: Set(body.scenarios ?? [])) }
            return try jsonResponse(["status": "running"], status: .accepted)
        }
        router.get("api/benchmarks/current") { _, _ in
            guard let events = await jobs.subscribe() else {
                throw APIError(.notFound, "No benchmark run has been started since the server started", code: "no_benchmark_run")
            }
            return ServerSentEvents.response { writer in
                for await event in events {
                    var batch = [event]
                    try await ServerSentEvents.send(&batch, to: &writer)
                }
            }
        }
        router.delete("api/benchmarks/current") { _, _ in
            guard await jobs.cancel() else { throw APIError(.notFound, "No benchmark run is running", code: "no_benchmark_run") }
            return Response(status: .accepted)
        }
        router.get("api/benchmarks") { _, _ in
            let models = runtime.availableModels()
            let categories = BenchmarkCategory.allCases.map {
                CategoryModels(category: $0, displayName: $0.displayName, models: $0.downloadedModels(models).map(\.id))
            }
            return try jsonResponse(Runs(runs: try await store.savedRuns(), running: await jobs.isRunning, categories: categories))
        }
        router.delete("api/benchmarks") { _, _ in
            guard await !jobs.isRunning else {
                throw APIError(.conflict, "A benchmark run is running; stop it first", code: "benchmark_running")
            }
            try await store.clearSaved()
            return Response(status: .noContent)
        }
        router.get("api/benchmarks/:id") { _, context in
            try jsonResponse(try await savedRun(context))
        }
        router.post("api/benchmarks/:id/export") { request, context in
            let format = try Self.format(request)
            guard format != .md else { throw APIError(.badRequest, "format must be json or csv", param: "format") }
            let url = try store.export(try await savedRun(context), as: format)
            return try jsonResponse(SavedExport(path: url.path, fileName: url.lastPathComponent), status: .created)
        }
        router.get("api/benchmarks/:id/export") { request, context in
            let format = try Self.format(request)
            let run = try await savedRun(context)
            let type =
                switch format {
                case .json: "application/json"
                case .csv: "text/csv; charset=utf-8"
                case .md: "text/markdown; charset=utf-8"
                }
            return bodyResponse(
                ByteBuffer(string: try BenchmarkReportFormatter.format(run, as: format)), contentType: type,
                attachment: "benchmark-\(run.id.prefix(8).lowercased()).\(format.rawValue)")
        }
    }

    /// The export format the query names (`json` when none).
    private static func format(_ request: Request) throws -> BenchmarkReportFormatter.Format {
        let name = request.uri.queryParameters.get("format") ?? "json"
        guard let format = BenchmarkReportFormatter.Format(rawValue: name) else {
            throw APIError(.badRequest, "format must be json, csv or md", param: "format")
        }
        return format
    }

    /// The saved run the path's `id` names exactly.
    private func savedRun(_ context: ServerContext) async throws -> BenchmarkRun {
        let id = try context.pathParameter("id")
        guard let run = try await store.savedRuns().first(where: { $0.id == id }) else {
            throw APIError(.notFound, "No benchmark run '\(id)'", param: "id", code: "benchmark_run_not_found")
        }
        return run
    }
}

/// The benchmark run this server started last: its events so far, replayed to every new
/// subscriber before the live ones, and whether it is still going.
actor BenchmarkJobs {
    private var handle: BenchmarkRunHandle?
    private var log: [ServerSentEvent] = []
    private var finished = true
    private var subscribers: [UUID: AsyncStream<ServerSentEvent>.Continuation] = [:]

    var isRunning: Bool { !finished }

    /// Starts the run `start` makes, unless one is running.
    func start(_ start: () -> BenchmarkRunHandle) throws {
        guard finished else {
            throw APIError(
                .conflict, "A benchmark run is already running; follow it at /api/benchmarks/current", code: "benchmark_running")
        }
        let handle = start()
        self.handle = handle
        log = []
        finished = false
        Task { await pump(handle) }
    }

    /// The run's events from its start; nil if no run was started.
    func subscribe() -> AsyncStream<ServerSentEvent>? {
        guard handle != nil else { return nil }
        let (stream, continuation) = AsyncStream.makeStream(of: ServerSentEvent.self)
        log.forEach { continuation.yield($0) }
        if finished {
            continuation.finish()
        } else {
            let id = UUID()
            subscribers[id] = continuation
            continuation.onTermination = { _ in Task { await self.unsubscribe(id) } }
        }
        return stream
    }

    /// Stops the running run; false when none is running.
    func cancel() -> Bool {
        guard !finished, let handle else { return false }
        handle.run.cancel()
        return true
    }

    private func unsubscribe(_ id: UUID) { subscribers[id] = nil }

    private func pump(_ handle: BenchmarkRunHandle) async {
        for await event in handle.events {
            switch event {
            case .skipped(let category, let reason):
                publish(try? ServerSentEvents.event(BenchmarkRoutes.Skipped(category: category, reason: reason), name: "skipped"))
            case .progress(let update):
                publish(
                    try? ServerSentEvents.event(
                        BenchmarkRoutes.Progress(
                            currentScenario: update.currentScenario, progress: update.progress, completedCount: update.completedCount,
                            totalCount: update.totalCount
                        ), name: "progress"))
            case .result(let result): publish(try? ServerSentEvents.event(result, name: "result"))
            }
        }
        publish(try? ServerSentEvents.event(await handle.run.value, name: "done"))
        finished = true
        subscribers.values.forEach { $0.finish() }
        subscribers = [:]
    }

    private func publish(_ event: ServerSentEvent?) {
        guard let event else { return }
        log.append(event)
        subscribers.values.forEach { $0.yield(event) }
    }
}
