#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a report is written piece by piece: a file (`AtomicFileWriter`) or a string (tests,
/// small outputs).
public protocol TextSink {
    associatedtype Failure: Error
    mutating func write(_ text: String) throws(Failure)
    mutating func write(bytes: UnsafeRawBufferPointer) throws(Failure)
}

extension String: TextSink {
    public typealias Failure = Never
    public mutating func write(_ text: String) { append(text) }
    public mutating func write(bytes: UnsafeRawBufferPointer) { append(String(decoding: bytes, as: UTF8.self)) }
}

/// A file that cannot be written, with the system's reason.
public struct FileWriteError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var code: Int32

    public init(path: String, code: Int32) {
        self.path = path
        self.code = code
    }

    public var description: String { "\(path): \(String(cString: strerror(code)))" }
}

/// A file written in pieces and published whole: the bytes go, 64 KiB at a time, to a hidden
/// temporary file beside the target, and `commit()` renames it over the target, so a reader
/// sees the old file or the new one, never a part. Missing folders are made. A writer released
/// without `commit()` (an error on the way) removes its temporary file. Memory stays the size of
/// the buffer, however large the file.
public final class AtomicFileWriter: TextSink {
    public typealias Failure = FileWriteError
    public let path: String
    private let temporary: String
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    private static let chunk = 65_536

    public init(path: String) throws(FileWriteError) {
        self.path = path
        let slash = path.utf8.lastIndex(of: UInt8(ascii: "/"))
        let directory = slash.map { String(path[..<$0]) } ?? ""
        let name = slash.map { String(path[path.utf8.index(after: $0)...]) } ?? path
        if !directory.isEmpty { try Self.makeDirectories(directory) }
        temporary = (directory.isEmpty ? "" : directory + "/") + ".\(name).tmp-\(getpid())"
        descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if descriptor < 0 { throw FileWriteError(path: path, code: errno) }
        buffer.reserveCapacity(Self.chunk)
    }

    deinit {
        if descriptor >= 0 {
            close(descriptor)
            unlink(temporary)
        }
    }

    public func write(_ text: String) throws(FileWriteError) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.chunk { try flush() }
    }

    public func write(bytes: UnsafeRawBufferPointer) throws(FileWriteError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.chunk { try flush() }
    }

    /// Writes `text` to `path` whole or not at all.
    public static func write(_ text: String, to path: String) throws(FileWriteError) {
        let file = try AtomicFileWriter(path: path)
        try file.write(text)
        try file.commit()
    }

    /// Writes what is buffered and renames the file over the target.
    public func commit() throws(FileWriteError) {
        try flush()
        let closed = close(descriptor)
        descriptor = -1
        if closed != 0 || rename(temporary, path) != 0 {
            let code = errno
            unlink(temporary)
            throw FileWriteError(path: path, code: code)
        }
    }

    private func flush() throws(FileWriteError) {
        var failure: Int32 = 0
        buffer.withUnsafeBytes { all in
            var offset = 0
            while offset < all.count {
                let n = Glibc.write(descriptor, all.baseAddress! + offset, all.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += n
            }
        }
        buffer.removeAll(keepingCapacity: true)
        if failure != 0 { throw FileWriteError(path: path, code: failure) }
    }

    private static func makeDirectories(_ directory: String) throws(FileWriteError) {
        var prefix = directory.hasPrefix("/") ? "/" : ""
        for part in directory.split(separator: "/") {
            prefix += part
            if mkdir(prefix, 0o755) != 0, errno != EEXIST { throw FileWriteError(path: prefix, code: errno) }
            prefix += "/"
        }
    }
}
