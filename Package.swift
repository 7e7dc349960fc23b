// swift-tools-version:6.1
// RunAnywhere for Linux: the on-device AI SDK, its engine adapters and the `runanywhere` CLI.
// Engines are opened at run time with dlopen(RTLD_LOCAL), so nothing here links a native engine,
// and the C loader targets declare the engine functions they call themselves (*_declarations.h,
// checked against the real headers by the tests): the package builds with no engine installed.
// scripts/setup installs the engines at run time's locations. Only CFFmpeg reads a system
// library's headers (Debian's libav*-dev).
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "RunAnywhere",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "RunAnywhere", targets: ["RunAnywhere"]),
        .library(name: "RunAnywhereLlamaCpp", targets: ["RunAnywhereLlamaCpp"]),
        .library(name: "RunAnywhereWhisperCpp", targets: ["RunAnywhereWhisperCpp"]),
        .library(name: "RunAnywhereSherpaOnnx", targets: ["RunAnywhereSherpaOnnx"]),
        // GPL-3, like eSpeak NG itself: a separate product an app opts into.
        .library(name: "RunAnywhereEspeak", targets: ["RunAnywhereEspeak"]),
        .library(name: "RunAnywhereFFmpeg", targets: ["RunAnywhereFFmpeg"]),
        .library(name: "RunAnywherePoppler", targets: ["RunAnywherePoppler"]),
        .library(name: "RunAnywhereStableDiffusion", targets: ["RunAnywhereStableDiffusion"]),
        .library(name: "RunAnywhereServer", targets: ["RunAnywhereServer"]),
        .library(name: "RunAnywherePostgres", targets: ["RunAnywherePostgres"]),
        .library(name: "RunAnywhereMCP", targets: ["RunAnywhereMCP"]),
        .executable(name: "runanywhere", targets: ["RunAnywhereCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.1.4"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.2"),
        // `swift package generate-documentation --target RunAnywhere`: the DocC catalog in Sources/RunAnywhere/RunAnywhere.docc.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk", from: "0.12.1"),
    ],
    targets: [
        // Core: public API and types, catalog, GGUF reader, chat formatting. No C, no engine.
        .target(
            name: "RunAnywhere",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // The analytics outbox of the staging and production backends.
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Opening an engine's library privately (dlopen RTLD_LOCAL) and resolving its functions.
        .target(name: "CEngineSupport", linkerSettings: [.linkedLibrary("dl")]),
        // Table of llama.cpp function pointers, and the text-generation adapter.
        .target(name: "CLlamaCpp", dependencies: ["CEngineSupport"]),
        .target(
            name: "RunAnywhereLlamaCpp",
            dependencies: ["RunAnywhere", "CLlamaCpp", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        // Table of whisper.cpp function pointers, and the speech-to-text / VAD adapter.
        .target(name: "CWhisperCpp", dependencies: ["CEngineSupport"]),
        .target(
            name: "RunAnywhereWhisperCpp",
            dependencies: ["RunAnywhere", "CWhisperCpp", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        // Table of stable-diffusion.cpp function pointers (C), its cancellable generation (C++),
        // and the image-generation adapter.
        .target(name: "CStableDiffusion", dependencies: ["CEngineSupport"]),
        .target(
            name: "RunAnywhereStableDiffusion",
            dependencies: ["RunAnywhere", "CStableDiffusion", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        // sherpa-onnx (Piper voices) and eSpeak NG (phonemes, formant voices).
        .target(name: "CSherpaOnnx", dependencies: ["CEngineSupport"]),
        .target(
            name: "RunAnywhereSherpaOnnx",
            dependencies: ["RunAnywhere", "CSherpaOnnx", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .target(name: "CEspeakNG", dependencies: ["CEngineSupport"]),
        .target(
            name: "RunAnywhereEspeak",
            dependencies: ["RunAnywhere", "CEspeakNG", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        // FFmpeg (Debian's libavformat, libavcodec, libswresample): MP3, FLAC, Ogg, WebM… audio in.
        .target(name: "CFFmpeg", dependencies: ["CEngineSupport"]),
        .target(
            name: "RunAnywhereFFmpeg",
            dependencies: ["RunAnywhere", "CFFmpeg"],
            swiftSettings: swiftSettings
        ),
        // Poppler (Debian's libpoppler-glib8): PDF files' text for RAG collections.
        .target(name: "CPoppler", dependencies: ["CEngineSupport"]),
        .target(
            name: "RunAnywherePoppler",
            dependencies: ["RunAnywhere", "CPoppler"],
            swiftSettings: swiftSettings
        ),
        // ONNX Runtime itself (the one that comes with sherpa-onnx), through its function table:
        // arbitrary ONNX networks such as BenchRunner's GradientIdentity.
        .target(name: "COnnxRuntime", dependencies: ["CEngineSupport"]),
        .target(
            name: "RunAnywhereOnnxRuntime",
            dependencies: ["RunAnywhere", "COnnxRuntime"],
            swiftSettings: swiftSettings
        ),
        // LiteRT (TensorFlow Lite's runtime from the ai-edge-litert wheel) through its C API:
        // BenchRunner's second backend.
        .target(name: "CLiteRt", dependencies: ["CEngineSupport"]),
        .target(
            name: "RunAnywhereLiteRT",
            dependencies: ["RunAnywhere", "CLiteRt"],
            swiftSettings: swiftSettings
        ),
        // BenchRunner: the frame-benchmark harness that posts telemetry (workloads, frames,
        // measurement, payload).
        .target(
            name: "RunAnywhereBenchRunner",
            dependencies: [
                "RunAnywhere", "RunAnywhereOnnxRuntime", "RunAnywhereLiteRT", .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"), .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // PostgreSQL for what the SDK keeps in SQLite by default (RAG collections), and the
        // connection code the telemetry collector's PostgreSQL store shares.
        .target(
            name: "RunAnywherePostgres",
            dependencies: [
                "RunAnywhere", .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The tools of Model Context Protocol servers, for a model to call (their official Swift SDK).
        .target(
            name: "RunAnywhereMCP",
            dependencies: ["RunAnywhere", .product(name: "MCP", package: "swift-sdk"), .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        // The telemetry collector: validation, SQLite and PostgreSQL stores, summaries and
        // regressions, export, and its HTTP routes.
        .target(
            name: "RunAnywhereTelemetry",
            dependencies: [
                "RunAnywhere", "RunAnywhereBenchRunner", "RunAnywherePostgres", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"), .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "CSV", package: "CSV.swift"), .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The benchmark suite: types, providers, runner, store and reports (screens' logic lives here).
        .target(
            name: "RunAnywhereBenchmarks", dependencies: ["RunAnywhere", .product(name: "CSV", package: "CSV.swift")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RunAnywhereServer",
            dependencies: [
                "RunAnywhere", "RunAnywhereBenchmarks", "RunAnywhereTelemetry", "RunAnywherePostgres",
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"), .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "MultipartKit", package: "multipart-kit"), .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            exclude: ["openapi.json"],
            resources: [.copy("WebApp")],
            swiftSettings: swiftSettings,
            plugins: [.plugin(name: "OpenAPIDocumentEmbedder")]
        ),
        // Builds the server's openapi.json into its binary (OpenAPIDocument.json).
        .executableTarget(name: "OpenAPIDocumentEmbed", swiftSettings: swiftSettings),
        .plugin(name: "OpenAPIDocumentEmbedder", capability: .buildTool(), dependencies: ["OpenAPIDocumentEmbed"]),
        .executableTarget(
            name: "RunAnywhereCLI",
            dependencies: [
                "RunAnywhere", "RunAnywhereLlamaCpp", "RunAnywhereWhisperCpp", "RunAnywhereSherpaOnnx", "RunAnywhereEspeak",
                "RunAnywhereFFmpeg", "RunAnywherePoppler", "RunAnywhereStableDiffusion", "RunAnywhereBenchmarks", "RunAnywhereServer",
                "RunAnywhereBenchRunner", "RunAnywhereTelemetry", "RunAnywherePostgres", "RunAnywhereMCP", "CEngineSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The example app's source (examples/QuickStart, a package of its own that depends on this one
        // by path, as an app does), also built here so that `make test` compiles and runs it without
        // building every dependency a second time; `packageAccess: false` gives it only the public API,
        // as in its own package.
        .executableTarget(
            name: "QuickStart",
            dependencies: ["RunAnywhere", "RunAnywhereLlamaCpp", "RunAnywhereWhisperCpp"],
            path: "examples/QuickStart/Sources/QuickStart",
            packageAccess: false
        ),
        // Fixtures the tests generate (GGUF files), and helpers to find the real engine and model.
        .target(
            name: "RunAnywhereTestSupport",
            dependencies: [
                "RunAnywhere", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"), "RunAnywherePostgres",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/RunAnywhereTestSupport", swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RunAnywhereTests",
            dependencies: [
                "RunAnywhere", "RunAnywherePoppler", "RunAnywherePostgres", "RunAnywhereMCP", "RunAnywhereTestSupport",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "Crypto", package: "swift-crypto"),
            ], swiftSettings: swiftSettings),
        .testTarget(
            name: "RunAnywhereLlamaCppTests",
            dependencies: [
                "RunAnywhere", "RunAnywhereLlamaCpp", "RunAnywhereTestSupport", .product(name: "Logging", package: "swift-log"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RunAnywhereSpeechTests",
            dependencies: [
                "RunAnywhere", "RunAnywhereLlamaCpp", "RunAnywhereWhisperCpp", "RunAnywhereSherpaOnnx", "RunAnywhereEspeak",
                "RunAnywhereFFmpeg", "RunAnywhereStableDiffusion",
                "RunAnywhereTestSupport", .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RunAnywhereBenchmarksTests",
            dependencies: ["RunAnywhereBenchmarks", "RunAnywhereLlamaCpp", "RunAnywhereStableDiffusion", "RunAnywhereTestSupport"],
            swiftSettings: swiftSettings
        ),
        // BenchRunner's parts (frames, meter, payload, system probe) and GradientIdentity on ONNX Runtime.
        .testTarget(
            name: "RunAnywhereBenchRunnerTests",
            dependencies: [
                "RunAnywhereBenchRunner", "RunAnywhereOnnxRuntime", "RunAnywhereLiteRT", "RunAnywhere", "RunAnywhereTestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        // The collector against real SQLite and a throwaway PostgreSQL cluster, in process and over HTTP.
        .testTarget(
            name: "RunAnywhereTelemetryTests",
            dependencies: [
                "RunAnywhereTelemetry", "RunAnywhereBenchRunner", "RunAnywhere", "RunAnywhereTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"), .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: swiftSettings
        ),
        // Image generation on stable-diffusion.cpp and the diffusion fixture, beside llama.cpp.
        .testTarget(
            name: "RunAnywhereDiffusionTests",
            dependencies: ["RunAnywhere", "RunAnywhereStableDiffusion", "RunAnywhereLlamaCpp", "RunAnywhereTestSupport"],
            swiftSettings: swiftSettings
        ),
        // The server's routes in process (Hummingbird's test client) against the scripted engine.
        .testTarget(
            name: "RunAnywhereServerTests",
            dependencies: [
                "RunAnywhereServer", "RunAnywhere", "RunAnywhereBenchmarks", "RunAnywhereLlamaCpp", "RunAnywherePoppler",
                "RunAnywhereTelemetry",
                "RunAnywhereTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"), .product(name: "Logging", package: "swift-log"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            swiftSettings: swiftSettings
        ),
        // Runs the built `runanywhere` binary as a user would.
        .testTarget(
            name: "RunAnywhereCLITests",
            dependencies: [
                "RunAnywhereCLI", "RunAnywhere", "RunAnywhereLlamaCpp", "RunAnywhereTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
