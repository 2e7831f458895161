/// `JSONPath(parsing:)` on bytes, for the ASCII paths specs write (`$.user.email`,
/// `$.items[0]['id']`): the Character reading cost about 17 000 instructions a path, most of it
/// making Characters and asking each whether it is a letter.
extension JSONPath {
    enum ASCIIReading: Equatable {
        case parsed([Component])
        case invalid
        /// Not ASCII, or holding a CR (`\r\n` is one Character): the Character reading decides.
        case notASCII
    }

    /// What `init(parsingCharacters:)` makes of `text` (already trimmed) when it is ASCII with no
    /// CR: among ASCII characters, a letter is `A-Z a-z` and a number `0-9`, as Character says.
    static func parseASCII(_ text: String) -> ASCIIReading {
        var text = text
        return text.withUTF8 { bytes in
            for byte in bytes where byte >= 0x80 || byte == 0x0D { return .notASCII }
            return parse(bytes)
        }
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> ASCIIReading {
        guard bytes.first == UInt8(ascii: "$") else { return .invalid }
        func isNameByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "_"), UInt8(ascii: "-"): true
            default: false
            }
        }
        func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
        var components: [Component] = []
        var i = 1
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: ".") {
                i += 1
                let start = i
                while i < bytes.count, isNameByte(bytes[i]) { i += 1 }
                guard i > start else { return .invalid }
                components.append(.key(text(start..<i)))
            } else if bytes[i] == UInt8(ascii: "[") {
                i += 1
                guard i < bytes.count else { return .invalid }
                if bytes[i] == UInt8(ascii: "'") || bytes[i] == UInt8(ascii: "\"") {
                    let quote = bytes[i]
                    i += 1
                    let start = i
                    while i < bytes.count, bytes[i] != quote { i += 1 }
                    guard i < bytes.count else { return .invalid }
                    components.append(.key(text(start..<i)))
                    i += 1
                } else {
                    let start = i
                    while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1 }
                    guard i > start, let index = Int(text(start..<i)) else { return .invalid }
                    components.append(.index(index))
                }
                guard i < bytes.count, bytes[i] == UInt8(ascii: "]") else { return .invalid }
                i += 1
            } else {
                return .invalid
            }
        }
        return .parsed(components)
    }
}
