import RunAnywhere
import Testing

/// Records an issue unless `body` throws an ``SDKError`` with `code` whose message contains every
/// one of `fragments`.
package func expectSDKError(
    _ code: ErrorCode, _ fragments: [String], sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async {
    do {
        try await body()
        Issue.record("no error", sourceLocation: sourceLocation)
    } catch let error as SDKError {
        #expect(error.code == code && fragments.allSatisfy(error.message.contains), "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("not an SDKError: \(error)", sourceLocation: sourceLocation)
    }
}
