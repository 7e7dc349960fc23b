/// Whether a listening address is reachable only from this machine.
public enum LoopbackAddress {
    /// True for `localhost`, `::1` and 127.0.0.0/8: what a server may bind without an API key.
    public static func contains(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
