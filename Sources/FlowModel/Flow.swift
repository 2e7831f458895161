/// One integration flow, parsed from one spec file: the single source of truth that `lint`,
/// `build`, `export` and `check` all read. Built by `FlowParser`; never re-parsed downstream.
public struct Flow: Hashable, Sendable, Codable {
    /// Path of the spec file, as given on the command line (relative paths stay relative so
    /// output does not depend on where the repository is checked out).
    public var file: String
    /// Stable, unique identifier, used in URLs, reports and `translation-of`.
    public var id: String
    public var title: String
    public var summary: String?
    /// BCP 47 language tag of the prose (`vi`, `tr`, `en`…); the site's UI labels follow it.
    public var lang: String
    /// The `id` of the flow this file translates, if it is a translation.
    public var translationOf: String?
    public var tags: [String]
    public var environments: [String]
    /// Which identity provider the checker plays: a profile id (`apple`, `google`,
    /// `microsoft`, `oidc`, or a project's `NAME.provider.yml`).
    public var provider: String?
    /// How the nonce reaches the ID token's claim in this flow (front matter `nonce:`); nil =
    /// the provider profile's default.
    public var nonce: NonceTransform?
    /// The OpenAPI 3.0/3.1 description of the backend (front matter `openapi:`), a path
    /// relative to the spec's folder, as written; lint checks the exchanges against it.
    public var openapi: String?
    /// Actors in declaration order (the order of the diagram's participants).
    public var actors: [Actor]
    /// Declared variables in declaration order, usable as `{{name}}`.
    public var variables: [Variable]
    /// Steps in document order (not necessarily sorted or contiguous in a faulty spec).
    public var steps: [Step]
    public var tokenRules: [TokenRule]
    /// The table of token rules, if the spec has one: where it is, for diagnostics.
    public var tokenRulesLocation: SourceLocation?
    /// Free prose outside the steps, in document order, kept for the site.
    public var sections: [ProseSection]
    /// The heading of the section holding the steps, as written (`Steps`, `Các bước`).
    public var stepsHeading: String?
    /// Location of the front matter's first line (the opening `---`).
    public var location: SourceLocation
    /// Where each front matter key was written, for diagnostics about values.
    public var keyLocations: [String: SourceLocation]

    public init(
        file: String,
        id: String,
        title: String,
        summary: String? = nil,
        lang: String = "en",
        translationOf: String? = nil,
        tags: [String] = [],
        environments: [String] = [],
        provider: String? = nil,
        nonce: NonceTransform? = nil,
        openapi: String? = nil,
        actors: [Actor] = [],
        variables: [Variable] = [],
        steps: [Step] = [],
        tokenRules: [TokenRule] = [],
        tokenRulesLocation: SourceLocation? = nil,
        sections: [ProseSection] = [],
        stepsHeading: String? = nil,
        location: SourceLocation,
        keyLocations: [String: SourceLocation] = [:]
    ) {
        self.file = file
        self.id = id
        self.title = title
        self.summary = summary
        self.lang = lang
        self.translationOf = translationOf
        self.tags = tags
        self.environments = environments
        self.provider = provider
        self.nonce = nonce
        self.openapi = openapi
        self.actors = actors
        self.variables = variables
        self.steps = steps
        self.tokenRules = tokenRules
        self.tokenRulesLocation = tokenRulesLocation
        self.sections = sections
        self.stepsHeading = stepsHeading
        self.location = location
        self.keyLocations = keyLocations
    }

    public func actor(_ id: String) -> Actor? { actors.first { $0.id == id } }
    public func step(_ number: Int) -> Step? { steps.first { $0.number == number } }

    /// What kind of step this is for the checker, derived from the roles of its actors. The
    /// roles and the exchange are read in place: copying the two actors and the exchange out to
    /// test them was 1 500 instructions a step, asked twice per step of a page.
    public func kind(of step: Step) -> StepKind {
        StepKind(from: role(of: step.from), to: role(of: step.to), hasExchange: step.hasExchange)
    }

    /// The role of the actor `id`, if the flow declares it.
    public func role(of id: String) -> ActorRole? {
        for index in actors.indices where actors[index].id == id { return actors[index].role }
        return nil
    }
}

/// A participant of the flow: a person, an app, the identity provider, or the backend under test.
public struct Actor: Hashable, Sendable, Codable {
    public var id: String
    public var name: String
    public var role: ActorRole
    public var location: SourceLocation

    public init(id: String, name: String, role: ActorRole, location: SourceLocation) {
        self.id = id
        self.name = name
        self.role = role
        self.location = location
    }
}

/// What an actor is; decides how `check` treats the steps it takes part in.
public enum ActorRole: String, Hashable, Sendable, Codable, CaseIterable {
    /// A human (the user). Steps between a person and a client are UI-only.
    case person
    /// An app or web front end that talks to the backend; `check` plays it.
    case client
    /// The identity provider (Apple); `check` plays it with its mock provider.
    case provider
    /// The system under test. The design proposal called this `subject`; that word is still
    /// accepted in specs and read as `backend`.
    case backend

    /// Reads a role as written in a spec, accepting the documented alias.
    public init?(spelling: String) {
        let lowered = spelling.lowercased()
        if lowered == "subject" { self = .backend; return }
        self.init(rawValue: lowered)
    }
}

/// A declared `{{variable}}` with its default value.
public struct Variable: Hashable, Sendable, Codable {
    public var name: String
    public var value: String
    public var location: SourceLocation

    public init(name: String, value: String, location: SourceLocation) {
        self.name = name
        self.value = value
        self.location = location
    }
}

/// A block of Markdown kept verbatim for the site (prose is rendered, never interpreted).
public struct Markdown: Hashable, Sendable, Codable {
    public var source: String
    /// Where `source` starts in the spec file.
    public var location: SourceLocation
    /// The block as the site shows it, rendered from the spec's own parse when the parser was
    /// asked to (`SpecParser.renderingProse`); nil otherwise. Derived from `source`: not part of
    /// the value's identity, and not encoded.
    public var rendered: RenderedMarkdown?

    public init(source: String, location: SourceLocation, rendered: RenderedMarkdown? = nil) {
        self.source = source
        self.location = location
        self.rendered = rendered
    }

    /// Whether the source is only whitespace. On bytes first: an ASCII byte other than
    /// whitespace is (or ends) a Character that is not whitespace, and ASCII whitespace alone is
    /// whitespace; the Character test decides the rest.
    public var isEmpty: Bool {
        var ascii = true
        for byte in source.utf8 {
            if byte >= 0x80 { ascii = false } else if !byte.isASCIIWhitespace { return false }
        }
        return ascii || source.allSatisfy(\.isWhitespace)
    }

    private enum CodingKeys: String, CodingKey { case source, location }

    public static func == (a: Markdown, b: Markdown) -> Bool { a.source == b.source && a.location == b.location }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(source)
        hasher.combine(location)
    }
}

/// A block of prose rendered once, by the parser, from the nodes of the spec's own parse: its
/// HTML (raw HTML kept or omitted, as `allowRawHTML` says) and its words for the search index,
/// as the UTF-8 bytes cmark wrote (the page and the search shard take bytes: no String is made
/// and validated for them).
public final class RenderedMarkdown: Sendable {
    public let htmlBytes: [UInt8]
    public let searchBytes: [UInt8]
    public let allowRawHTML: Bool

    public init(htmlBytes: [UInt8], searchBytes: [UInt8], allowRawHTML: Bool) {
        self.htmlBytes = htmlBytes
        self.searchBytes = searchBytes
        self.allowRawHTML = allowRawHTML
    }

    public var html: String { String(decoding: htmlBytes, as: UTF8.self) }

    public var searchText: String { String(decoding: searchBytes, as: UTF8.self) }
}

/// A top-level section of free prose (everything outside `## Steps` and `## Token rules`).
public struct ProseSection: Hashable, Sendable, Codable {
    /// Heading text, empty for prose before the first heading.
    public var heading: String
    /// Heading level (1–6), 0 for prose before any heading.
    public var level: Int
    public var body: Markdown
    /// Where the section sits relative to the steps, so the site keeps document order.
    public var placement: Placement

    public enum Placement: String, Hashable, Sendable, Codable {
        case beforeSteps
        case afterSteps
    }

    public init(heading: String, level: Int, body: Markdown, placement: Placement) {
        self.heading = heading
        self.level = level
        self.body = body
        self.placement = placement
    }
}
