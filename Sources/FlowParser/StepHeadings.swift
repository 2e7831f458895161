/// A step heading's line, `### 3. Title` (`3)` too), read on its bytes.
extension FlowBuilder {
    enum StepHeading: Equatable {
        /// Not a numbered heading: prose.
        case notAStep
        /// `### -1. Title`, `### +2. Title`, `### −3. Title`: a wrong number, not prose.
        case signed(written: String, column: Int)
        /// More than six digits, or 0.
        case outOfRange(digits: String, column: Int)
        /// `column`: the number's code-point column.
        case step(number: Int, title: String, column: Int)
    }

    /// Everything before the number is ASCII (spaces, `#`, tabs), so its byte offset is its
    /// column; the sign `−` is its three bytes. Read on arrays of scalars this took 9 000
    /// instructions a heading; `StepHeadingTests` holds it to that reading.
    static func stepHeading(_ bytes: ArraySlice<UInt8>) -> StepHeading {
        func isDigit(_ index: Int) -> Bool { index < bytes.endIndex && (0x30...0x39).contains(bytes[index]) }
        func isClose(_ index: Int) -> Bool { index < bytes.endIndex && (bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ")")) }
        var index = bytes.startIndex
        while index < bytes.endIndex, bytes[index] == 0x20 { index += 1 }
        while index < bytes.endIndex, bytes[index] == UInt8(ascii: "#") { index += 1 }
        while index < bytes.endIndex, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        let numberStart = index
        let column = numberStart - bytes.startIndex + 1
        let sign = index >= bytes.endIndex ? 0
            : bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") ? 1
            : bytes[index...].starts(with: [0xE2, 0x88, 0x92]) ? 3 : 0  // U+2212 MINUS SIGN
        if sign > 0 {
            var end = index + sign
            while isDigit(end) { end += 1 }
            if end > index + sign, isClose(end) {
                return .signed(written: String(decoding: bytes[index..<end], as: UTF8.self), column: column)
            }
        }
        while isDigit(index) { index += 1 }
        guard index > numberStart, isClose(index) else { return .notAStep }
        let digits = String(decoding: bytes[numberStart..<index], as: UTF8.self)
        guard digits.utf8.count <= 6, let number = Int(digits), number > 0 else { return .outOfRange(digits: digits, column: column) }
        let title = String(decoding: bytes[(index + 1)...], as: UTF8.self).trimmingCharacters().trimmingClosingHashes()
        return .step(number: number, title: title, column: column)
    }
}
