/// An RPC worker's address as llama.cpp's RPC backend takes it (``ModelLoadOptions/rpcWorkers``):
/// `HOST:PORT`, the host a name or an IPv4 address (ggml's transport speaks no IPv6), the port
/// 1 to 65535.
package enum RPCEndpoint {
    /// The host and port of `endpoint`; ``ErrorCode/invalidConfiguration`` saying what is wrong
    /// otherwise.
    package static func parse(_ endpoint: String) throws -> (host: String, port: Int) {
        let parts = endpoint.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[0].contains(where: \.isWhitespace),
            let port = Int(parts[1]), (1...65_535).contains(port)
        else {
            throw SDKError(
                .invalidConfiguration,
                "An RPC worker is HOST:PORT, such as 192.168.1.20:50052, with an IPv4 address or a host name (got \(endpoint))")
        }
        return (String(parts[0]), port)
    }
}
