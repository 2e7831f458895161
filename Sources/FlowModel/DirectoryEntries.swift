#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The entries of one folder as readdir(3) gives them, each name and type read in place.
///
/// A `dirent` in the C library's buffer is only as long as its record (`d_reclen`), not
/// `MemoryLayout<dirent>.size`: copying the struct (`entry.pointee.d_name`) reads up to 256
/// bytes past a short last entry. When the buffer ended at a page boundary that read faulted —
/// `serve` at 2 000 specs crashed in its poll with "Bad pointer dereference" — so the name is
/// read through a pointer to the field, up to its terminating zero, and nothing else is loaded.
public enum DirectoryEntries {
    /// What an entry is. File systems that do not say in the entry (`DT_UNKNOWN`) are asked
    /// with `lstat`; `unknown` is an entry that vanished in between.
    public enum Kind: Sendable { case directory, file, link, other, unknown }

    private static func kind(of path: String) -> Kind {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .unknown }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .directory
        case S_IFREG: return .file
        case S_IFLNK: return .link
        default: return .other
        }
    }

    /// Calls `body` with each entry's name and kind (`.` and `..` left out); false when the
    /// folder cannot be opened (`errno` says why).
    @discardableResult
    public static func forEach(in directory: String, _ body: (_ name: String, _ kind: Kind) throws -> Void) rethrows -> Bool {
        try forEach(in: directory) { name, kind, _ in try body(name, kind) }
    }

    /// The same, with the inode number each entry names (`d_ino`: what `stat` says on local
    /// file systems; not on every FUSE or overlay one).
    @discardableResult
    public static func forEach(in directory: String, _ body: (_ name: String, _ kind: Kind, _ inode: UInt64) throws -> Void) rethrows -> Bool {
        guard let dir = opendir(directory) else { return false }
        defer { closedir(dir) }
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        let typeOffset = MemoryLayout<dirent>.offset(of: \dirent.d_type)!
        let inodeOffset = MemoryLayout<dirent>.offset(of: \dirent.d_ino)!
        while let entry = readdir(dir) {
            let raw = UnsafeRawPointer(entry)
            let cName = raw.advanced(by: nameOffset).assumingMemoryBound(to: UInt8.self)
            // `.` and `..` told by their bytes: comparing each name made as a String with them
            // took 140 instructions an entry (callgrind: 10 000 entries listed in a one-flow
            // rebuild of 2 000 flows).
            if cName[0] == UInt8(ascii: "."), cName[1] == 0 || (cName[1] == UInt8(ascii: ".") && cName[2] == 0) { continue }
            let name = String(cString: cName)
            let kind: Kind
            switch Int32(raw.load(fromByteOffset: typeOffset, as: UInt8.self)) {
            case Int32(DT_DIR): kind = .directory
            case Int32(DT_REG): kind = .file
            case Int32(DT_LNK): kind = .link
            case Int32(DT_UNKNOWN): kind = Self.kind(of: directory + "/" + name)
            default: kind = .other
            }
            try body(name, kind, UInt64(raw.loadUnaligned(fromByteOffset: inodeOffset, as: UInt.self)))
        }
        return true
    }
}
