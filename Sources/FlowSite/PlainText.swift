import FlowModel
import FlowParser

/// One line of inline Markdown (a title, a label) as plain text, for SVG and `<title>`.
enum PlainText {
    static func of(_ text: String) -> String {
        var contiguous = text
        guard contiguous.withUTF8(hasMarkup) else { return text }
        // `<` is escaped first: in a one-line label, angle brackets are text the writer typed,
        // shown literally (and escaped on output), never dropped as raw HTML.
        return MarkdownRenderer.plainText(source: literalAngles(text)).trimmingCharacters()
    }

    /// Whether any byte is one of `isMarkup`'s: blocks of sixteen without one are passed at once.
    static func hasMarkup(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let from = ByteBlocks.skip(bytes, from: 0, padding: 0x20) { block in
            ByteBlocks.equal(block, UInt8(ascii: "`")) .| ByteBlocks.equal(block, UInt8(ascii: "*")) .| ByteBlocks.equal(block, UInt8(ascii: "_"))
                .| ByteBlocks.equal(block, UInt8(ascii: "[")) .| ByteBlocks.equal(block, UInt8(ascii: "]")) .| ByteBlocks.equal(block, UInt8(ascii: "<"))
                .| ByteBlocks.equal(block, UInt8(ascii: ">")) .| ByteBlocks.equal(block, UInt8(ascii: "&")) .| ByteBlocks.equal(block, UInt8(ascii: "\\"))
                .| ByteBlocks.equal(block, UInt8(ascii: "!")) .| ByteBlocks.equal(block, UInt8(ascii: "~"))
        }
        return UnsafeBufferPointer(rebasing: bytes[from...]).contains(where: isMarkup)
    }

    static func isMarkup(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "`"), UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "<"),
             UInt8(ascii: ">"), UInt8(ascii: "&"), UInt8(ascii: "\\"), UInt8(ascii: "!"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    static func literalAngles(_ text: String) -> String {
        text.utf8Contains(byte: UInt8(ascii: "<")) ? text.replacingAll("<", with: "\\<") : text
    }
}
