import FlowModel
import Foundation
import Yams

/// The site's look: Mustache templates, stylesheet, scripts and UI labels. The default theme is
/// compiled into the binary (`Sources/FlowSite/Theme`, embedded by EmbedThemePlugin); a file with
/// the same relative path in the override directory (`site/theme/`) replaces the embedded one,
/// and extra files there are added.
///
/// Layout of a theme: `templates/*.mustache`, `assets/*` (copied to the site's `assets/`), and
/// `labels.yml` (UI labels per language).
public struct Theme: Sendable {
    /// Every theme file, relative path → bytes, after overrides.
    public let files: [String: [UInt8]]
    /// Relative paths that came from the override directory.
    public let overridden: [String]
    /// Whether the theme brings templates of its own: a page's contexts then hold everything the
    /// built-in templates could use, even what a built-in page takes from a shared rendering.
    var overridesTemplates: Bool { overridden.contains { $0.hasPrefix("templates/") } }
    /// Fingerprint of every file (name and bytes): part of each page's cache key.
    public let hash: ContentHash
    let library: TemplateLibrary
    let labelTables: [String: [String: String]]
    /// Per language, every label with English filling the gaps (a template context too).
    let mergedLabels: [String: TemplateTable]
    /// English alone, for a language without a table.
    let englishLabels: TemplateTable
    let languageNames: [String: String]

    public struct Error: Swift.Error, CustomStringConvertible, Sendable {
        public var message: String
        public var description: String { message }
    }

    /// The embedded default theme merged with the files under `overrideDirectory`, if it exists.
    public static func load(overrideDirectory: String?, labelOverrides: [String: [String: String]] = [:]) throws -> Theme {
        let overrides = overrideDirectory.map(FileSystem.isDirectory) ?? false
        if !overrides, labelOverrides.isEmpty, let embedded { return embedded }
        var files = embeddedFiles
        var overridden: [String] = []
        if let overrideDirectory, FileSystem.isDirectory(overrideDirectory) {
            for relative in try FileSystem.listFiles(under: overrideDirectory) {
                files[relative] = try FileSystem.read(overrideDirectory + "/" + relative)
                overridden.append(relative)
            }
        }
        // The embedded labels.yml was composed when flowspec was built (EmbedThemePlugin): 51 KB
        // through Yams was 20 M instructions of every build, a quarter of a one-flow rebuild's setup.
        let labels = overridden.contains("labels.yml") ? nil : EmbeddedTheme.labels
        return try Theme(files: files, overridden: overridden.sorted(), labels: labels, labelOverrides: labelOverrides)
    }

    /// The embedded theme's files, as bytes.
    private static var embeddedFiles: [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for (name, text) in EmbeddedTheme.files { files[name] = Array(text.utf8) }
        return files
    }

    /// The embedded theme as `load` makes it when there is nothing to override, made once per
    /// process: `SiteBuilder.prepare` has it made on another core while the command line is
    /// parsed (its files' hash, its label tables: about 6 M instructions that were on the main
    /// thread's path of every build). Nil only if the embedded theme were broken; `load` then
    /// makes it again and reports why.
    static let embedded: Theme? = try? Theme(files: embeddedFiles, overridden: [], labels: EmbeddedTheme.labels, labelOverrides: [:])

    /// The embedded theme's templates, compiled once per process (`SiteBuilder.prepare` has it
    /// done on another core while the command line is parsed); a theme file with the same bytes
    /// uses its compiled template.
    static let embeddedTemplates: [String: (bytes: [UInt8], template: CompiledTemplate)] = {
        var compiled: [String: (bytes: [UInt8], template: CompiledTemplate)] = [:]
        for (name, text) in EmbeddedTheme.files where name.hasPrefix("templates/") && name.hasSuffix(".mustache") {
            if let template = try? CompiledTemplate(text) { compiled[name] = (Array(text.utf8), template) }
        }
        return compiled
    }()

    /// What `load` reads, as stamps: each override file's, and the label overrides. Nil when the
    /// folder cannot be listed (the theme is then loaded again).
    static func stamp(overrideDirectory: String, labelOverrides: [String: [String: String]]) -> String? {
        var parts = [overrideDirectory]
        if FileSystem.isDirectory(overrideDirectory) {
            guard let files = try? FileSystem.listFiles(under: overrideDirectory) else { return nil }
            for relative in files { parts.append(relative + "\u{1F}" + (FileSystem.stamp(overrideDirectory + "/" + relative) ?? "-")) }
        } else {
            parts.append(FileSystem.exists(overrideDirectory) ? "not a folder" : "absent")
        }
        for language in labelOverrides.keys.sorted() {
            for key in labelOverrides[language]!.keys.sorted() { parts.append(language + "." + key + "=" + labelOverrides[language]![key]!) }
        }
        return ContentHash(parts).description
    }

    /// `labels`: labels.yml's tables, already read (the embedded theme's); nil to read them from `files`.
    init(files: [String: [UInt8]], overridden: [String], labels: ThemeLabels? = nil, labelOverrides: [String: [String: String]]) throws {
        self.files = files
        self.overridden = overridden
        var hash = ContentHash()
        for name in files.keys.sorted() {
            hash.combine(name)
            hash.combine(files[name]!)
        }
        for language in labelOverrides.keys.sorted() {
            for key in labelOverrides[language]!.keys.sorted() {
                hash.combine(language + "." + key + "=" + labelOverrides[language]![key]!)
            }
        }
        self.hash = hash

        var library = TemplateLibrary()
        for (name, bytes) in files where name.hasPrefix("templates/") && name.hasSuffix(".mustache") {
            let templateName = String(name.dropFirst("templates/".count).dropLast(".mustache".count))
            if let embedded = Self.embeddedTemplates[name], embedded.bytes == bytes {
                library.register(embedded.template, named: templateName)
                continue
            }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw Error(message: "theme file \(name) is not UTF-8")
            }
            do {
                library.register(try CompiledTemplate(text), named: templateName)
            } catch let error as TemplateError {
                throw Error(message: "templates/\(name.dropFirst("templates/".count)):\(error.line):\(error.column): \(error.message)")
            }
        }
        for required in ["layout", "flow", "index", "search", "card"] where !library.contains(required) {
            throw Error(message: "theme has no templates/\(required).mustache")
        }
        self.library = library

        let read = try labels ?? Self.readLabels(files["labels.yml"])
        var tables = read.tables
        for (language, overrides) in labelOverrides {
            tables[language, default: [:]].merge(overrides) { _, new in new }
        }
        guard tables["en"] != nil else { throw Error(message: "theme labels.yml has no `en` table") }
        self.labelTables = tables
        self.languageNames = read.languageNames
        let english = tables["en"] ?? [:]
        self.mergedLabels = tables.mapValues { TemplateTable(english.merging($0) { _, local in local }) }
        self.englishLabels = TemplateTable(english)
    }

    /// labels.yml: a table of labels per language, and `language-names`. (EmbedThemePlugin
    /// reads the embedded one the same way when flowspec is built: `EmbeddedTheme.labels`.)
    static func readLabels(_ bytes: [UInt8]?) throws -> ThemeLabels {
        guard let labelBytes = bytes, let labelText = String(validating: labelBytes, as: UTF8.self) else {
            throw Error(message: "theme has no labels.yml")
        }
        // Labels are text: composed with the basic resolver, `yes` stays `yes` (and no regular
        // expression runs per scalar, on every build).
        let parsed: Node?
        do { parsed = try Yams.compose(yaml: labelText, .basic, .default, .utf8) } catch { throw Error(message: "theme labels.yml: \(error)") }
        guard let root = parsed?.mapping else { throw Error(message: "theme labels.yml must be a mapping") }
        var tables: [String: [String: String]] = [:]
        var names: [String: String] = [:]
        for (keyNode, value) in root {
            guard let key = keyNode.string, let table = value.mapping else { continue }
            var strings: [String: String] = [:]
            for (labelKey, label) in table {
                if let name = labelKey.string, let text = label.string { strings[name] = text }
            }
            if key == "language-names" { names = strings } else { tables[key] = strings }
        }
        return ThemeLabels(tables: tables, languageNames: names)
    }

    /// UI labels for a language, falling back to English per key.
    func labels(for language: String) -> Labels {
        let primary = language.split(separator: "-").first.map(String.init) ?? language
        return Labels(language: language, context: mergedLabels[language] ?? mergedLabels[primary] ?? englishLabels)
    }

    /// The language's own name (`Tiếng Việt`), or its code.
    func languageName(_ code: String) -> String { languageNames[code] ?? code }

    func render(_ context: TemplateValue, template: String, capacity: Int = 16 * 1024) -> [UInt8] {
        library.render(context, template: template, capacity: capacity)
    }

    func renderString(_ context: TemplateValue, template: String) -> String {
        String(decoding: library.render(context, template: template), as: UTF8.self)
    }

    /// Files copied into the site's `assets/` folder.
    var assets: [(path: String, bytes: [UInt8])] {
        files.keys.sorted().filter { $0.hasPrefix("assets/") }.map { ($0, files[$0]!) }
    }
}

/// Localised UI labels of one language, with English as the per-key fallback.
struct Labels: Sendable {
    let language: String
    /// Every label, English filling the gaps; also the templates' `{{labels.…}}`.
    /// The labels as a template context, made once per language.
    let context: TemplateTable
    var table: [String: String] { context.strings }
    var value: TemplateValue { .table(context) }

    subscript(key: String) -> String { table[key] ?? key }
}

/// A string cache shared by concurrent page renders.
final class Memo: Sendable {
    private let values = Locked<[String: String]>([:])

    func get(_ key: String) -> String? { values.withLock { $0[key] } }

    func set(_ key: String, _ value: String) { values.withLock { $0[key] = value } }
}

/// labels.yml read: a table of labels per language, and the languages' own names.
struct ThemeLabels: Sendable {
    var tables: [String: [String: String]]
    var languageNames: [String: String]
}

extension EmbeddedTheme {
    /// The embedded labels.yml as `Theme.readLabels` reads it, composed when flowspec was built;
    /// nil when the embedded theme has no labels.yml.
    static let labels: ThemeLabels? = {
        guard hasLabels else { return nil }
        var tables: [String: [String: String]] = [:]
        var position = 0
        while position + 1 < labelTables.count {
            let name = labelTables[position]
            let count = Int(labelTables[position + 1]) ?? 0
            var table: [String: String] = [:]
            for pair in 0..<count { table[labelTables[position + 2 + 2 * pair]] = labelTables[position + 3 + 2 * pair] }
            tables[name] = table
            position += 2 + 2 * count
        }
        var names: [String: String] = [:]
        for pair in stride(from: 0, to: languageNames.count - 1, by: 2) { names[languageNames[pair]] = languageNames[pair + 1] }
        return ThemeLabels(tables: tables, languageNames: names)
    }()
}
