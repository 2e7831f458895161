import FlowModel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// Site build, stage 5 for a one-off build: the tree the last build replaced is kept beside the
// output, and the next build brings it up to date and swaps it in, instead of making a new tree.

/// The site tree a one-off build swapped out, kept beside the output as `.NAME.previous` (with
/// a `.gitignore` of `*`, so git does not list it) for the next build to start from.
///
/// A new tree of 2 000 pages needs 2 000 hard links to the unchanged ones before it can be
/// swapped in: 25 ms of the file system's time, on a core of its own, in every one-flow
/// rebuild (docs/benchmarks.md). The kept tree already has every page; made the same as the
/// published site again (`mirror`: only the files the last build wrote differ, told apart by
/// inode), it is updated in place like `serve` updates the site (each file replaced), and
/// swapped in whole. So the published site is still replaced in one step, and a build that
/// fails or is stopped part-way leaves it untouched: only the kept tree was being changed, and
/// the next build's `mirror` repairs whatever state that left it in.
///
/// Every change to the kept tree unlinks or renames over a name, never writes into a file: its
/// files are the published site's own (the same inodes) until replaced.
struct PreviousTree: Sendable {
    /// Where the kept tree is while it is being updated: the build's temporary path, so that
    /// another build finds no tree to take.
    let path: String

    static func keptPath(of target: OutputTarget) -> String {
        target.parentDirectory + "/." + target.outputName + ".previous"
    }

    /// Takes the kept tree, when there is one flowspec kept (it has a build cache), and makes
    /// it the same as the published site. Nil when there is none, or it cannot be used (the
    /// build then makes a new tree).
    static func take(for target: OutputTarget) -> PreviousTree? {
        let kept = keptPath(of: target)
        guard FileSystem.exists(kept + "/" + BuildCache.relativePath), FileSystem.exists(target.output + "/" + BuildCache.relativePath) else {
            return nil
        }
        let temporary = target.temporaryPath
        FileSystem.removeTree(temporary)
        guard (try? FileSystem.rename(kept, temporary)) != nil else { return nil }
        do {
            try mirror(target.output, into: temporary, directoryInodes: directoryInodesAreTrue(target.output, temporary))
        } catch {
            FileSystem.discardTree(temporary)
            return nil
        }
        return PreviousTree(path: temporary)
    }

    /// Puts an unused tree back where it is kept (a build that stopped at lint errors, or
    /// that made a new tree after all).
    func putBack(for target: OutputTarget) {
        Self.keep(path, for: target)
    }

    /// Keeps the tree at `path` (the one a swap just replaced) for the next build; an older
    /// kept tree is removed.
    static func keep(_ path: String, for target: OutputTarget) {
        let kept = keptPath(of: target)
        if FileSystem.exists(kept) { FileSystem.discardTree(kept) }
        guard (try? FileSystem.rename(path, kept)) != nil else {
            FileSystem.discardTree(path)
            return
        }
        try? FileSystem.write("*\n", to: kept + "/.gitignore")
    }

    /// Makes `tree` hold what `source` holds, name for name: a file of `source` is hard-linked
    /// into `tree` unless `tree` has that very file (same device and inode) under that name;
    /// what `tree` has and `source` has not is removed. Directories are made and walked.
    ///
    /// `directoryInodes`: the inode numbers the folders' entries name are the files' own (see
    /// `directoryInodesAreTrue`), so no file needs a `stat` (4 000 of them took a core for
    /// 8 ms of a one-flow rebuild of 2 000 flows).
    ///
    /// The two folders' entries are matched in step while their names come in the same order
    /// (on ext4 a folder lists its names in the order of their hashes, the same for the same
    /// names), and by name from the first one out of step: a dictionary of the tree's 2 000
    /// pages, filled and emptied, was 5.9 M instructions of a one-flow rebuild.
    static func mirror(_ source: String, into tree: String, directoryInodes: Bool) throws {
        var listed: [(name: String, identity: Identity)] = []
        try forEachEntry(of: tree, directoryInodes: directoryInodes) { name, identity in listed.append((name, identity)) }
        var inStep = 0
        var present: [String: Identity]?
        try forEachEntry(of: source, directoryInodes: directoryInodes) { name, identity in
            let existing: Identity?
            if present == nil, inStep < listed.count, listed[inStep].name == name {
                existing = listed[inStep].identity
                inStep += 1
            } else {
                // (Names are unique in a folder: none of those matched in step comes again.)
                if present == nil {
                    present = Dictionary(listed[inStep...].map { ($0.name, $0.identity) }, uniquingKeysWith: { first, _ in first })
                }
                existing = present!.removeValue(forKey: name)
            }
            // The usual case, and the cheap one: the very file is there already.
            if !identity.isDirectory, existing == identity { return }
            let from = source + "/" + name
            let to = tree + "/" + name
            if let existing, existing.isDirectory != identity.isDirectory { FileSystem.removeTree(to) }
            let kept = existing.flatMap { $0.isDirectory == identity.isDirectory ? $0 : nil }
            if identity.isDirectory {
                if kept == nil { try FileSystem.makeDirectory(to) }
                try mirror(from, into: to, directoryInodes: directoryInodes)
                return
            }
            if kept != nil { unlink(to) }
            guard link(from, to) == 0 else {
                throw FileSystem.Error(description: "cannot link \(from) to \(to): \(String(cString: strerror(errno)))")
            }
        }
        // What the source does not have.
        for name in present.map({ Array($0.keys) }) ?? listed[inStep...].map(\.name) { FileSystem.removeTree(tree + "/" + name) }
    }

    /// Whether the inode numbers in the two folders' entries are the files' own, and of one
    /// device: both folders on the same device, of a local file system that stores the inode in
    /// the entry (ext2/3/4, XFS, Btrfs, tmpfs). Overlay and FUSE file systems may name other
    /// numbers there; they are asked with `lstat`.
    static func directoryInodesAreTrue(_ a: String, _ b: String) -> Bool {
        var infoA = stat(), infoB = stat()
        guard lstat(a, &infoA) == 0, lstat(b, &infoB) == 0, infoA.st_dev == infoB.st_dev else { return false }
        guard let type = fileSystemType(a) else { return false }
        return [0xEF53, 0x5846_5342, 0x9123_683E, 0x0102_1994].contains(type)
    }

    /// `statfs(2)`'s `f_type` (the file system's magic number); nil when it cannot tell. Swift's
    /// Glibc module does not declare `statfs`: it is looked up, and only the structure's first
    /// field (`f_type`, a machine word on Linux) is read from a buffer larger than the structure.
    static func fileSystemType(_ path: String) -> Int? {
        #if os(Linux)
        typealias StatFS = @convention(c) (UnsafePointer<CChar>, UnsafeMutableRawPointer) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "statfs") else { return nil }
        let statfs = unsafeBitCast(symbol, to: StatFS.self)
        return withUnsafeTemporaryAllocation(byteCount: 512, alignment: 16) { buffer in
            statfs(path, buffer.baseAddress!) == 0 ? buffer.load(as: Int.self) : nil
        }
        #else
        return nil
        #endif
    }

    /// What a name is: its device and inode, and whether it is a directory.
    struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64
        var isDirectory: Bool
    }

    /// Calls `body` with each name in a folder (hidden ones included) and what it is: as the
    /// folder's entry says when `directoryInodes`, else by `lstat` (links are not followed).
    static func forEachEntry(of directory: String, directoryInodes: Bool, _ body: (String, Identity) throws -> Void) throws {
        let listed = try DirectoryEntries.forEach(in: directory) { name, kind, inode in
            if directoryInodes, kind != .unknown {
                try body(name, Identity(device: 0, inode: inode, isDirectory: kind == .directory))
                return
            }
            var info = stat()
            guard lstat(directory + "/" + name, &info) == 0 else { return }
            try body(name, Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), isDirectory: (info.st_mode & S_IFMT) == S_IFDIR))
        }
        guard listed else {
            throw FileSystem.Error(description: "cannot list \(directory): \(String(cString: strerror(errno)))")
        }
    }
}
