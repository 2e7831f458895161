import FlowModel
import Foundation
import Testing
@testable import FlowMocks

@Suite struct ConversationTests {
    /// A long-running mock forgets its oldest clients instead of growing without bound; the
    /// newest are still found by the values they were handed.
    @Test func oldestClientsAreForgottenPastTheLimit() {
        var conversations = Conversations(flows: [Flows.web])
        var first: String?
        var last = ""
        for index in 0...(Conversations.limit + 10) {
            let value = "fs_" + String(repeating: "0", count: 32 - String(index).count) + String(index)
            conversations.answered(nil, flowIndex: 0, exit: nil, handedOut: ["session": value])
            if first == nil { first = value }
            last = value
        }
        func request(_ token: String) -> MockHTTPRequest {
            MockHTTPRequest(method: "GET", target: "/api/v1/me", headers: [HeaderField(name: "Authorization", value: "Bearer \(token)")], body: [])
        }
        #expect(conversations.find(in: request(first!)) == nil, "the oldest client is forgotten")
        #expect(conversations.find(in: request(last)) != nil, "the newest is found")
        #expect(conversations.values(of: conversations.find(in: request(last)))["session"] == last)
    }
}
