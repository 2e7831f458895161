import FlowModel
import Testing

@Suite struct TerminalTextTests {
    @Test func controlAndInvisibleFormatCharactersAreEscaped() {
        #expect(TerminalText.escaped("\u{1B}[31mred\u{1B}]8;;http://x\u{07}") == #"\u{1B}[31mred\u{1B}]8;;http://x\u{7}"#)
        #expect(TerminalText.escaped("\u{1B}]52;c;ZXZpbA==\u{07}").contains("\u{1B}") == false, "OSC 52 (clipboard) is inert")
        #expect(TerminalText.escaped("tag \u{202E}evil") == #"tag \u{202E}evil"#, "Trojan Source override shown, not applied")
        #expect(TerminalText.escaped("a\u{200B}b\u{2066}c\u{FEFF}") == #"a\u{200B}b\u{2066}c\u{FEFF}"#)
        #expect(TerminalText.escaped("line\nnext\ttab\u{85}") == #"line\u{A}next\u{9}tab\u{85}"#)
        #expect(TerminalText.escaped("Đăng nhập bằng Apple — Giriş 🔑") == "Đăng nhập bằng Apple — Giriş 🔑", "ordinary text unchanged")
    }
}
