import ArgumentParser
import Foundation
import RunAnywhere
import RunAnywhereLlamaCpp

/// `runanywhere rpc-worker`: this machine's CPU or GPU served to llama.cpp models loaded
/// elsewhere with RPC workers (`--rpc`, ``ModelLoadOptions/rpcWorkers``), through llama.cpp's RPC
/// backend, as llama.cpp's `rpc-server` does (either serves the other's clients).
struct RPCWorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rpc-worker",
        abstract: "Serve this machine's CPU or GPU to language models loaded elsewhere with --rpc (llama.cpp's RPC backend).",
        discussion: """
            A model loaded with `--rpc HOST:PORT` (generate, chat, bench run, serve) places its layers on the workers it names, \
            for a model larger than one machine's memory. The protocol has no authentication and no encryption: anyone who can \
            reach the port can run code on its devices and read what they hold, so the worker listens on 127.0.0.1 unless told \
            otherwise, and belongs on a trusted network only. A worker serves one client (one loaded model's process) at a time. \
            SIGINT or SIGTERM stops it.
            """
    )

    @OptionGroup var global: GlobalOptions
    @Option(name: .long, help: "IPv4 address to listen on (0.0.0.0: every interface; trusted networks only).") var host = "127.0.0.1"
    @Option(name: .long, help: "Port to listen on.") var port = 50052
    @Option(
        name: .customLong("device"),
        help: "A device to serve, by llama.cpp's name (CPU, CUDA0, Vulkan0; repeatable; default: every GPU, else the CPU).")
    var devices: [String] = []
    @Option(name: .long, help: "CPU threads for the CPU device (default: up to 4).") var threads: Int?
    @Flag(
        name: .long,
        help: "Keep the tensors clients send in the data folder's rpc-cache, so that loading the same model again sends only their hashes.")
    var cache = false

    func validate() throws {
        if !(1...65_535).contains(port) { throw ValidationError("--port must be 1 to 65535") }
        try ModelLoadOptions.checkThreads(threads)
    }

    func run() throws {
        let logger = CLIContext.makeLogger(global)
        if host != "127.0.0.1" {
            logger.warning(
                "llama.cpp's RPC protocol has no authentication: anyone who reaches \(host):\(port) can use this machine's devices; serve it on a trusted network only"
            )
        }
        var cacheDirectory: String?
        if cache {
            let folder = RuntimeConfiguration.dataDirectory().appendingPathComponent("rpc-cache")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            cacheDirectory = folder.path
        }
        try LlamaRPC.serve(
            host: host, port: port, deviceNames: devices.flatMap { $0.split(separator: ",").map(String.init) },
            threads: threads ?? SystemHardwareDetector().profile(accelerators: []).defaultThreads, cacheDirectory: cacheDirectory,
            logger: logger
        )
    }
}
