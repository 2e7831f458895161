import FlowModel

/// What a long-running caller (`serve`) keeps between builds, so that an edit costs work in
/// proportion to the edit: the theme, the previous build's cache and the search fragments, each
/// as parsed the last time, with the stamps (device, inode, size, modification time) of the
/// files it came from. A value is used only while every one of its files has the same stamp, so
/// a file changed by anyone else is read again. With a memory, a build also updates the site in
/// place (`SiteBuilder.updateInPlace`) instead of writing a new tree.
///
/// Callers give a memory to one builder at a time (serve builds one after another).
public final class SiteBuildMemory: Sendable {
    struct Remembered<Value: Sendable>: Sendable {
        var stamp: String
        var value: Value
    }

    let theme = Locked<Remembered<Theme>?>(nil)
    /// By output folder (absolute).
    let previous = Locked<[String: Remembered<PreviousBuild>]>([:])
    /// Where each flow's search fragment lies in its shard's script, by script (absolute).
    let fragments = Locked<[String: Remembered<[String: SearchShardScript.Fragment]>]>([:])
    /// The index's cards with languages by translation group, and what each was made from (a
    /// value in memory, checked against its inputs rather than a file).
    let cards = Locked<(globalKey: String, cards: [String: Card])?>(nil)

    struct Card: Sendable {
        var card: [UInt8]
        var others: [TranslationLink]
        var html: [UInt8]
    }

    /// The last build's remembering, done on another thread after it returned; the next build
    /// waits for it first.
    let pending = Locked<Background<Void>?>(nil)

    public init() {}

    /// Waits until the last build has been remembered.
    func settle() {
        _ = try? pending.value?.value()
    }

    /// The value remembered under `stamp`, if the stamp is the same.
    static func recall<Value>(_ slot: Locked<Remembered<Value>?>, stamp: String) -> Value? {
        slot.withLock { remembered in remembered?.stamp == stamp ? remembered?.value : nil }
    }

    static func recall<Value>(_ slots: Locked<[String: Remembered<Value>]>, key: String, stamp: String) -> Value? {
        slots.withLock { remembered in remembered[key]?.stamp == stamp ? remembered[key]?.value : nil }
    }

    /// The stamps of several files, "-" for a missing one.
    static func stamp(of paths: [String]) -> String {
        paths.map { FileSystem.stamp($0) ?? "-" }.joined(separator: "\n")
    }
}
