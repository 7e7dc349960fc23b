import Foundation

/// Whether a request's `Content-Type` says its body is JSON: what the servers' JSON routes
/// require, so that a browser's "simple" cross-origin body (`text/plain`, a form, or no type) is
/// refused with a 415 instead of run.
package enum JSONMediaType {
    /// True for `application/json` and `application/*+json`, with any parameters (`charset`).
    package static func matches(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let essence = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let parts = essence.trimmingCharacters(in: .whitespaces).lowercased().split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "application" else { return false }
        return parts[1] == "json" || (parts[1].hasSuffix("+json") && parts[1].count > 5)
    }
}
