import Foundation

/// A model the runtime holds, of any modality: loading or loaded, with its users and keep-alive.
struct CachedModel {
    let info: ModelInfo
    let kind: EngineKind
    let framework: InferenceFramework
    /// Host memory it is estimated to take (what the memory budget counts).
    let memory: Int64
    /// GPU memory it is estimated to take (outside the budget).
    let deviceMemory: Int64
    /// How an image-generation model was loaded; a request for it loaded otherwise reloads it.
    let diffusionConfiguration: DiffusionConfiguration?
    var engine: LoadedEngine?
    var loading: Task<LoadedEngine, any Error>?
    var uses = 0
    var lastUsed = ContinuousClock.now
    var keepAlive: KeepAlive
    var expiresAt: Date?
    /// Bumped whenever the keep-alive timer is set or cleared, so a stale timer does nothing.
    var timerEpoch: UInt64 = 0
    /// The running keep-alive timer, cancelled when it is superseded: a busy server ends a
    /// request every few milliseconds, and each sleeping timer holds about 2 KB until it wakes.
    var keepAliveTimer: Task<Void, Never>?
    /// Tasks waiting for the model to be idle, to unload it.
    var idleWaiters: [CheckedContinuation<Void, Never>] = []
    /// Whether a request has the engine to itself (``RunAnywhereRuntime/inTurn(on:_:)``), and
    /// the requests waiting for their turn, in order.
    var serving = false
    var turnWaiters: [CheckedContinuation<Void, Never>] = []

    var state: ModelLifecycleState { engine == nil ? .loading : .loaded }

    /// The engine of a loaded language model.
    var service: (any LLMService)? {
        if case .language(let service)? = engine { service } else { nil }
    }

    /// Host memory it holds now: its estimate, and what its engine loaded for requests since
    /// (``LLMService/auxiliaryMemory``: LoRA adapters, draft models).
    var heldMemory: Int64 { memory.saturatingAdd(service?.auxiliaryMemory ?? 0) }

    /// Stops the keep-alive timer, if one runs: it neither fires nor stays in memory.
    mutating func stopKeepAliveTimer() {
        timerEpoch += 1
        keepAliveTimer?.cancel()
        keepAliveTimer = nil
    }
}

/// A loaded model lent to one request, with its engine as the request uses it: any kind's
/// ``LoadedEngine``, or the one service of the kind it was lent as. Give it back with
/// ``RunAnywhereRuntime/release(_:)``.
struct ModelLease<Engine> {
    let info: ModelInfo
    let framework: InferenceFramework
    let engine: Engine
}

extension ModelLease: Sendable where Engine: Sendable {}
