import Logging
import Testing

@testable import RunAnywhereServer

/// A conversation's claim for an answer is let go once: released twice it does not let go of the
/// next answer's claim, and dropped unreleased (an answer whose client went away before it ran)
/// it lets the conversation go.
@Suite struct AnswerClaimTests {
    let answering = AnsweringConversations(replicas: nil, logger: Logger(label: "answer-claim-tests"))
    let conversation = AnsweringConversations.Named(account: "", id: "c")

    @Test func aClaimIsReleasedOnce() async throws {
        let first = try await answering.claim(conversation)
        await #expect(throws: APIError.self, "claimed") { _ = try await answering.claim(conversation) }
        await first.release()
        let second = try await answering.claim(conversation)
        await first.release()
        await #expect(throws: APIError.self, "the first claim's second release left the second claim alone") {
            _ = try await answering.claim(conversation)
        }
        await second.release()
    }

    @Test func aDroppedClaimLetsTheConversationGo() async throws {
        _ = try await answering.claim(conversation)
        // Dropped at once; it lets go in a task of its own.
        var again: AnswerClaim?
        for _ in 0..<500 where again == nil {
            again = try? await answering.claim(conversation)
            if again == nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(again != nil, "the dropped claim let the conversation go")
        await again?.release()
    }
}
