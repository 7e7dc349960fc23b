import Foundation

/// Runs each loaded language (and vision-language) model's and embedding model's engine in a
/// worker process of its own instead of in this process (``RuntimeConfiguration/engineProcesses``),
/// as ollama runs a runner per model.
///
/// A fault in native engine code (a signal, an `abort()`, the OOM killer) then ends only its
/// worker: the requests that worker was serving fail with ``ErrorCode/engineCrashed``, naming the
/// model and the signal, and the next request for the model loads it again in a new worker.
/// Other models, and everything else the app does, go on. The model cache works as it does in
/// process (memory budget, keep-alive, least recently used first, loaded-model listing), and the
/// engine inside the worker batches as it does in process.
///
/// `runanywhere serve` runs models this way; apps keep engines in process unless they set it.
/// The other modalities (speech, voices, images, rerankers) stay in process.
public struct EngineProcesses: Sendable {
    /// The worker program: it must run ``EngineWorker/serve(frameworks:logger:)`` (the CLI's
    /// hidden `runanywhere engine-worker` does). It is started as `executable arguments…
    /// --model <id>`, so that `ps` names the model each worker holds.
    public var executable: URL
    /// The arguments before `--model`.
    public var arguments: [String]
    /// How long a worker may take to start and load its model before it counts as hung and is killed.
    public var loadTimeout: Duration
    /// The engines whose language and embedding models run in workers (those the worker program
    /// registers); models of other engines load in this process.
    public var frameworks: Set<InferenceFramework>

    /// Creates the setting (by default for llama.cpp's language and vision-language models).
    public init(executable: URL, arguments: [String], loadTimeout: Duration = .seconds(600), frameworks: Set<InferenceFramework> = [.llamaCpp]) {
        self.executable = executable
        self.arguments = arguments
        self.loadTimeout = loadTimeout
        self.frameworks = frameworks
    }
}
