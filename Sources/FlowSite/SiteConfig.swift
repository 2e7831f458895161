import Yams

/// `site/site.yml`: what the site is called, where it is published, its languages and the order
/// of flows on the index. Every key is optional; a missing file means all defaults.
public struct SiteConfig: Sendable, Hashable {
    /// Site title in the header and on the index.
    public var title: String = "Integration flows"
    /// One paragraph under the title on the index (Markdown, inline).
    public var description: String?
    /// Where the site is published: a sub-path (`/docs/flows/`) or an absolute URL. Pages link
    /// relatively either way (the site also works from `file://`); the base URL is used by
    /// `serve` (mount point) and for `sitemap.xml`.
    public var baseURL: String = "/"
    /// Language of the index and search pages' labels.
    public var language: String = "en"
    /// Order of languages in the translation switcher; languages not listed follow, sorted.
    public var languages: [String] = ["en", "vi", "tr"]
    /// Flow ids in the order the index lists them; flows not listed follow, sorted by title.
    public var navigation: [String] = []
    /// Raw HTML inside Markdown is dropped unless this is true.
    public var allowRawHTML: Bool = false
    /// Spec files or folders to build when the command line names none.
    public var flows: [String] = ["flows"]
    /// Theme overrides (same file name as the embedded theme file wins).
    public var themeDirectory: String?
    /// Extra files copied verbatim under `assets/` (logo, fonts).
    public var assetsDirectory: String?
    /// Label overrides per language: `labels: { vi: { steps: "Các bước" } }`.
    public var labels: [String: [String: String]] = [:]
    /// "Edit this page" on every flow page: an http(s) URL with `{path}`, replaced by the
    /// spec's path as the page's footer shows it (`https://github.com/org/repo/edit/main/{path}`).
    public var editURL: String?
    /// The footer shows the git revision (short hash) the site was built from, when the folder
    /// of `site.yml` is in a git checkout. Off by default: the pages then depend on the commit.
    public var showRevision: Bool = false

    public init() {}

    /// The path part of `baseURL`, always starting and ending with `/`.
    public var basePath: String {
        var path = baseURL
        if let range = path.range(of: "://") {
            let afterScheme = path[range.upperBound...]
            path = afterScheme.firstIndex(of: "/").map { String(afterScheme[$0...]) } ?? "/"
        }
        if !path.hasPrefix("/") { path = "/" + path }
        if !path.hasSuffix("/") { path += "/" }
        return path
    }

    /// `baseURL` when it is absolute (`https://…/`), for the sitemap.
    public var absoluteBaseURL: String? {
        guard baseURL.hasPrefix("https://") || baseURL.hasPrefix("http://") else { return nil }
        return baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
    }

    public struct Error: Swift.Error, CustomStringConvertible, Sendable {
        public var file: String
        public var message: String
        public var description: String { "\(file): \(message)" }
    }

    /// Reads `site.yml` text. Unknown keys are an error (a typo should not silently do nothing).
    public static func parse(_ text: String, file: String) throws -> SiteConfig {
        var config = SiteConfig()
        let node: Node?
        do {
            node = try Yams.compose(yaml: text, .basic, .default, .utf8)
        } catch {
            throw Error(file: file, message: "not valid YAML: \(error)")
        }
        guard let node else { return config }
        guard let mapping = node.mapping else { throw Error(file: file, message: "expected a mapping of keys") }
        func string(_ value: Node, _ key: String) throws -> String {
            guard let scalar = value.scalar else { throw Error(file: file, message: "`\(key)` must be a string") }
            return scalar.string
        }
        func strings(_ value: Node, _ key: String) throws -> [String] {
            if let scalar = value.scalar { return [scalar.string] }
            guard let sequence = value.sequence else { throw Error(file: file, message: "`\(key)` must be a list of strings") }
            return try sequence.map { try string($0, key) }
        }
        for (keyNode, value) in mapping {
            let key = keyNode.scalar?.string ?? ""
            switch key {
            case "title": config.title = try string(value, key)
            case "description": config.description = try string(value, key)
            case "base-url", "base_url", "baseURL": config.baseURL = try string(value, key)
            case "language": config.language = try string(value, key)
            case "languages": config.languages = try strings(value, key)
            case "navigation": config.navigation = try strings(value, key)
            case "allow-raw-html", "allow_raw_html":
                guard let bool = value.typed.bool else { throw Error(file: file, message: "`\(key)` must be true or false") }
                config.allowRawHTML = bool
            case "flows": config.flows = try strings(value, key)
            case "edit-url", "edit_url":
                let url = try string(value, key)
                guard url.hasPrefix("https://") || url.hasPrefix("http://"), url.contains("{path}") else {
                    throw Error(file: file, message: "`\(key)` must be an http(s) URL containing {path}")
                }
                config.editURL = url
            case "revision":
                guard let bool = value.typed.bool else { throw Error(file: file, message: "`\(key)` must be true or false") }
                config.showRevision = bool
            case "theme": config.themeDirectory = try string(value, key)
            case "assets": config.assetsDirectory = try string(value, key)
            case "labels":
                guard let languages = value.mapping else { throw Error(file: file, message: "`labels` must map languages to label tables") }
                for (languageNode, table) in languages {
                    guard let entries = table.mapping else { throw Error(file: file, message: "`labels.\(languageNode.scalar?.string ?? "")` must be a mapping") }
                    var labels: [String: String] = [:]
                    for (labelKey, labelValue) in entries {
                        labels[labelKey.scalar?.string ?? ""] = try string(labelValue, "labels")
                    }
                    config.labels[languageNode.scalar?.string ?? ""] = labels
                }
            default:
                throw Error(file: file, message: "unknown key `\(key)` (known: title, description, base-url, language, languages, navigation, allow-raw-html, flows, theme, assets, labels, edit-url, revision)")
            }
        }
        return config
    }
}
