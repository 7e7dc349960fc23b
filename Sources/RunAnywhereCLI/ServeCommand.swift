import ArgumentParser
import Foundation
import Logging
import RunAnywhere
import RunAnywhereServer

/// `runanywhere serve`: the OpenAI-compatible API on this machine.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve an OpenAI-compatible API (chat completions, completions, models) on this machine.",
        discussion: "Binds to 127.0.0.1 unless told otherwise; another address needs an API key (--api-key-stdin). SIGINT or SIGTERM stops it gracefully."
    )

    @OptionGroup var global: GlobalOptions
    @Option(name: .long, help: "Address to listen on.") var host = "127.0.0.1"
    @Option(name: .long, help: "Port to listen on (0 picks a free one).") var port = 8080
    @Flag(name: .customLong("api-key-stdin"), help: "Read an API key from standard input; clients then send 'Authorization: Bearer KEY'.") var apiKeyStdin = false
    @Option(name: .customLong("cors"), help: "Let web pages from this origin call the API (repeatable).") var corsOrigins: [String] = []
    @Option(name: .long, help: "CPU threads per generation (default: the model's).") var threads: Int?
    @Option(name: .customLong("context-length"), help: "Context window for models loaded on demand (default: the model's, at most 4096).") var contextLength: Int?
    @Option(name: .customLong("max-body"), help: "Largest request body in MiB.") var maxBodyMiB = 32

    func validate() throws {
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
        if maxBodyMiB < 1 { throw ValidationError("--max-body must be at least 1 MiB") }
    }

    func run() async throws {
        try await CLIContext.run(global) { context in
            let key = apiKeyStdin ? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : nil
            if apiKeyStdin, key?.isEmpty ?? true { throw SDKError(.invalidConfiguration, "--api-key-stdin read no key from standard input") }
            var logger = context.logger
            logger.logLevel = global.verbose ? .debug : .info
            let configuration = ServerConfiguration(
                host: host, port: port, apiKey: key, corsOrigins: corsOrigins, maxBodySize: maxBodyMiB << 20, threads: threads,
                loadOptions: ModelLoadOptions(contextLength: contextLength, threads: threads), logger: logger
            )
            let server = RunAnywhereServer(runtime: try RunAnywhere.runtime(), configuration: configuration)
            try await server.run { port in
                Terminal.standardError("RunAnywhere is serving the OpenAI API at http://\(host.contains(":") ? "[\(host)]" : host):\(port)/v1")
            }
        }
    }
}
