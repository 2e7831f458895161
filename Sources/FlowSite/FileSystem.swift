import FlowModel
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin POSIX helpers: the build touches thousands of files, and Foundation's FileManager is
/// several times slower for stat/read/link on Linux.
enum FileSystem {
    struct Error: Swift.Error, CustomStringConvertible {
        var description: String
    }

    static func read(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Error(description: "cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        var capacity = 65_536
        if fstat(fd, &info) == 0, info.st_size > 0 { capacity = Int(info.st_size) + 1 }
        // Read into uninitialized storage (zero-filling the 2.7 MB of a one-flow rebuild's cache
        // shards first was 4.6 M instructions of memset); a file that grew since the fstat is
        // read on in further chunks.
        var bytes: [UInt8] = []
        var failure: Int32 = 0
        var atEnd = false
        while !atEnd && failure == 0 {
            let chunk = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                count = 0
                while count < buffer.count {
                    let n = Glibc.read(fd, buffer.baseAddress! + count, buffer.count - count)
                    if n > 0 {
                        count += n
                    } else if n == 0 {
                        atEnd = true
                        return
                    } else if errno != EINTR {
                        failure = errno
                        return
                    }
                }
            }
            if bytes.isEmpty { bytes = chunk } else { bytes += chunk }
            capacity = max(capacity, 65_536)
        }
        if failure != 0 { throw Error(description: "cannot read \(path): \(String(cString: strerror(failure)))") }
        return bytes
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try bytes.withUnsafeBytes { try write($0, to: path) }
    }

    static func write(_ bytes: UnsafeRawBufferPointer, to path: String) throws {
        try write(to: path) { sink in try sink(bytes) }
    }

    /// Makes a file of what `produce` hands its sink, piece by piece (a file never put together
    /// whole in memory); returns what `produce` returns.
    static func write<Result>(to path: String, _ produce: ((UnsafeRawBufferPointer) throws -> Void) throws -> Result) throws -> Result {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Error(description: "cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        return try produce { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw Error(description: "cannot write \(path): \(String(cString: strerror(errno)))")
                }
                offset += n
            }
        }
    }

    static func write(_ text: String, to path: String) throws {
        try write(Array(text.utf8), to: path)
    }

    /// Replaces a file atomically: the bytes go to a hidden file beside it, renamed over it, so a
    /// reader (the preview server) sees the old file or the new one, never a part. The old file
    /// keeps a second name until a background thread unlinks it: renaming over a large file
    /// otherwise frees its blocks inside the rename (2 ms for a 1.8 MB search shard; strace).
    static func replace(_ bytes: [UInt8], at path: String) throws {
        try bytes.withUnsafeBytes { try replace($0, at: path) }
    }

    static func replace(_ bytes: UnsafeRawBufferPointer, at path: String) throws {
        try replace(at: path) { sink in try sink(bytes) }
    }

    /// `replace`, of what `produce` hands its sink piece by piece; returns what `produce` returns.
    static func replace<Result>(at path: String, _ produce: ((UnsafeRawBufferPointer) throws -> Void) throws -> Result) throws -> Result {
        let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")).map { path.utf8.index(after: $0) } ?? path.startIndex
        let hidden = String(path[..<slash]) + "." + String(path[slash...])
        let temporary = hidden + ".tmp-\(getpid())"
        let old = hidden + ".old-\(getpid())"
        do {
            var size = 0
            let result = try write(to: temporary) { sink in
                try withoutActuallyEscaping(sink) { sink in
                    try produce { bytes in
                        size += bytes.count
                        try sink(bytes)
                    }
                }
            }
            let kept = size >= 65_536 && link(path, old) == 0
            try rename(temporary, path)
            if kept { DispatchQueue.global(qos: .utility).async(group: pendingUnlinks) { _ = unlink(old) } }
            return result
        } catch {
            unlink(temporary)
            unlink(old)
            throw error
        }
    }

    /// The old files `replace` unlinks in the background.
    private static let pendingUnlinks = DispatchGroup()

    /// Waits until the old files of every `replace` so far are unlinked: before a tree that
    /// was updated in place is swapped in, so that none is left in the published site.
    static func settleReplacements() {
        pendingUnlinks.wait()
    }

    static func replace(_ text: String, at path: String) throws {
        try replace(Array(text.utf8), at: path)
    }

    /// Device, inode, size and modification time: a file rewritten in any way (renamed over,
    /// truncated, edited in place) gets another stamp. Nil when it cannot be stat'ed.
    static func stamp(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return stamp(info)
    }

    /// `stamp` of a file already stat'ed (an open file's `fstat`).
    static func stamp(_ info: stat) -> String {
        "\(info.st_dev):\(info.st_ino):\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }

    static func makeDirectory(_ path: String) throws {
        if mkdir(path, 0o755) != 0, errno != EEXIST {
            throw Error(description: "cannot create \(path): \(String(cString: strerror(errno)))")
        }
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// `size:seconds.nanoseconds` of the last modification, nil when the file cannot be stat'ed.
    static func statSignature(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return signature(size: Int(info.st_size), seconds: Int(info.st_mtim.tv_sec), nanoseconds: Int(info.st_mtim.tv_nsec))
    }

    /// `size:seconds.nanoseconds` in decimal, as `"\(size):\(seconds).\(nanoseconds)"` spells
    /// it, written into one small buffer: `serve` takes one per spec at every snapshot, and
    /// string interpolation made that most of a snapshot of 2 000 specs (callgrind).
    static func signature(size: Int, seconds: Int, nanoseconds: Int) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 3 * 21) { buffer in
            var end = 0
            func put(_ number: Int) {
                if number < 0 { buffer[end] = UInt8(ascii: "-"); end += 1 }
                var magnitude = number.magnitude
                let start = end
                repeat {
                    buffer[end] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                    magnitude /= 10
                    end += 1
                } while magnitude > 0
                var (low, high) = (start, end - 1)
                while low < high {
                    buffer.swapAt(low, high)
                    low += 1
                    high -= 1
                }
            }
            put(size)
            buffer[end] = UInt8(ascii: ":"); end += 1
            put(seconds)
            buffer[end] = UInt8(ascii: "."); end += 1
            put(nanoseconds)
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<end]), as: UTF8.self)
        }
    }

    /// Removes a tree in a detached `rm -rf`, so a build does not wait for thousands of unlinks;
    /// removes it in-process when no child can be started.
    static func removeTreeInBackground(_ path: String) {
        // `rm -rf` spawned directly and not waited for: the build returns at once, and a child
        // still running when flowspec exits is adopted by init. Long-running callers (serve) reap
        // finished ones on the next call.
        spawnedRemovals.withLock { pids in
            var status: Int32 = 0
            pids.removeAll { waitpid($0, &status, WNOHANG) != 0 }
        }
        var pid: pid_t = 0
        let arguments = ["/bin/rm", "-rf", "--", path]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in [Int32(0), 1, 2] {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        guard posix_spawn(&pid, "/bin/rm", &actions, nil, &argv, environ) == 0 else {
            removeTree(path)
            return
        }
        spawnedRemovals.withLock { $0.append(pid) }
    }

    /// Moves a tree out of the way under a unique name beside it, for a detached `rm -rf` to
    /// delete: the path is free at once for a new tree (a background removal of the path
    /// itself could reach a new tree made there meanwhile). Removed in-process when it cannot
    /// be moved.
    static func discardTree(_ path: String) {
        let trash = path + ".old-\(DispatchTime.now().uptimeNanoseconds)"
        if (try? rename(path, trash)) != nil {
            removeTreeInBackground(trash)
        } else {
            removeTree(path)
        }
    }

    /// `rm` children not reaped yet (only these are waited for: other children are not ours to reap).
    private static let spawnedRemovals = Locked<[pid_t]>([])

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Hard-links `source` to `destination`, copying when links are not possible.
    static func linkOrCopy(_ source: String, to destination: String) throws {
        if link(source, destination) == 0 { return }
        try write(read(source), to: destination)
    }

    /// Names in a folder (not recursive, hidden ones included); empty when it cannot be listed.
    static func names(in directory: String) -> Set<String> {
        var names = Set<String>()
        DirectoryEntries.forEach(in: directory) { name, _ in names.insert(name) }
        return names
    }

    /// Regular files under `directory`, relative paths, sorted; hidden entries skipped.
    static func listFiles(under directory: String) throws -> [String] {
        var result: [String] = []
        func walk(_ relative: String) throws {
            let path = relative.isEmpty ? directory : directory + "/" + relative
            var entries: [String] = []
            let opened = DirectoryEntries.forEach(in: path) { name, _ in
                if !name.hasPrefix(".") { entries.append(name) }
            }
            guard opened else { throw Error(description: "cannot list \(path): \(String(cString: strerror(errno)))") }
            for name in entries.sorted() {
                let child = relative.isEmpty ? name : relative + "/" + name
                if isDirectory(directory + "/" + child) {
                    try walk(child)
                } else {
                    result.append(child)
                }
            }
        }
        try walk("")
        return result
    }

    /// Removes a file or a whole tree (no error when it does not exist).
    static func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            var names: [String] = []
            DirectoryEntries.forEach(in: path) { name, _ in names.append(name) }
            for name in names { removeTree(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }

    /// Atomically exchanges two paths (Linux `renameat2(RENAME_EXCHANGE)`); false when the
    /// system cannot.
    static func exchange(_ a: String, _ b: String) -> Bool {
        #if os(Linux)
        // glibc ≥ 2.28 has renameat2, but Swift's Glibc module does not declare it.
        typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return false }
        let renameat2 = unsafeBitCast(symbol, to: RenameAt2.self)
        let renameExchange: UInt32 = 2
        return renameat2(AT_FDCWD, a, AT_FDCWD, b, renameExchange) == 0
        #else
        return false
        #endif
    }

    static func rename(_ a: String, _ b: String) throws {
        if Glibc.rename(a, b) != 0 {
            throw Error(description: "cannot rename \(a) to \(b): \(String(cString: strerror(errno)))")
        }
    }

    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return normalize(path) }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let cwd = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return normalize(cwd + "/" + path)
    }

    static func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." || part.isEmpty { continue }
            if part == "..", !parts.isEmpty { parts.removeLast(); continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }
}

