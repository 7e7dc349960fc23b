import Foundation
import Logging
import RunAnywhere
import RunAnywhereTelemetry

/// How `runanywhere serve` listens and what it allows.
public struct ServerConfiguration: Sendable {
    /// The address to bind; loopback unless an API key is set.
    public var host: String
    /// The TCP port; 0 picks a free one.
    public var port: Int
    /// When set, every route but `/health` needs `Authorization: Bearer <key>`.
    public var apiKey: String?
    /// Origins allowed to call the API from a browser besides the server's own (the web app);
    /// a page on any other origin is refused with a 403.
    public var corsOrigins: [String]
    /// Host names requests may name beyond loopback names and `host` (`--allowed-host`; `*`: any):
    /// a request whose `Host` names another server is refused with a 403 (DNS rebinding).
    public var allowedHosts: [String] = []
    /// Largest request body accepted, in bytes.
    public var maxBodySize: Int
    /// The version benchmark reports name.
    public var appVersion = "0.1.0"
    /// Longest audio a transcription request may send, in seconds.
    public var maxAudioDuration: TimeInterval = 1800
    /// CPU threads per generation; nil keeps each model's default.
    public var threads: Int?
    /// How models are loaded when a request names one that is not loaded: context per
    /// sequence, generations at once (`parallel`, default 4) and the queue behind them.
    public var loadOptions: ModelLoadOptions
    /// How long a model stays loaded after its last request, unless a request says otherwise.
    public var keepAlive: KeepAlive
    /// Access log and server diagnostics.
    public var logger: Logger
    /// Where BenchRunner runs are kept, served under `/telemetry` (the collector's routes, for the
    /// web app's Telemetry page); nil serves none.
    package var telemetryStore: (any TelemetryStore)?
    /// The PostgreSQL database replicas share (`serve --database`, which also opens the
    /// ``ragSession`` there): API keys, stored responses, the generation settings, conversations
    /// and the benchmark history live there instead of the data folder; nil keeps them in the data folder. The
    /// server closes it when it stops.
    package var database: ServerDatabase?
    /// The document collections of `/api/rag` and of conversations answered from documents
    /// (`RAGDatabases.session` opens one in PostgreSQL); nil uses `rag.sqlite` in the data
    /// folder, as `runanywhere rag` does. The server closes it when it stops.
    public var ragSession: RAGSession?
    /// LoRA adapter files the language models may apply, with their scales (llama-server's
    /// `--lora`): every request of any API that does not choose (a chat completion's or
    /// completion's `lora`) applies those made for its model's architecture. Listed and rescaled
    /// at `/lora-adapters`; a scale of 0 leaves an adapter out.
    public var loraAdapters: [LoRAAdapter] = []
    /// The draft model each language model (by id) speculates with unless a request or a load
    /// names another (`serve --draft-model MODEL=DRAFT`): a model id or a GGUF path, up to
    /// ``RunAnywhere/ModelLoadOptions/speculation``'s draft length of tokens a step (8 when that is off).
    public var draftModels: [String: String] = [:]
    /// How long SIGTERM or SIGINT lets running requests finish (streams included) once the server
    /// stops taking new connections; after it, what still runs is cancelled (`serve --drain-timeout`).
    public var drainTimeout: Duration = .seconds(30)
    /// Tools the conversations' answers may call, run by the server as the model calls them
    /// (`serve --mcp`: an MCP server's tools), listed at `/api/tools`; an answer's `toolChoice`
    /// picks among them, ``RunAnywhere/ChatTools/toolChoice`` when it does not. Nil: none. The
    /// OpenAI, Anthropic and ollama routes never offer them: their clients bring their own tools.
    public var chatTools: ChatTools?
    /// How long each store (the database, the key store, the document collections) may take to
    /// answer `GET /ready` before the probe reports it unreachable: a load balancer's probe
    /// gives up after a few seconds of its own.
    package var readinessLimit: Duration = .seconds(2)
    /// How long a connection may stay open with no request in flight: before its first request
    /// (then it gets a 408) or between two. A client that opens connections and leaves them would
    /// otherwise hold the server's file descriptors. 75 s, nginx's `keepalive_timeout`, is longer
    /// than the 60 s for which AsyncHTTPClient keeps an idle connection: a client that keeps
    /// connections for less closes them first, so none sends a request on one being closed
    /// (`serve --idle-timeout`).
    package var idleTimeout: Duration = .seconds(75)

    /// Creates a configuration.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, apiKey: String? = nil, corsOrigins: [String] = [],
        maxBodySize: Int = 32 << 20, threads: Int? = nil, loadOptions: ModelLoadOptions = ModelLoadOptions(parallel: 4, queueLimit: 16),
        keepAlive: KeepAlive = .default, logger: Logger
    ) {
        self.host = host
        self.port = port
        self.apiKey = apiKey
        self.corsOrigins = corsOrigins
        self.maxBodySize = maxBodySize
        self.threads = threads
        self.loadOptions = loadOptions
        self.keepAlive = keepAlive
        self.logger = logger
    }

    /// Which requests may come in by their `Host`, `Origin` and `Sec-Fetch-*` headers.
    package var originPolicy: RequestOriginPolicy {
        RequestOriginPolicy(boundHost: host, allowedHosts: allowedHosts, allowedOrigins: corsOrigins)
    }

    /// Whether `host` is a loopback address, reachable only from this machine.
    package var isLoopback: Bool {
        LoopbackAddress.contains(host)
    }

    /// Refuses what would expose the server unsafely: binding beyond loopback with no API key,
    /// neither ``apiKey`` nor, when `keysExist`, one of the data folder's (`runanywhere keys create`).
    package func validate(keysExist: Bool = false) throws {
        if !isLoopback, apiKey?.isEmpty ?? true, !keysExist {
            throw SDKError(
                .invalidConfiguration,
                "Refusing to listen on \(host) without an API key: anyone on the network could use it. Create one with 'runanywhere keys create NAME', pass --api-key-stdin, or bind to 127.0.0.1"
            )
        }
        guard (0...65_535).contains(port) else { throw SDKError(.invalidConfiguration, "The port must be between 0 and 65535") }
        guard maxBodySize > 0 else { throw SDKError(.invalidConfiguration, "The body size limit must be positive") }
        try ModelLoadOptions.checkThreads(threads)
        for adapter in loraAdapters {
            guard FileManager.default.fileExists(atPath: adapter.path), adapter.scale.isFinite else {
                throw SDKError(
                    .invalidConfiguration,
                    "No LoRA adapter file at \(adapter.path), and no imported adapter has that id; or its scale is not a finite number")
            }
            _ = try LoRAAdapter.architecture(ofAdapterAt: URL(fileURLWithPath: adapter.path))
        }
        try loadOptions.validate()
    }
}
