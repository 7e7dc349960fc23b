import CLlamaCpp
import Foundation
import RunAnywhere

/// The LoRA adapter files loaded for one model, by the identity of the file (a rewritten file
/// is loaded again, not taken for the old one). A request's adapters are loaded on the thread
/// that submits it, so that reading a large adapter does not stall the steps of the requests
/// running; each is pinned while a request that applies it waits or runs, and of those no
/// request uses, only the ``idleKept`` used last stay loaded.
final class LoRAAdapterCache: @unchecked Sendable {
    /// One adapter of a request's set: the file and its scale.
    struct Applied: Equatable {
        let identity: FileIdentity
        let scale: Float
    }

    /// Adapters kept loaded while no request uses them, so that a client taking turns with a
    /// few does not read them again each time.
    static let idleKept = LoRAAdapter.maxPerRequest

    private struct Loaded {
        let pointer: OpaquePointer
        var pins = 0
        var lastUsed: UInt64 = 0
    }

    private let library: LlamaLibrary
    private let model: OpaquePointer
    /// Held while llama.cpp loads or frees an adapter: both change the model's set of adapters.
    private let loading = NSLock()
    /// Guards `loaded` and `clock`.
    private let lock = NSLock()
    private var loaded: [FileIdentity: Loaded] = [:]
    private var clock: UInt64 = 0
    /// Adapters taken out whose freeing waits for a load in progress to end.
    private var unfreed: [OpaquePointer] = []

    init(library: LlamaLibrary, model: OpaquePointer) {
        self.library = library
        self.model = model
    }

    /// Loads the adapters not loaded yet and pins them all for a request; ``unpin(_:)`` them
    /// when it ends. Throws ``RunAnywhere/ErrorCode/modelIncompatible`` for a file that does
    /// not fit the model.
    func pin(_ adapters: [LoRAAdapter]) throws -> [Applied] {
        guard !adapters.isEmpty else { return [] }
        loading.lock()
        defer { loading.unlock() }
        var set: [Applied] = []
        var pinned: [Applied] = []
        var fresh: [FileIdentity: OpaquePointer] = [:]
        func fail(_ error: SDKError) -> SDKError {
            fresh.values.forEach { library.api.llama_adapter_lora_free($0) }
            unpin(pinned)
            return error
        }
        for adapter in adapters {
            guard let identity = FileIdentity(path: adapter.path) else {
                throw fail(SDKError(.fileNotFound, "No LoRA adapter file at \(adapter.path)"))
            }
            let applied = Applied(identity: identity, scale: adapter.scale)
            set.append(applied)
            // Pinned at once, so that it is not freed between this look and the request's start.
            let found = lock.withLock {
                guard loaded[identity] != nil else { return false }
                loaded[identity]?.pins += 1
                return true
            }
            if found {
                pinned.append(applied)
                continue
            }
            guard fresh[identity] == nil else { continue }
            guard let pointer = library.api.llama_adapter_lora_init(model, adapter.path) else {
                throw fail(
                    SDKError.llm(
                        .modelIncompatible,
                        "llama.cpp could not apply the LoRA adapter \(adapter.path) to this model: its tensors do not match the model's (the engine log says which)"
                    ))
            }
            fresh[identity] = pointer
        }
        lock.withLock {
            for (identity, pointer) in fresh {
                loaded[identity] = Loaded(pointer: pointer, pins: set.count { $0.identity == identity })
            }
        }
        return set
    }

    /// A request that applied `set` ended.
    func unpin(_ set: [Applied]) {
        guard !set.isEmpty else { return }
        lock.withLock {
            clock += 1
            for applied in set {
                loaded[applied.identity]?.pins -= 1
                loaded[applied.identity]?.lastUsed = clock
            }
        }
    }

    /// The loaded adapters of `set`, in order, for `llama_set_adapters_lora`.
    func pointers(_ set: [Applied]) -> [OpaquePointer?] {
        lock.withLock { set.map { loaded[$0.identity]?.pointer } }
    }

    /// Takes out the adapters no request uses beyond the ``idleKept`` used last; the scheduler
    /// frees them with ``free(_:)`` once its context no longer applies them.
    func takeIdle() -> [FileIdentity: OpaquePointer] {
        lock.withLock {
            let idle = loaded.filter { $0.value.pins == 0 }.sorted { $0.value.lastUsed > $1.value.lastUsed }
            var taken: [FileIdentity: OpaquePointer] = [:]
            for (identity, adapter) in idle.dropFirst(Self.idleKept) {
                taken[identity] = adapter.pointer
                loaded[identity] = nil
            }
            return taken
        }
    }

    /// Frees adapters taken out with ``takeIdle()``; while another thread loads one, they are
    /// freed by a later call instead, so that the scheduler never waits for a load.
    func free(_ taken: [FileIdentity: OpaquePointer]) {
        let due = lock.withLock {
            unfreed += taken.values
            return unfreed.isEmpty ? [] : unfreed
        }
        guard !due.isEmpty, loading.try() else { return }
        defer { loading.unlock() }
        lock.withLock { unfreed.removeAll { due.contains($0) } }
        due.forEach { library.api.llama_adapter_lora_free($0) }
    }

    /// How many adapters are loaded now.
    var count: Int { lock.withLock { loaded.count } }

    /// The bytes of the adapters loaded now (llama.cpp holds an adapter's tensors as its file has them).
    var memory: Int64 { lock.withLock { loaded.keys.reduce(0) { $0 + $1.size } } }
}
