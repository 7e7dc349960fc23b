import Foundation
import RunAnywhere

/// The draft models loaded for one model, by the identity of the file. A request's draft is
/// loaded on the thread that submits it, so that reading it does not stall the steps of the
/// requests running; it is pinned while a request that drafts with it waits or runs, and of
/// those no request uses, only the one used last stays loaded (a model's own default draft, or
/// a client's).
final class DraftModelCache: @unchecked Sendable {
    private struct Loaded {
        let draft: DraftModel
        var pins = 0
        var lastUsed: UInt64 = 0
    }

    /// Draft models kept loaded while no request uses them.
    static let idleKept = 1

    private let target: LlamaContext
    /// Held while a draft model loads, so that two requests for one load it once.
    private let loading = NSLock()
    /// Guards `loaded` and `clock`.
    private let lock = NSLock()
    private var loaded: [FileIdentity: Loaded] = [:]
    private var clock: UInt64 = 0

    init(target: LlamaContext) {
        self.target = target
    }

    /// The draft model at `path`, loaded if it is not yet, pinned for a request; ``unpin(_:)``
    /// it when the request ends. Throws ``RunAnywhere/ErrorCode/modelIncompatible`` for a model
    /// whose vocabulary differs from the target's.
    func pin(path: String, threads: Int) throws -> DraftModel {
        guard let identity = FileIdentity(path: path) else { throw SDKError(.fileNotFound, "No draft model file at \(path)") }
        loading.lock()
        defer { loading.unlock() }
        if let draft = lock.withLock({ () -> DraftModel? in
            loaded[identity]?.pins += 1
            return loaded[identity]?.draft
        }) {
            return draft
        }
        let draft = try DraftModel(path: path, identity: identity, target: target, threads: threads)
        lock.withLock { loaded[identity] = Loaded(draft: draft, pins: 1) }
        return draft
    }

    /// A request that drafted with `draft` ended.
    func unpin(_ draft: DraftModel) {
        lock.withLock {
            clock += 1
            loaded[draft.identity]?.pins -= 1
            loaded[draft.identity]?.lastUsed = clock
        }
    }

    /// Takes out the draft models no request uses beyond the ``idleKept`` used last, for the
    /// scheduler thread (the only one that decodes with them) to free.
    func takeIdle() -> [DraftModel] {
        lock.withLock {
            let idle = loaded.values.filter { $0.pins == 0 }.sorted { $0.lastUsed > $1.lastUsed }.dropFirst(Self.idleKept)
            for entry in idle { loaded[entry.draft.identity] = nil }
            return idle.map(\.draft)
        }
    }

    /// Takes out every draft model, once the scheduler has stopped.
    func takeAll() -> [DraftModel] {
        lock.withLock {
            defer { loaded = [:] }
            return loaded.values.map(\.draft)
        }
    }

    /// The memory of the draft models loaded now: each one's file, and a fifth more for its
    /// context (as the model's own estimate counts a model without metadata).
    var memory: Int64 { lock.withLock { loaded.keys.reduce(0) { $0 + $1.size + $1.size / 5 } } }
}
