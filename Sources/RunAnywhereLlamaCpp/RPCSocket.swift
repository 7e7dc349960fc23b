import Foundation
import RunAnywhere

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking IPv4 TCP connection whose every step has a deadline, for greeting RPC workers
/// (ggml's RPC transport speaks IPv4 only), and the check that a worker can listen.
final class RPCSocket {
    private let descriptor: Int32
    /// Whether the last failed step ran out of time (rather than being refused or cut off).
    private(set) var timedOut = false

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Connects to `host` (a name or an IPv4 address) at `port` within `timeout`, the socket
    /// then sending and receiving within `timeout` a step; the errors name `endpoint`.
    static func connect(host: String, port: Int, timeout: Duration, endpoint: String) throws -> RPCSocket {
        var address = try resolve(host, port: port, endpoint: endpoint)
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw SDKError.llm(.modelLoadFailed, "Could not open a socket to \(endpoint): \(errorText())") }
        let socket = RPCSocket(descriptor: descriptor)
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        let started = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if started != 0 {
            guard errno == EINPROGRESS else { throw socket.refused(endpoint, host: host, port: port, errno) }
            var poll = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            guard Glibc.poll(&poll, 1, Int32(milliseconds(timeout))) == 1 else {
                socket.close()
                throw SDKError.llm(.modelLoadFailed, "The RPC worker at \(endpoint) did not accept a connection within \(timeout)")
            }
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length)
            guard failure == 0 else { throw socket.refused(endpoint, host: host, port: port, failure) }
        }
        _ = fcntl(descriptor, F_SETFL, flags)
        var limit = timeval(tv_sec: Int(milliseconds(timeout) / 1000), tv_usec: Int(milliseconds(timeout) % 1000) * 1000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        return socket
    }

    /// Throws unless a worker could listen at `host` (an IPv4 address) and `port` now: the
    /// address is one of this machine's and the port is free.
    static func checkListening(host: String, port: Int, endpoint: String) throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(clamping: port)).bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw SDKError(.invalidConfiguration, "An RPC worker listens on an IPv4 address, such as 127.0.0.1 or 0.0.0.0 (got \(host))")
        }
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw SDKError(.invalidConfiguration, "Could not open a socket: \(errorText())") }
        defer { Glibc.close(descriptor) }
        var on: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw SDKError(.invalidConfiguration, "Cannot listen at \(endpoint): \(errorText())") }
    }

    /// Sends all of `bytes`; false when the worker is gone or the step runs out of time.
    func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else {
                timedOut = errno == EAGAIN || errno == EWOULDBLOCK
                return false
            }
            sent += count
        }
        return true
    }

    /// Receives exactly `count` bytes; nil when the worker hangs up or the step runs out of time.
    func receive(_ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var received = 0
        while received < count {
            let read = bytes.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + received, count - received, 0) }
            guard read > 0 else {
                timedOut = read < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
                return nil
            }
            received += read
        }
        return bytes
    }

    /// Hangs up.
    func close() {
        Glibc.close(descriptor)
    }

    /// Closes the socket and says why the connection to `endpoint` failed with `code`.
    private func refused(_ endpoint: String, host: String, port: Int, _ code: Int32) -> SDKError {
        close()
        let reason = String(cString: strerror(code))
        return SDKError.llm(
            .modelLoadFailed,
            "No RPC worker answers at \(endpoint) (\(reason)): start one there with `runanywhere rpc-worker --host \(host) --port \(port)`")
    }

    /// `host`'s first IPv4 address with `port`.
    private static func resolve(_ host: String, port: Int, endpoint: String) throws -> sockaddr_in {
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &found)
        defer { if let found { freeaddrinfo(found) } }
        guard status == 0, let first = found, let address = first.pointee.ai_addr else {
            throw SDKError.llm(
                .modelLoadFailed, "Cannot find the RPC worker host \(host) of \(endpoint): \(String(cString: gai_strerror(status)))")
        }
        return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
