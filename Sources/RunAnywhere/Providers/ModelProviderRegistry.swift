import Foundation
import Synchronization

/// The model providers a runtime resolves references with, and whose hosts get their tokens on
/// downloads. It starts with ``HuggingFaceProvider`` configured from the environment.
package final class ModelProviderRegistry: Sendable {
    private let providers: Mutex<[any ModelProvider]>

    /// A registry of `providers`, the first that handles a reference answering for it.
    package init(providers: [any ModelProvider] = [HuggingFaceProvider()]) {
        self.providers = Mutex(providers)
    }

    /// Adds a provider, replacing one of the same name, ahead of the others: it answers first
    /// for the references several handle.
    package func register(_ provider: any ModelProvider) {
        providers.withLock { list in
            list.removeAll { $0.name == provider.name }
            list.insert(provider, at: 0)
        }
    }

    /// Every registered provider, the first answering first.
    package var all: [any ModelProvider] { providers.withLock { $0 } }

    /// The provider that handles `reference`, if any.
    package func provider(for reference: String) -> (any ModelProvider)? {
        all.first { $0.handles(reference) }
    }

    /// The headers that authenticate a download of `url`: those of the first provider whose
    /// host it is; none for a host no provider claims.
    package func authenticationHeaders(for url: URL) -> [String: String] {
        for provider in all {
            let headers = provider.authenticationHeaders(for: url)
            if !headers.isEmpty { return headers }
        }
        return [:]
    }
}
