import Foundation
import NIOCore
import Testing
@testable import FlowMocks

/// A client that trickles its request head (slow loris) is cut off after the head deadline,
/// while a normal request on another connection is answered meanwhile.
@Suite struct SlowClientTests {
    struct Echo: MockHTTPHandler {
        func handle(_ request: MockHTTPRequest) async -> MockHTTPResponse { .json(200, bytes: Array("{}".utf8)) }
    }

    @Test func slowLorisIsCutOffAfterTheHeadDeadline() async throws {
        let server = MockHTTPServer(headDeadline: .milliseconds(800))
        let url = try await server.start(host: "127.0.0.1", port: 0, handler: Echo(), label: "slow")
        defer { Task { await server.stop() } }
        let port = try #require(url.port)
        // Open a socket and send part of a request head, one byte at a time, slowly.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(connected == 0)
        var closedAfter: Double?
        let started = Date()
        for byte in Array("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 40) {
            var value = byte
            if send(fd, &value, 1, Int32(MSG_NOSIGNAL)) < 0 {
                closedAfter = Date().timeIntervalSince(started)
                break
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        // The server closed: a read returns 0 (end of stream) once the close has arrived.
        if closedAfter == nil {
            var buffer = [UInt8](repeating: 0, count: 16)
            let n = recv(fd, &buffer, 16, Int32(MSG_DONTWAIT))
            if n == 0 { closedAfter = Date().timeIntervalSince(started) }
        }
        let seconds = try #require(closedAfter, "the slow client was never cut off")
        #expect(seconds < 4, "cut off after \(seconds) s")
        // A normal request on a fresh connection is answered.
        let transport = AHCTransport()
        let answer = await transport.send(OutgoingRequest(method: "GET", url: url.absoluteString), timeout: 5)
        await transport.shutdown()
        #expect(answer.status == 200)
    }
}
