import NIOCore
import NIOPosix

/// A TCP connection to a test server on 127.0.0.1, driven byte by byte: for what an HTTP client
/// library would never send (malformed requests, nothing at all, half a request).
package enum RawConnection {
    /// Sends `bytes` on a new connection to `port` and returns all that comes back until the
    /// server closes the connection.
    package static func exchange(_ bytes: [UInt8], port: Int) async throws -> String {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port) {
            channel in
            channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
        }
        return try await channel.executeThenClose { inbound, outbound in
            if !bytes.isEmpty { try await outbound.write(ByteBuffer(bytes: bytes)) }
            var answer = ByteBuffer()
            for try await var part in inbound { answer.writeBuffer(&part) }
            return String(buffer: answer)
        }
    }

    /// The exchanges of `requests`, one connection each in turn, or nil when the server has not
    /// closed them all within `limit` (for a check that a server closes idle connections when
    /// it is told to, not at its much later default).
    package static func exchanges(_ requests: [[UInt8]], port: Int, within limit: Duration) async throws -> [String]? {
        try await withThrowingTaskGroup(of: [String]?.self) { group in
            group.addTask {
                var answers: [String] = []
                for request in requests { answers.append(try await exchange(request, port: port)) }
                return answers
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }
}

extension RawConnection {
    /// Sends `bytes` on a new connection to `port`, waits for `ready`, then closes the connection
    /// without reading the answer: a client that hangs up on its request.
    package static func hangUp(after bytes: [UInt8], port: Int, once ready: () async throws -> Void) async throws {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port) {
            channel in
            channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
        }
        try await channel.executeThenClose { _, outbound in
            try await outbound.write(ByteBuffer(bytes: bytes))
            try await ready()
        }
    }
}
