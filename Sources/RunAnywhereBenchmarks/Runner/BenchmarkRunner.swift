import Foundation
import RunAnywhere

/// Where a run is.
package struct BenchmarkProgressUpdate: Sendable, Equatable {
    /// "LLM: Short generation (SmolLM2 135M Instruct Q4_1)".
    package let currentScenario: String
    /// 0 to 1.
    package let progress: Double
    /// Scenarios finished so far.
    package let completedCount: Int
    /// Scenarios in the run.
    package let totalCount: Int
}

/// What a run reports while it goes.
package enum BenchmarkEvent: Sendable, Equatable {
    /// A category was skipped, and why (e.g. no downloaded models).
    case skipped(BenchmarkCategory, String)
    /// The next scenario is starting.
    case progress(BenchmarkProgressUpdate)
    /// A scenario finished (successfully or with its error recorded).
    case result(BenchmarkResult)
}

/// A run in progress: its events, and the run once it ends. Cancel `run` to stop it; the
/// finished results are kept and the status is ``BenchmarkRunStatus/cancelled``.
package struct BenchmarkRunHandle: Sendable {
    /// Progress and results as they happen.
    package let events: AsyncStream<BenchmarkEvent>
    /// The run; its value is the finished run.
    package let run: Task<BenchmarkRun, Never>
}

/// Runs every scenario of the selected categories on every downloaded model of each, one at a
/// time, and saves the run as it goes: when it starts, after every scenario (so a killed run
/// keeps what it finished) and when it ends (also cancelled).
package struct BenchmarkRunner: Sendable {
    private let configuration: BenchmarkConfiguration
    private let providers: [BenchmarkCategory: any BenchmarkScenarioProvider]
    private let store: BenchmarkStore?
    private let appVersion: String

    /// The providers of every component. Adding a component: one line here.
    package static func defaultProviders(_ configuration: BenchmarkConfiguration) -> [any BenchmarkScenarioProvider] {
        [
            LLMBenchmarkProvider(configuration: configuration),
            STTBenchmarkProvider(configuration: configuration),
            TTSBenchmarkProvider(configuration: configuration),
            VLMBenchmarkProvider(configuration: configuration),
            DiffusionBenchmarkProvider(configuration: configuration),
            EmbeddingBenchmarkProvider(configuration: configuration),
        ]
    }

    /// Creates a runner; `store`, when given, receives the run when it ends.
    package init(
        configuration: BenchmarkConfiguration, providers: [any BenchmarkScenarioProvider]? = nil, store: BenchmarkStore?, appVersion: String
    ) {
        self.configuration = configuration
        self.providers = Dictionary((providers ?? Self.defaultProviders(configuration)).map { ($0.category, $0) }) { _, last in last }
        self.store = store
        self.appVersion = appVersion
    }

    /// Starts a run of `categories` (all when empty), limited to the named scenarios if any.
    package func start(categories: Set<BenchmarkCategory>, scenarios names: Set<String> = []) -> BenchmarkRunHandle {
        let (events, continuation) = AsyncStream.makeStream(of: BenchmarkEvent.self)
        let selected = categories.isEmpty ? Set(BenchmarkCategory.allCases) : categories
        let run = Task { [self] in
            var run = BenchmarkRun(
                deviceInfo: BenchmarkDeviceInfo.fromSystem(
                    appVersion: appVersion, detector: configuration.runtime.frameworks.hardwareDetector
                ))
            run.processID = getpid()
            let work = workList(selected, names, report: { continuation.yield($0) })
            await checkpoint(run)
            for (index, item) in work.enumerated() {
                if Task.isCancelled { break }
                continuation.yield(
                    .progress(
                        BenchmarkProgressUpdate(
                            currentScenario: "\(item.category.displayName): \(item.scenario.name) (\(item.model.name))",
                            progress: Double(index) / Double(work.count), completedCount: index, totalCount: work.count
                        )))
                let metrics: BenchmarkMetrics
                do {
                    metrics = try await item.provider.execute(scenario: item.scenario, model: item.model, deviceInfo: run.deviceInfo)
                } catch  where Task.isCancelled || error is CancellationError {
                    break
                } catch {
                    metrics = BenchmarkMetrics(endToEndLatencyMs: 0, error: (error as? SDKError)?.message ?? "\(error)")
                }
                let result = BenchmarkResult(
                    category: item.category, scenarioName: item.scenario.name,
                    componentModelInfo: ComponentModelInfo(from: item.model, category: item.category), deviceInfo: run.deviceInfo,
                    metrics: metrics
                )
                run.results.append(result)
                await checkpoint(run)
                continuation.yield(.result(result))
            }
            run.status = Task.isCancelled ? .cancelled : .completed
            run.completedAt = Date()
            run.processID = nil
            if let store {
                do {
                    try await store.persist(run)
                } catch {
                    configuration.runtime.configuration.logger.error(
                        "The benchmark run could not be saved", metadata: ["error": "\(error)"])
                    run.status = .failed
                }
            }
            continuation.finish()
            return run
        }
        return BenchmarkRunHandle(events: events, run: run)
    }

    /// Saves `run` as it stands; a failure is logged and the run goes on (its end reports it).
    private func checkpoint(_ run: BenchmarkRun) async {
        do {
            try await store?.persist(run)
        } catch {
            configuration.runtime.configuration.logger.warning(
                "The benchmark run could not be saved as it goes", metadata: ["error": "\(error)"])
        }
    }

    private struct WorkItem {
        let category: BenchmarkCategory
        let provider: any BenchmarkScenarioProvider
        let model: ModelInfo
        let scenario: BenchmarkScenario
    }

    /// Throws ``ErrorCode/invalidInput`` for the first of `names` that none of `categories`
    /// (every category when empty) offers, naming the scenarios they do: a misspelt name would
    /// otherwise run nothing.
    package func checkScenarios(_ names: [String], in categories: Set<BenchmarkCategory>) throws {
        let known = (categories.isEmpty ? Set(BenchmarkCategory.allCases) : categories).sorted().flatMap {
            providers[$0]?.scenarios().map(\.name) ?? []
        }
        guard let unknown = names.first(where: { !known.contains($0) }) else { return }
        throw SDKError(
            .invalidInput, "Unknown scenario '\(unknown)'; the categories chosen have \(known.map { "\"\($0)\"" }.joined(separator: ", "))")
    }

    private func workList(_ categories: Set<BenchmarkCategory>, _ names: Set<String>, report: (BenchmarkEvent) -> Void) -> [WorkItem] {
        let models = configuration.runtime.availableModels()
        var work: [WorkItem] = []
        for category in categories.sorted() {
            guard let provider = providers[category] else {
                report(.skipped(category, "No benchmark provider for \(category.displayName) in this build"))
                continue
            }
            let downloaded = category.downloadedModels(models)
            guard !downloaded.isEmpty else {
                report(.skipped(category, "No models available for \(category.displayName) — download one first"))
                continue
            }
            let scenarios = provider.scenarios().filter { names.isEmpty || names.contains($0.name) }
            for model in downloaded {
                for scenario in scenarios {
                    work.append(WorkItem(category: category, provider: provider, model: model, scenario: scenario))
                }
            }
        }
        return work
    }
}
