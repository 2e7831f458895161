import Foundation
import NIOCore
import NIOPosix

/// A plain TCP connect to the backend's host and port, bounded by a timeout: tells "nothing
/// listens" (refused, no such host) apart from "listens but is slow" before any HTTP is sent.
/// (HTTP clients retry refused connections until their deadline, which hides the difference.)
/// On SwiftNIO's event loops (resolution and connect included), so it never blocks a thread of
/// the async callers.
public enum TCPProbe {
    public static func check(url: String, timeout: Double) async -> TransportFailure? {
        guard let components = URL(string: url), let host = components.host else { return .invalidURL(url) }
        let port = components.port ?? (components.scheme == "https" ? 443 : 80)
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.milliseconds(Int64(max(timeout, 0.001) * 1000)))
        do {
            let channel = try await bootstrap.connect(host: host, port: port).get()
            try? await channel.close()
            return nil
        } catch let error as NIOConnectionError {
            if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
                return .other("cannot resolve host \(host)")
            }
            let refused = error.connectionErrors.contains { ($0.error as? IOError)?.errnoCode == ECONNREFUSED }
            // Every address timed out: something may listen but slowly; let HTTP judge it.
            if !refused, error.connectionErrors.allSatisfy({ Self.isTimeout($0.error) }) { return nil }
            return refused ? .connectionRefused : .other("cannot connect to \(host):\(port)")
        } catch {
            if Self.isTimeout(error) { return nil }
            if (error as? IOError)?.errnoCode == ECONNREFUSED { return .connectionRefused }
            return .other("cannot connect to \(host):\(port)")
        }
    }

    private static func isTimeout(_ error: any Error) -> Bool {
        switch error as? ChannelError {
        case .connectTimeout?: true
        default: false
        }
    }
}
