import FlowModel

// "Copy as curl" for a step's request: the command a reader can paste, with the flow's example
// values in place of its placeholders and the backend's address left to `$BACKEND`.
extension PageRenderer {
    func curlCommand(_ request: RequestTemplate, flow: Flow) -> String {
        // The flow's example values, looked up once per request (not once per text).
        var values: [String: String] = [:]
        for variable in flow.variables where values[variable.name] == nil { values[variable.name] = variable.value }
        // One buffer: the command's pieces as Strings joined cost 23 000 instructions a request.
        var out = OutputBytes(capacity: 256)
        out.append("curl -X ")
        Self.appendShellQuoted(request.method, to: &out)
        out.append(" ")
        let target = Self.exampleValues(request.target, values: values)
        if target.hasPrefix("/") { out.append("\"$BACKEND\"") }
        Self.appendShellQuoted(target, to: &out)
        for header in request.headers {
            out.append(" \\\n  -H ")
            Self.appendShellQuoted(header.name + ": " + Self.exampleValues(header.value, values: values), to: &out)
        }
        if let body = request.body, !body.isEmpty {
            out.append(" \\\n  --data-raw ")
            Self.appendShellQuoted(Self.exampleValues(body, values: values), to: &out)
        }
        return out.string
    }

    /// `{{name}}` replaced by its example value in `values` (a flow's variables, the first
    /// declaration of each name); unknown names stay as written. One pass over the text:
    /// `{{name}}` or `{{ name }}` whose name has a value becomes the value; a value is not read
    /// for placeholders again.
    static func exampleValues(_ text: String, values: [String: String]) -> String {
        guard !values.isEmpty, text.utf8Contains(byte: UInt8(ascii: "{")) else { return text }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "{"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "{"),
               let close = TemplateScan.pair(UInt8(ascii: "}"), in: bytes, from: index + 2) {
                var inner = bytes[(index + 2)..<close]
                if inner.count >= 2, inner.first == UInt8(ascii: " "), inner.last == UInt8(ascii: " ") { inner = inner.dropFirst().dropLast() }
                if let value = values[String(decoding: inner, as: UTF8.self)] {
                    out += value.utf8
                    index = close + 2
                    continue
                }
            }
            out.append(bytes[index])
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `text` in POSIX shell single quotes, appended to `out`: nothing inside is interpreted; a
    /// quote is closed, escaped, reopened.
    static func appendShellQuoted(_ text: String, to out: inout OutputBytes) {
        out.append(UInt8(ascii: "'"))
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            for index in bytes.indices where bytes[index] == UInt8(ascii: "'") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                out.append("'\\''")
                start = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        out.append(UInt8(ascii: "'"))
    }
}

/// Finding a placeholder's `{{` or `}}` in UTF-8 bytes (the page's request text and copy-as-curl).
enum TemplateScan {
    /// The index of the first `byte byte` pair at or after `start`.
    static func pair(_ byte: UInt8, in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == byte, bytes[index + 1] == byte { return index }
            index += 1
        }
        return nil
    }
}
