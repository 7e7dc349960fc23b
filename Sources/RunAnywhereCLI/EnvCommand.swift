import ArgumentParser
import Foundation
import RunAnywhere

/// `runanywhere env …`: the runtime environment switcher. API keys are read from standard input,
/// stored readable only by the user, and only ever shown masked.
struct EnvCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "env", abstract: "Show or switch the SDK environment (development, staging, production).",
        subcommands: [Show.self, Use.self], defaultSubcommand: Show.self
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show the environments; keys are masked.")
        @OptionGroup var global: GlobalOptions
        @Flag(name: .long, help: "Print a JSON array.") var json = false

        func run() async throws {
            try await CLIContext.run(global) { context in
                let statuses = try context.environments.statuses()
                if json { return try JSONOutput.print(statuses) }
                Terminal.write(EnvCommand.describe(statuses))
                if let backend = try await RunAnywhere.backendStatus() { Terminal.write(EnvCommand.describe(backend)) }
            }
        }
    }

    struct Use: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "use", abstract: "Select an environment and re-initialize the SDK with it.",
            discussion: "Development needs no key and makes no network call. Staging and production need a base URL and an API key."
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "development, staging or production.") var environment: SDKEnvironment
        @Option(name: .customLong("base-url"), help: "The environment's base URL.") var baseURL: String?
        @Flag(name: .customLong("api-key-stdin"), help: "Read the environment's API key from standard input.") var apiKeyStdin = false

        func run() async throws {
            try await CLIContext.run(global) { context in
                let key = apiKeyStdin ? try StandardInput.text() : nil
                try context.environments.use(environment, baseURL: baseURL, apiKey: key)
                try RunAnywhere.initialize(from: context.environments, configuration: context.configuration)
                Terminal.write(
                    "SDK re-initialized for the \(environment.description).\n" + EnvCommand.describe(try context.environments.statuses()))
            }
        }
    }

    /// The selected backend's device registration and queued analytics.
    static func describe(_ backend: BackendStatus) -> String {
        let device = backend.deviceID.map { "registered as \($0)" } ?? "not registered yet"
        return "Backend \(backend.baseURL): device \(device); \(backend.queuedEvents) analytics event(s) queued\n"
    }

    static func describe(_ statuses: [EnvironmentStatus]) -> String {
        statuses.map { status in
            let marker = status.isSelected ? "*" : " "
            let name = status.environment.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)
            return "\(marker) \(name) base URL: \(status.baseURL ?? "(none)")  API key: \(status.maskedAPIKey ?? "(none)")"
        }.joined(separator: "\n") + "\n"
    }
}

extension SDKEnvironment: ExpressibleByArgument {}
