import FlowModel
import FlowParser

/// The other flows a page's language switcher links to (translations of one flow, itself included).
struct TranslationLink: Hashable, Sendable {
    var id: String
    var lang: String
    var title: String
}

/// Turns flows into page contexts and renders them through the theme's templates. Holds no
/// mutable state: one instance renders pages on all cores at once.
struct PageRenderer: Sendable {
    let theme: Theme
    let config: SiteConfig
    let results: SiteResults?
    /// Extra markup for `<head>` (the reload script in `serve`); empty for `build`.
    let headExtra: String
    /// The provider profiles of the build: a rule lists only the cases its flow's provider runs.
    var providers: ProviderCatalog = .builtIn
    /// The git revision for the footer (`revision: true` in site.yml), when there is one.
    var revision: String?
    /// Rendered token-case lists, shared by every page of a language (they depend only on the
    /// rule family and the labels when there are no results).
    let memo = Memo()
    /// The flows' OpenAPI descriptions, each loaded once per build.
    let apiDescriptions = APIDescriptionCache()
    /// Sees every template rendering (context, template name, output); tests compare the output
    /// with a reference Mustache implementation.
    var templateObserver: (@Sendable (TemplateValue, String, [UInt8]) -> Void)? = nil

    func render(_ context: TemplateFields, template: String, capacity: Int = 16 * 1024) -> [UInt8] {
        render(context, template: template, capacity: capacity) { Array($0) }
    }

    /// Renders a template and lends the bytes to `body` where they were written.
    func render<Result>(
        _ context: TemplateFields, template: String, capacity: Int = 16 * 1024, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        let value = TemplateValue.object(context)
        return try theme.library.render(value, template: template, capacity: capacity) { bytes in
            templateObserver?(value, template, Array(bytes))
            return try body(bytes)
        }
    }

    func renderString(_ context: TemplateFields, template: String) -> String {
        String(decoding: render(context, template: template), as: UTF8.self)
    }

    /// No page may load anything from another host, and nothing inline may run.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'"

    // MARK: Markdown

    func html(_ markdown: Markdown) -> String {
        markdown.isEmpty ? "" : MarkdownRenderer.html(markdown, allowRawHTML: config.allowRawHTML)
    }

    /// `html(markdown)`'s UTF-8 bytes, for a page's context as they are.
    func htmlBytes(_ markdown: Markdown) -> [UInt8] {
        markdown.isEmpty ? [] : MarkdownRenderer.htmlBytes(markdown, allowRawHTML: config.allowRawHTML)
    }

    /// Titles, summaries, labels, headings and requirements: inline Markdown, never raw HTML,
    /// whatever `allow-raw-html` says (it opens prose bodies only).
    func inline(_ text: String) -> String {
        MarkdownRenderer.inlineHTML(PlainText.literalAngles(TerminalText.marked(text)), allowRawHTML: false)
    }

    func plain(_ text: String) -> String {
        PlainText.of(text)
    }

    // MARK: Common context

    func baseContext(lang: String, root: String, labels: Labels) -> TemplateFields {
        [
            "lang": .string(lang),
            "root": .string(root),
            "csp": .string(Self.contentSecurityPolicy),
            "labels": labels.value,
            "site": siteContext,
            "headExtra": .string(headExtra),
        ]
    }

    private var siteContext: TemplateValue {
        var site: TemplateFields = ["title": .string(config.title)]
        if let description = config.description { site["descriptionHTML"] = .string(inline(description)) }
        if let revision { site["revision"] = .string(revision) }
        return .object(site)
    }
}
