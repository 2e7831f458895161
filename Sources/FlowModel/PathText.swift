/// Paths as text, split at the `/` byte (in UTF-8 it is always U+002F, never part of another
/// character), without Foundation's `NSString` path methods: on Linux,
/// `deletingLastPathComponent` traps on a one-character path (`flowspec lint a` crashed when the
/// spec `a` named an OpenAPI description), and it took 17 000 instructions a call.
public enum PathText {
    static let slash = UInt8(ascii: "/")
    static let dot = UInt8(ascii: ".")

    /// The folder a path's last component is in, as `deletingLastPathComponent` gives it:
    /// `a/b/c.md` → `a/b`, `c.md` → ``, `/c.md` → `/`, `a//b/` → `a`; runs of `/` are one.
    public static func folder(of path: String) -> String {
        let bytes = Array(path.utf8)
        var components = bytes.split(separator: slash, omittingEmptySubsequences: true)
        let absolute = bytes.first == slash
        guard components.popLast() != nil else { return absolute ? "/" : "" }
        return joined(components, absolute: absolute, emptyAs: "")
    }

    /// `written` relative to the folder of the file `base`, with `.` and `name/..` removed from
    /// the text (no symbolic links followed): `flows/a.md` and `../openapi/x.yaml` give
    /// `openapi/x.yaml`, so messages name the file as a reader would. `.` when nothing is left.
    public static func resolved(_ written: String, relativeTo base: String) -> String {
        let baseBytes = Array(base.utf8)
        let writtenBytes = Array(written.utf8)
        var components = baseBytes.split(separator: slash, omittingEmptySubsequences: true)
        _ = components.popLast()
        // `folder/written`, or `written` alone when `base` has no folder.
        let absolute = baseBytes.first == slash || (components.isEmpty && writtenBytes.first == slash)
        components += writtenBytes.split(separator: slash, omittingEmptySubsequences: true)
        var kept: [ArraySlice<UInt8>] = []
        for component in components {
            if component.elementsEqual([dot]) { continue }
            if component.elementsEqual([dot, dot]), let last = kept.last, !last.elementsEqual([dot, dot]) {
                kept.removeLast()
                continue
            }
            kept.append(component)
        }
        return joined(kept, absolute: absolute, emptyAs: ".")
    }

    private static func joined(_ components: [ArraySlice<UInt8>], absolute: Bool, emptyAs empty: String) -> String {
        var out: [UInt8] = absolute ? [slash] : []
        for (index, component) in components.enumerated() {
            if index > 0 { out.append(slash) }
            out += component
        }
        return out.isEmpty ? empty : String(decoding: out, as: UTF8.self)
    }
}
