import FlowModel
import Foundation
import HummingbirdTesting
import NIOCore
import Testing
@testable import FlowMocks

/// The Hummingbird adapter on a real socket, driven by a raw HTTP/1.1 client (keep-alive, form
/// bodies, limits) rather than URLSession.
@Suite struct SocketTests {
    @Test func oneConnectionServesSeveralRequestsAndRefusesHugeBodies() async throws {
        let provider = MockProvider(registrations: [], keys: TestKeys.provider)
        let url = try await provider.start(port: 0)
        let port = try #require(url.port)
        // Closing is not under test: the server may already have closed an idle keep-alive
        // connection (its head deadline, on a loaded machine), and closing a closed channel
        // throws. So each client is shut down with `try?`, and only the exchanges can fail.
        let client = TestClient(host: "127.0.0.1", port: port)
        client.connect()
        do {
            let keys = try await client.get("/auth/keys")
            #expect(keys.status.code == 200)
            let form = try await client.post(
                "/auth/token", headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "client_id=com.unknown&client_secret=x&grant_type=authorization_code&code=c"))
            #expect(form.status.code == 400)
            #expect(form.body.map { String(buffer: $0) } == #"{"error":"invalid_client"}"#)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try? await client.shutdown()
        // A body over the limit is refused without being read to its end: 413 and the connection
        // closed. This client writes its whole body before it reads, so when the server closes
        // first (it stops reading after a few MB; under load that happens before the client has
        // written them all) the client sees its write fail instead of the 413. Either way the
        // provider never handles the request (the records below); the 413 itself is checked on a
        // raw socket that reads as it writes (SlowClientTests).
        let uploader = TestClient(host: "127.0.0.1", port: port)
        uploader.connect()
        do {
            let huge = try await uploader.post("/auth/token", headers: [:], body: ByteBuffer(repeating: 0x41, count: MockHTTPServer.maxBodyBytes + 1))
            #expect(huge.status.code == 413)
        } catch let error as ChannelError where error == .ioOnClosedChannel {
            // Closed by the server mid-upload: refused.
        }
        try? await uploader.shutdown()
        let records = await provider.records()
        #expect(records.map(\.endpoint) == [.jwks, .token])
        #expect(records[1].clientSecret?.violations == [.unknownClient, .malformed])
        await provider.stop()
    }

    @Test func aTakenPortIsAnError() async throws {
        let first = MockProvider(registrations: [], keys: TestKeys.provider)
        let url = try await first.start(port: 0)
        let second = MockProvider(registrations: [], keys: TestKeys.provider)
        await #expect(throws: MockServerError.self) { _ = try await second.start(port: url.port!) }
        await first.stop()
        // Stopped means the port is free again.
        let again = try await second.start(port: url.port!)
        #expect(again.port == url.port)
        await second.stop()
    }
}
