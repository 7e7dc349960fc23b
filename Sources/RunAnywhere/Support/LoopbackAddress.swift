/// Whether a listening address is reachable only from this machine.
package enum LoopbackAddress {
    /// True for `localhost`, `::1` and 127.0.0.0/8: what a server may bind without an API key.
    package static func contains(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
