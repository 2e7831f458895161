import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 (port 0) that misbehaves on purpose: it answers every
/// request the same scripted way. Raw sockets, so it can do what no framework would (reset,
/// hang, lie about lengths). Stops when `stop()` is called; tests always call it.
// @unchecked: a blocking socket server on its own thread; its mutable state is behind `lock`.
final class HostileServer: @unchecked Sendable {
    enum Behaviour: Sendable {
        /// Send these bytes verbatim, then close.
        case raw(String)
        /// Read the request, then never answer.
        case hang
        /// Send a response head announcing a 100-byte body and its first 10 bytes, then never
        /// send the rest.
        case stallBody
        /// Read the request, then reset the connection (SO_LINGER 0).
        case reset
        /// Send a response head announcing `bytes` and stream that many bytes.
        case huge(bytes: Int)
        /// Answer by a closure of the request text (method line, headers, body).
        case dynamic(@Sendable (String) -> String)
    }

    let port: Int
    private let listener: Int32
    private let behaviour: Behaviour
    private let lock = NSLock()
    private var stopped = false
    private var connections: [Int32] = []
    private var requestLog: [String] = []

    init(_ behaviour: Behaviour) throws {
        self.behaviour = behaviour
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    var url: String { "http://127.0.0.1:\(port)" }

    var requests: [String] { lock.withLock { requestLog } }

    func stop() {
        let open: [Int32] = lock.withLock {
            stopped = true
            let open = connections
            connections.removeAll()
            return open
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in open {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
        }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func acceptLoop() {
        while !isStopped {
            let fd = accept(listener, nil, nil)
            if fd < 0 { return }
            lock.withLock { connections.append(fd) }
            let thread = Thread { [self] in serve(fd) }
            thread.start()
        }
    }

    private func readRequest(_ fd: Int32) -> String? {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return nil }
            data.append(contentsOf: buffer[0..<n])
            if let text = String(bytes: data, encoding: .utf8), let end = text.range(of: "\r\n\r\n") {
                let head = text[..<end.lowerBound]
                let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                if text.utf8.count - text[..<end.upperBound].utf8.count >= length { return text }
            }
        }
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    private func finish(_ fd: Int32) {
        let owned = lock.withLock { () -> Bool in
            guard let index = connections.firstIndex(of: fd) else { return false }
            connections.remove(at: index)
            return true
        }
        if owned { close(fd) }
    }

    private func serve(_ fd: Int32) {
        guard let request = readRequest(fd) else { finish(fd); return }
        lock.withLock { requestLog.append(request) }
        switch behaviour {
        case .raw(let text):
            _ = sendAll(fd, Array(text.utf8))
            finish(fd)
        case .dynamic(let answer):
            _ = sendAll(fd, Array(answer(request).utf8))
            finish(fd)
        case .hang, .stallBody:
            if case .stallBody = behaviour {
                let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"partial\""
                guard sendAll(fd, Array(head.utf8)) else { finish(fd); return }
            }
            var buffer = [UInt8](repeating: 0, count: 64)
            while !isStopped, recv(fd, &buffer, buffer.count, 0) > 0 {}
            finish(fd)
        case .reset:
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            finish(fd)
        case .huge(let total):
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(total)\r\n\r\n"
            guard sendAll(fd, Array(head.utf8)) else { finish(fd); return }
            let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 64 * 1024)
            var sent = 0
            while sent < total, !isStopped {
                let size = min(chunk.count, total - sent)
                guard sendAll(fd, Array(chunk[0..<size])) else { break }
                sent += size
            }
            finish(fd)
        }
    }
}

extension HostileServer {
    /// A complete HTTP/1.1 response.
    static func response(_ status: Int, reason: String = "X", headers: [String: String] = [:], body: String = "") -> String {
        var head = "HTTP/1.1 \(status) \(reason)\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        return head + "\r\n" + body
    }
}
