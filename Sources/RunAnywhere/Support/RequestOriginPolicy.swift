#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which requests a local HTTP server (`runanywhere serve`, `runanywhere telemetry serve`)
/// accepts by where they come from, before any work is done: a web page on another site must be
/// able neither to drive the server nor to read from it.
///
/// - The `Host` header must name the address the server is bound to: loopback names and
///   addresses (`localhost`, `*.localhost`, 127.0.0.0/8, `::1`), the bound host itself, any IP
///   address when bound to all interfaces, or a name allowed by `--allowed-host` (`*`: any).
///   This is what stops DNS rebinding, where a page's own name is made to resolve to 127.0.0.1
///   and then reads the server as if same-origin (ollama's CVE-2024-28224): such requests carry
///   the page's name. A request with no `Host` at all (HTTP/1.0 tools) comes from no browser.
/// - An `Origin` header must be the server's own (`http://` and the request's `Host`) or one
///   allowed by `--cors`. Browsers send it with every cross-origin request that can change
///   anything, "simple" `text/plain` POSTs included, so a foreign page is refused before its body
///   is read.
/// - Without `Origin`, a browser's cross-site subresource request (`Sec-Fetch-Site: cross-site`
///   or `same-site`, other than a top-level navigation) is refused too: `<img>` or `<script>`
///   tags pointed at the API.
///
/// Clients that are not browsers (curl, the official OpenAI, Anthropic and ollama clients, the
/// CLI) send no `Origin` and no `Sec-Fetch-*` headers and are unaffected.
package struct RequestOriginPolicy: Sendable {
    /// The address the server is bound to.
    package let boundHost: String
    /// Host names (lowercased) that requests may name beyond loopback and the bound host; `*` allows any.
    package let allowedHosts: Set<String>
    /// Origins (`scheme://host[:port]`, lowercased) whose pages may call the server.
    package let allowedOrigins: Set<String>

    /// A policy for a server bound to `boundHost`.
    package init(boundHost: String, allowedHosts: [String] = [], allowedOrigins: [String] = []) {
        self.boundHost = Self.hostName(boundHost)
        self.allowedHosts = Set(allowedHosts.map { Self.hostName($0) })
        self.allowedOrigins = Set(allowedOrigins.map { Self.normalizedOrigin($0) })
    }

    /// Why a request is refused, in words for its 403.
    package enum Refusal: Equatable, Sendable, CustomStringConvertible {
        /// The `Host` header names another server.
        case host(String)
        /// The `Origin` header is a page on another site.
        case origin(String)
        /// A browser's cross-site request without an `Origin`.
        case crossSite

        package var description: String {
            switch self {
            case .host(let host):
                "The Host '\(host.prefix(100))' is not this server's address; to serve that name, start the server with --allowed-host"
            case .origin(let origin):
                "Requests from the web page '\(origin.prefix(100))' are refused; to allow a page on that origin, start the server with --cors"
            case .crossSite:
                "Cross-site requests from web pages are refused; to allow a page on another origin, start the server with --cors"
            }
        }
    }

    /// Nil when a request with these headers may go on; otherwise why it may not.
    package func refusal(host: String?, origin: String?, fetchSite: String? = nil, fetchMode: String? = nil) -> Refusal? {
        if let host, !allows(host: host) { return .host(host) }
        if let origin {
            let normalized = Self.normalizedOrigin(origin)
            if allowedOrigins.contains(normalized) { return nil }
            if let host, normalized == Self.normalizedOrigin("http://" + host) { return nil }
            return .origin(origin)
        }
        if let fetchSite, ["cross-site", "same-site"].contains(fetchSite.lowercased()), fetchMode?.lowercased() != "navigate" {
            return .crossSite
        }
        return nil
    }

    /// Whether a `Host` header value (`name[:port]` or `[v6]:port`) names this server.
    package func allows(host header: String) -> Bool {
        if allowedHosts.contains("*") { return true }
        let name = Self.hostName(header)
        if name == "localhost" || name.hasSuffix(".localhost") || name == boundHost || allowedHosts.contains(name) { return true }
        guard let address = IPAddress(name) else { return false }
        return address.isLoopback || (IPAddress(boundHost)?.isUnspecified ?? (boundHost.isEmpty))
    }

    /// The name in a `Host` value or an address, lowercased, without port, brackets or final dot.
    package static func hostName(_ value: String) -> String {
        var name = Substring(value.lowercased())
        if name.hasPrefix("[") {
            name = name.dropFirst().prefix { $0 != "]" }
        } else if name.filter({ $0 == ":" }).count == 1 {
            name = name.prefix { $0 != ":" }
        }
        while name.hasSuffix(".") { name = name.dropLast() }
        return String(name)
    }

    /// An origin lowercased and without its scheme's default port.
    static func normalizedOrigin(_ origin: String) -> String {
        let lowered = origin.lowercased()
        for (scheme, port) in [("http://", ":80"), ("https://", ":443")] where lowered.hasPrefix(scheme) && lowered.hasSuffix(port) {
            return String(lowered.dropLast(port.count))
        }
        return lowered
    }
}

/// An IPv4 or IPv6 address literal, parsed by the C library.
private struct IPAddress {
    let bytes: [UInt8]

    init?(_ text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    /// 127.0.0.0/8, `::1`, or 127.0.0.0/8 mapped into IPv6.
    var isLoopback: Bool {
        if bytes.count == 4 { return bytes[0] == 127 }
        if bytes.dropLast().allSatisfy({ $0 == 0 }) && bytes.last == 1 { return true }
        return bytes.prefix(10).allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
    }

    /// 0.0.0.0 or `::`: all interfaces.
    var isUnspecified: Bool { bytes.allSatisfy { $0 == 0 } }
}
