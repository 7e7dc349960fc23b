import RunAnywhere

/// One scenario of the standard suite.
package struct BenchmarkScenario: Sendable, Equatable {
    /// The scenario's name.
    package let name: String
    /// The component the scenario measures.
    package let category: BenchmarkCategory

    /// Creates a scenario.
    package init(name: String, category: BenchmarkCategory) {
        self.name = name
        self.category = category
    }
}

/// How providers measure.
package struct BenchmarkConfiguration: Sendable {
    /// The runtime whose engines and models are measured.
    package let runtime: RunAnywhereRuntime
    /// Measured passes per scenario, after one discarded warm-up; the median is reported.
    package let repetitions: Int
    /// CPU threads; nil uses the SDK's default.
    package let threads: Int?
    /// Speculative decoding for the language-model scenarios; nil keeps the model's default. With
    /// it, language models load reproducible, where their seeded scenarios can speculate.
    package let speculation: LLMSpeculation?
    /// RPC workers that take the language and vision-language models' layers (``ModelLoadOptions/rpcWorkers``).
    package let rpcWorkers: [String]

    /// Creates a configuration: the runtime to measure, runs per scenario, CPU threads (nil:
    /// each model's default), speculative decoding and RPC workers for language models.
    package init(
        runtime: RunAnywhereRuntime, repetitions: Int = 3, threads: Int? = nil, speculation: LLMSpeculation? = nil,
        rpcWorkers: [String] = []
    ) {
        self.runtime = runtime
        self.repetitions = max(1, repetitions)
        self.threads = threads
        self.speculation = speculation
        self.rpcWorkers = rpcWorkers
    }
}

/// A component's benchmark: its scenarios and how to run one on a model.
package protocol BenchmarkScenarioProvider: Sendable {
    /// The component.
    var category: BenchmarkCategory { get }
    /// The scenarios of the standard suite.
    func scenarios() -> [BenchmarkScenario]
    /// Loads `model` (timing it), runs `scenario`, unloads, and returns what was measured.
    func execute(scenario: BenchmarkScenario, model: ModelInfo, deviceInfo: BenchmarkDeviceInfo) async throws -> BenchmarkMetrics
}
