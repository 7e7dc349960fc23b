import Foundation

extension RunAnywhere {
    /// Plugs in a model provider (ahead of the others, replacing one of the same name).
    public static func registerModelProvider(_ provider: any ModelProvider) throws {
        try runtime().providers.register(provider)
    }
}
