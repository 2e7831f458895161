import FlowModel
import FlowParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Tells `serve` whether anything under the folders it builds from may have changed since it
/// last asked, from the kernel's file events (Linux inotify) instead of listing and stat'ing
/// every spec twice a second: at 2 000 flows that poll cost about 55 M instructions each time,
/// with nothing changed. Each folder is watched with its subfolders; a new subfolder is
/// watched from the next `watch(_:)` (its creation is itself an event). Where events cannot be
/// had (another platform, the per-user watch limit reached) serve polls.
final class FolderWatch: Sendable {
    private let descriptor: Int32

    init?() {
        #if canImport(Glibc)
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        if descriptor < 0 { return nil }
        #else
        return nil
        #endif
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Watches `paths`: a folder with every folder under it, a file through its folder (an
    /// editor that saves by renaming over the file changes the folder, not the file). False
    /// when the kernel refused a watch: events would be missed, so the caller must poll.
    func watch(_ paths: [String]) -> Bool {
        #if canImport(Glibc)
        var all = Set<String>()
        for path in paths {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
                Self.folders(under: path, into: &all)
            } else {
                let parent = PathText.folder(of: path)
                // A missing file or folder is watched through the nearest folder that exists,
                // so its creation is seen.
                var folder = parent.isEmpty ? "." : parent
                while !FileManager.default.fileExists(atPath: folder), folder != "/", folder != "." {
                    let up = PathText.folder(of: folder)
                    folder = up.isEmpty ? "." : up
                }
                all.insert(folder)
            }
        }
        // Adding a watch to a folder already watched changes nothing; a folder removed and made
        // again needs its watch again.
        let mask = UInt32(IN_CREATE | IN_DELETE | IN_MODIFY | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF)
        for folder in all where inotify_add_watch(descriptor, folder, mask) < 0 {
            return false
        }
        return true
        #else
        return false
        #endif
    }

    /// `root` and the folders under it, as the spec listing walks them (hidden folders, `_build`
    /// and `node_modules` skipped, links to folders not followed), one readdir per folder.
    private static func folders(under root: String, into all: inout Set<String>) {
        all.insert(root)
        var subfolders: [String] = []
        DirectoryEntries.forEach(in: root) { name, kind in
            if kind == .directory, !SpecFiles.skips(name) { subfolders.append(root + "/" + name) }
        }
        for folder in subfolders { folders(under: folder, into: &all) }
    }

    /// Whether any event arrived since the last call (the queue is drained). A queue overflow
    /// counts as a change.
    func changed() -> Bool {
        var any = false
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if n > 0 {
                any = true
                continue
            }
            if n < 0, errno == EINTR { continue }
            return any
        }
    }
}
