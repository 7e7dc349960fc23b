import CLlamaCpp
import Foundation
import Logging
import RunAnywhere
import Synchronization

/// llama.cpp's RPC backend (ggml-rpc): a model's layers placed on RPC workers, other processes
/// or machines that serve their devices (``ModelLoadOptions/rpcWorkers``), and this machine's
/// devices served to others (`runanywhere rpc-worker`, ``serve(host:port:deviceNames:threads:cacheDirectory:library:)``).
///
/// The protocol has neither authentication nor encryption, as llama.cpp says of it: workers
/// belong on loopback or a trusted network. A worker serves one client at a time. ggml aborts
/// the process when a worker cannot be reached or stops answering, so each worker is first
/// greeted here (``hello(_:timeout:)``): one that is not there, is busy with another client or
/// speaks another protocol is a load error instead. (Another client that takes the worker
/// between the greeting and ggml's own connection still makes ggml wait for it.) A worker that
/// goes away after the load still ends the process that holds the model; `runanywhere serve` runs each model in a worker
/// process of its own, so there it ends only that model's requests.
package enum LlamaRPC {
    /// How long a worker has to accept a connection and answer the greeting.
    static let helloTimeout: Duration = .seconds(5)

    /// Endpoints this process holds a connection to, with how many loaded models use each: ggml
    /// shares one connection per endpoint in a process, so a worker in use here is not greeted
    /// again (the greeting would wait behind this process's own connection).
    private static let connected = Mutex<[String: Int]>([:])

    /// The workers at `endpoints` for a load, each greeted first unless this process already
    /// uses it, with their devices; they count as used by this process while the result lives.
    static func workers(_ endpoints: [String], library: LlamaLibrary) throws -> Workers {
        let api = library.api
        let addServer = unsafeBitCast(try function("ggml_backend_rpc_add_server", library: library), to: ra_rpc_add_server_fn.self)
        let inUse = connected.withLock { connected in Set(endpoints.filter { connected[$0, default: 0] > 0 }) }
        for endpoint in endpoints where !inUse.contains(endpoint) {
            try checkVersion(endpoint, hello(endpoint, timeout: helloTimeout))
        }
        var devices: [ggml_backend_dev_t] = []
        for endpoint in endpoints {
            guard let worker = addServer(endpoint) else {
                throw SDKError.llm(.modelLoadFailed, "The RPC worker at \(endpoint) offers no device")
            }
            for index in 0..<api.ggml_backend_reg_dev_count(worker) {
                if let device = api.ggml_backend_reg_dev_get(worker, index) { devices.append(device) }
            }
        }
        return Workers(endpoints: endpoints, devices: devices)
    }

    /// RPC workers a loaded model uses and their devices, counted as connected while this lives.
    ///
    /// `@unchecked Sendable`: the device handles are ggml's, valid for the life of the process
    /// and never written through here.
    final class Workers: @unchecked Sendable {
        let endpoints: [String]
        let devices: [ggml_backend_dev_t]

        init(endpoints: [String], devices: [ggml_backend_dev_t]) {
            self.endpoints = endpoints
            self.devices = devices
            LlamaRPC.connected.withLock { connected in
                for endpoint in endpoints { connected[endpoint, default: 0] += 1 }
            }
        }

        deinit {
            LlamaRPC.connected.withLock { connected in
                for endpoint in endpoints { connected[endpoint, default: 1] -= 1 }
            }
        }
    }

    /// This machine's GPUs in `library`'s registry, which llama.cpp places layers on by default.
    static func localGPUs(_ library: LlamaLibrary) -> [ggml_backend_dev_t] {
        devices(library).filter { $0.type == GGML_BACKEND_DEVICE_TYPE_GPU || $0.type == GGML_BACKEND_DEVICE_TYPE_IGPU }.map(\.device)
    }

    /// Every device in `library`'s registry, with its name and kind.
    private static func devices(_ library: LlamaLibrary) -> [(name: String, type: ggml_backend_dev_type, device: ggml_backend_dev_t)] {
        let api = library.api
        var all: [(name: String, type: ggml_backend_dev_type, device: ggml_backend_dev_t)] = []
        for index in 0..<api.ggml_backend_reg_count() {
            guard let backend = api.ggml_backend_reg_get(index) else { continue }
            for position in 0..<api.ggml_backend_reg_dev_count(backend) {
                guard let device = api.ggml_backend_reg_dev_get(backend, position) else { continue }
                let name = api.ggml_backend_dev_name(device).map { String(cString: $0) } ?? ""
                all.append((name, api.ggml_backend_dev_type(device), device))
            }
        }
        return all
    }

    /// A worker's protocol version, as it answered the greeting.
    struct Version: Equatable, CustomStringConvertible {
        var major: UInt8
        var minor: UInt8
        var patch: UInt8

        var description: String { "\(major).\(minor).\(patch)" }
    }

    /// Throws unless `version` is one ggml accepts: this build's major version, a minor version
    /// no later than its own (ggml aborts on any other).
    static func checkVersion(_ endpoint: String, _ version: Version) throws {
        guard version.major == RPC_PROTO_MAJOR_VERSION, version.minor <= RPC_PROTO_MINOR_VERSION else {
            throw SDKError.llm(
                .modelLoadFailed,
                "The RPC worker at \(endpoint) speaks RPC protocol \(version), this engine \(RPC_PROTO_MAJOR_VERSION).\(RPC_PROTO_MINOR_VERSION): "
                    + "run the same RunAnywhere (or llama.cpp) on both machines")
        }
    }

    /// Connects to the worker at `endpoint` and greets it as ggml does (its HELLO command), then
    /// hangs up; throws a clear error when nobody listens there, the worker does not answer in
    /// time (it serves another client), or what answers is not an RPC worker.
    static func hello(_ endpoint: String, timeout: Duration) throws -> Version {
        let (host, port) = try RPCEndpoint.parse(endpoint)
        let socket = try RPCSocket.connect(host: host, port: port, timeout: timeout, endpoint: endpoint)
        defer { socket.close() }
        // HELLO: the command (14), the request's size (8 bytes, little-endian) and its 24 bytes
        // of connection capabilities (none asked for).
        var request: [UInt8] = [14]
        request += withUnsafeBytes(of: UInt64(24).littleEndian, Array.init)
        request += [UInt8](repeating: 0, count: 24)
        // The answer: its size (28), then major, minor, patch, padding and 24 bytes of capabilities.
        guard socket.send(request), let size = socket.receive(8), let answer = socket.receive(28) else {
            throw socket.timedOut
                ? SDKError.llm(
                    .modelLoadFailed,
                    "The RPC worker at \(endpoint) did not answer within \(timeout): it serves one client at a time, and another "
                        + "(a model loaded by another process) holds it; give each model workers of its own")
                : SDKError.llm(.modelLoadFailed, "What listens at \(endpoint) did not answer as an RPC worker of llama.cpp's")
        }
        guard size.withUnsafeBytes({ UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }) == 28 else {
            throw SDKError.llm(.modelLoadFailed, "What listens at \(endpoint) did not answer as an RPC worker of llama.cpp's")
        }
        return Version(major: answer[0], minor: answer[1], patch: answer[2])
    }

    /// Serves this machine's devices with the llama.cpp build models load with (the GPU variant
    /// where its driver is here), as ``serve(host:port:deviceNames:threads:cacheDirectory:library:)``
    /// does; llama.cpp's log goes to `logger`.
    package static func serve(
        host: String, port: Int, deviceNames: [String], threads: Int, cacheDirectory: String?, logger: Logger
    ) throws {
        try serve(
            host: host, port: port, deviceNames: deviceNames, threads: threads, cacheDirectory: cacheDirectory,
            library: LlamaLibrary.load(logger: logger))
    }

    /// Serves this machine's devices named `deviceNames` (ggml's names, such as CPU, CUDA0 or
    /// Vulkan0, in any case; none: every GPU, else the CPU) to RPC clients at `host`:`port` with
    /// `threads` CPU threads, caching the tensors clients send under `cacheDirectory` when one is
    /// given. Returns only by throwing: when the address cannot be listened on.
    static func serve(
        host: String, port: Int, deviceNames: [String], threads: Int, cacheDirectory: String?, library: LlamaLibrary
    ) throws {
        let startServer = unsafeBitCast(try function("ggml_backend_rpc_start_server", library: library), to: ra_rpc_start_server_fn.self)
        var devices: [ggml_backend_dev_t?] = try chosenDevices(deviceNames, library: library)
        let endpoint = "\(host):\(port)"
        try RPCSocket.checkListening(host: host, port: port, endpoint: endpoint)
        startServer(endpoint, cacheDirectory, threads, devices.count, &devices)
        throw SDKError(.invalidConfiguration, "llama.cpp's RPC server could not listen at \(endpoint)")
    }

    /// The RPC backend's function `name` in `library`; an error saying how to get a build with
    /// the backend when it has none.
    private static func function(_ name: String, library: LlamaLibrary) throws -> UnsafeMutableRawPointer {
        guard let backend = library.api.ggml_backend_reg_by_name("RPC"),
            let address = library.api.ggml_backend_reg_get_proc_address(backend, name)
        else {
            throw SDKError(
                .frameworkNotAvailable,
                "This build of llama.cpp (\(library.path)) has no RPC backend: scripts/setup builds llama.cpp with it; run it again")
        }
        return address
    }

    /// The devices a worker serves: those named (an unknown name is an error that lists the
    /// devices there are), else every GPU, else the CPU, as llama.cpp's rpc-server chooses.
    static func chosenDevices(_ names: [String], library: LlamaLibrary) throws -> [ggml_backend_dev_t] {
        let all = devices(library)
        guard names.isEmpty else {
            return try names.map { name in
                guard let found = all.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else {
                    throw SDKError(
                        .invalidConfiguration, "No device named \(name) here; there are: \(all.map(\.name).joined(separator: ", "))")
                }
                return found.device
            }
        }
        let gpus = localGPUs(library)
        let chosen = gpus.isEmpty ? all.filter { $0.type == GGML_BACKEND_DEVICE_TYPE_CPU }.prefix(1).map(\.device) : gpus
        guard !chosen.isEmpty else { throw SDKError(.frameworkNotAvailable, "llama.cpp found no device to serve") }
        return chosen
    }
}
