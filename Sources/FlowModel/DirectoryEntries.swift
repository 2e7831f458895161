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
    public enum Kind: Sendable { case directory, file, link, other, unknown }

    /// Calls `body` with each entry's name and kind (`.` and `..` left out); false when the
    /// folder cannot be opened (`errno` says why).
    @discardableResult
    public static func forEach(in directory: String, _ body: (_ name: String, _ kind: Kind) throws -> Void) rethrows -> Bool {
        guard let dir = opendir(directory) else { return false }
        defer { closedir(dir) }
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        let typeOffset = MemoryLayout<dirent>.offset(of: \dirent.d_type)!
        while let entry = readdir(dir) {
            let raw = UnsafeRawPointer(entry)
            let name = String(cString: raw.advanced(by: nameOffset).assumingMemoryBound(to: CChar.self))
            if name == "." || name == ".." { continue }
            let kind: Kind
            switch Int32(raw.load(fromByteOffset: typeOffset, as: UInt8.self)) {
            case Int32(DT_DIR): kind = .directory
            case Int32(DT_REG): kind = .file
            case Int32(DT_LNK): kind = .link
            case Int32(DT_UNKNOWN): kind = .unknown
            default: kind = .other
            }
            try body(name, kind)
        }
        return true
    }
}
