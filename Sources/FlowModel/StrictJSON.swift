/// Why strict parsing failed, with the byte offset where it did.
public enum JSONError: Error, Equatable, CustomStringConvertible {
    case unexpectedEnd
    case unexpectedByte(offset: Int)
    case trailingGarbage(offset: Int)
    case invalidUTF8(offset: Int)
    case invalidEscape(offset: Int)
    case loneSurrogate(offset: Int)
    case controlCharacterInString(offset: Int)
    case invalidNumber(offset: Int)
    case duplicateMember(String)
    case tooDeep(limit: Int)

    public var description: String {
        switch self {
        case .unexpectedEnd: "JSON ends early"
        case .unexpectedByte(let o): "unexpected byte at offset \(o)"
        case .trailingGarbage(let o): "data after the JSON value at offset \(o)"
        case .invalidUTF8(let o): "invalid UTF-8 in string at offset \(o)"
        case .invalidEscape(let o): "invalid escape at offset \(o)"
        case .loneSurrogate(let o): "unpaired UTF-16 surrogate escape at offset \(o)"
        case .controlCharacterInString(let o): "unescaped control character at offset \(o)"
        case .invalidNumber(let o): "invalid number at offset \(o)"
        case .duplicateMember(let name): "duplicate member name \"\(name)\""
        case .tooDeep(let limit): "nesting deeper than \(limit)"
        }
    }
}

/// RFC 8259 parser that refuses what lenient parsers let through: duplicate member
/// names (RFC 7515 §5.2 requires rejection), trailing data, invalid UTF-8, lone
/// surrogates, leading zeros, nesting deeper than `maxDepth`.
/// Integers that fit `Int64` stay integers; other numbers become doubles.
public enum StrictJSON {
    public static let defaultMaxDepth = 64

    /// What to do with a member name seen twice in one object. RFC 7515 §5.2 and RFC 7519 §4
    /// allow only `reject` or `lastWins`; `firstWins` exists so the mock backend can play a
    /// parser that gets it wrong (`--defect duplicate-claims-first-wins`).
    public enum DuplicateMembers: Sendable {
        case reject
        case firstWins
        case lastWins
    }

    public static func parse(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth, duplicates: DuplicateMembers = .reject) throws(JSONError) -> JSONNode {
        var parser = Parser(bytes: bytes, maxDepth: maxDepth, duplicates: duplicates)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        if parser.index != bytes.count { throw .trailingGarbage(offset: parser.index) }
        return value
    }

    public static func parse(_ text: String, maxDepth: Int = defaultMaxDepth) throws(JSONError) -> JSONNode {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }

    /// Parses and requires a top-level object.
    public static func parseObject(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth, duplicates: DuplicateMembers = .reject) throws(JSONError) -> JSONObject? {
        try parse(bytes, maxDepth: maxDepth, duplicates: duplicates).objectValue
    }

    private struct Parser {
        let bytes: [UInt8]
        let maxDepth: Int
        let duplicates: DuplicateMembers
        var index = 0

        init(bytes: [UInt8], maxDepth: Int, duplicates: DuplicateMembers) {
            self.bytes = bytes
            self.maxDepth = maxDepth
            self.duplicates = duplicates
        }

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        func peek() throws(JSONError) -> UInt8 {
            guard index < bytes.count else { throw .unexpectedEnd }
            return bytes[index]
        }

        mutating func expectLiteral(_ literal: String, _ value: JSONNode) throws(JSONError) -> JSONNode {
            for byte in literal.utf8 {
                guard index < bytes.count else { throw .unexpectedEnd }
                guard bytes[index] == byte else { throw .unexpectedByte(offset: index) }
                index += 1
            }
            return value
        }

        mutating func parseValue(depth: Int) throws(JSONError) -> JSONNode {
            switch try peek() {
            case UInt8(ascii: "{"): return .object(try parseObject(depth: depth + 1))
            case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"): return try expectLiteral("true", .bool(true))
            case UInt8(ascii: "f"): return try expectLiteral("false", .bool(false))
            case UInt8(ascii: "n"): return try expectLiteral("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
            default: throw .unexpectedByte(offset: index)
            }
        }

        mutating func parseObject(depth: Int) throws(JSONError) -> JSONObject {
            if depth > maxDepth { throw .tooDeep(limit: maxDepth) }
            index += 1
            var object = JSONObject()
            var seen = Set<[UInt32]>()
            skipWhitespace()
            if try peek() == UInt8(ascii: "}") {
                index += 1
                return object
            }
            while true {
                skipWhitespace()
                guard try peek() == UInt8(ascii: "\"") else { throw .unexpectedByte(offset: index) }
                let name = try parseString()
                let repeated = !seen.insert(name.unicodeScalars.map(\.value)).inserted
                if repeated, duplicates == .reject { throw .duplicateMember(name) }
                skipWhitespace()
                guard try peek() == UInt8(ascii: ":") else { throw .unexpectedByte(offset: index) }
                index += 1
                skipWhitespace()
                let value = try parseValue(depth: depth)
                switch (repeated, duplicates) {
                case (false, _): object.append(name, value)
                case (true, .lastWins): object[name] = value
                case (true, _): break
                }
                skipWhitespace()
                switch try peek() {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"):
                    index += 1
                    return object
                default: throw .unexpectedByte(offset: index)
                }
            }
        }

        mutating func parseArray(depth: Int) throws(JSONError) -> JSONNode {
            if depth > maxDepth { throw .tooDeep(limit: maxDepth) }
            index += 1
            var elements: [JSONNode] = []
            skipWhitespace()
            if try peek() == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                skipWhitespace()
                elements.append(try parseValue(depth: depth))
                skipWhitespace()
                switch try peek() {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "]"):
                    index += 1
                    return .array(elements)
                default: throw .unexpectedByte(offset: index)
                }
            }
        }

        mutating func parseHex4() throws(JSONError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw .unexpectedEnd }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw .invalidEscape(offset: index)
                }
                value = value << 4 | digit
                index += 1
            }
            return value
        }

        mutating func parseString() throws(JSONError) -> String {
            let start = index
            index += 1
            var out: [UInt8] = []
            var rawStart = index
            while true {
                guard index < bytes.count else { throw .unexpectedEnd }
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    out += bytes[rawStart..<index]
                    index += 1
                    break
                }
                if byte < 0x20 { throw .controlCharacterInString(offset: index) }
                if byte != UInt8(ascii: "\\") {
                    index += 1
                    continue
                }
                out += bytes[rawStart..<index]
                let escapeStart = index
                index += 1
                guard index < bytes.count else { throw .unexpectedEnd }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try parseHex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                        else { throw .loneSurrogate(offset: escapeStart) }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw .loneSurrogate(offset: escapeStart) }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw .loneSurrogate(offset: escapeStart)
                    }
                    out += Array(String(Character(Unicode.Scalar(scalar)!)).utf8)
                default: throw .invalidEscape(offset: escapeStart)
                }
                rawStart = index
            }
            // Invalid sequences would be replaced by U+FFFD and no longer round-trip.
            let decoded = String(decoding: out, as: UTF8.self)
            guard decoded.utf8.elementsEqual(out) else { throw .invalidUTF8(offset: start) }
            return decoded
        }

        mutating func parseNumber() throws(JSONError) -> JSONNode {
            let start = index
            func digits() -> Int {
                let from = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                return index - from
            }
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count else { throw .unexpectedEnd }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                if index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                    throw .invalidNumber(offset: start)  // leading zero
                }
            } else if digits() == 0 {
                throw .invalidNumber(offset: start)
            }
            var isInteger = true
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                isInteger = false
                index += 1
                if digits() == 0 { throw .invalidNumber(offset: start) }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                isInteger = false
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                if digits() == 0 { throw .invalidNumber(offset: start) }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            if isInteger, let value = Int64(text) { return .int(value) }
            guard let value = Double(text), value.isFinite else { throw .invalidNumber(offset: start) }
            return .double(value)
        }
    }
}
