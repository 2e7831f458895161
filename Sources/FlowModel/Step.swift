/// A numbered step `### N. title`: one state of the flow's state machine.
///
/// A step's fields live in one shared box, copied only when a copy is changed (copy on write):
/// a step is read far more often than it is changed (every lint rule, the state machine, the
/// diagrams, the page walk `flow.steps`), and copying its dozen strings, locations and its
/// exchange field by field cost 0.3 M instructions a flow built (2 % of a site build, measured
/// with callgrind). Equality, hashing and the JSON encoding are the fields', as before.
public struct Step: Hashable, Sendable, Codable {
    /// The stored fields: what `Step` held before it was boxed, with the same Codable keys in
    /// the same order.
    @usableFromInline
    struct Fields: Hashable, Sendable, Codable {
        @usableFromInline var number: Int
        @usableFromInline var title: String
        @usableFromInline var from: String
        @usableFromInline var to: String
        @usableFromInline var alternates: [Alternate]
        @usableFromInline var exchange: Exchange?
        @usableFromInline var prose: Markdown
        @usableFromInline var location: SourceLocation
        @usableFromInline var numberLocation: SourceLocation
        @usableFromInline var actorsLocation: SourceLocation?
        @usableFromInline var fromLocation: SourceLocation?
        @usableFromInline var toLocation: SourceLocation?
    }

    /// Changed only while uniquely referenced (`fields`' `_modify`), so sharing it across
    /// threads is safe. Its one property is reached only through `Step`'s accessors, whose
    /// accesses the compiler checks statically (on the `Step`), so the run-time exclusivity
    /// check of a class property (`swift_beginAccess`, about 60 instructions on every read of a
    /// step's field) is turned off; the getters are inlinable for the same reason.
    @usableFromInline
    final class Box: @unchecked Sendable {
        @usableFromInline @exclusivity(unchecked) var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    @usableFromInline var box: Box

    /// The fields, for changing one in place: the box is copied first when shared.
    private var fields: Fields {
        get { box.fields }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
            yield &box.fields
        }
    }

    /// The number written in the heading; the state's identity.
    public var number: Int {
        @inlinable get { box.fields.number }
        _modify { yield &fields.number }
    }

    public var title: String {
        @inlinable get { box.fields.title }
        _modify { yield &fields.title }
    }

    /// Actor ids from the actors line `from → to`; empty when the line is missing.
    public var from: String {
        @inlinable get { box.fields.from }
        _modify { yield &fields.from }
    }

    public var to: String {
        @inlinable get { box.fields.to }
        _modify { yield &fields.to }
    }

    /// Branches out of this step. Empty means "go to the next number" (or end with success
    /// after the last step).
    public var alternates: [Alternate] {
        @inlinable get { box.fields.alternates }
        _modify { yield &fields.alternates }
    }

    /// The HTTP request a client sends to the backend in this step, with its expectations.
    public var exchange: Exchange? {
        @inlinable get { box.fields.exchange }
        _modify { yield &fields.exchange }
    }

    /// The step's prose, without the actors line, the alternates and the http/expect blocks.
    public var prose: Markdown {
        @inlinable get { box.fields.prose }
        _modify { yield &fields.prose }
    }

    /// The heading `### N. title`.
    public var location: SourceLocation {
        @inlinable get { box.fields.location }
        _modify { yield &fields.location }
    }

    /// Position of the number inside the heading, for diagnostics about the number.
    public var numberLocation: SourceLocation {
        @inlinable get { box.fields.numberLocation }
        _modify { yield &fields.numberLocation }
    }

    /// The actors line, when present.
    public var actorsLocation: SourceLocation? {
        @inlinable get { box.fields.actorsLocation }
        _modify { yield &fields.actorsLocation }
    }

    public var fromLocation: SourceLocation? {
        @inlinable get { box.fields.fromLocation }
        _modify { yield &fields.fromLocation }
    }

    public var toLocation: SourceLocation? {
        @inlinable get { box.fields.toLocation }
        _modify { yield &fields.toLocation }
    }

    public init(
        number: Int,
        title: String,
        from: String,
        to: String,
        alternates: [Alternate] = [],
        exchange: Exchange? = nil,
        prose: Markdown,
        location: SourceLocation,
        numberLocation: SourceLocation? = nil,
        actorsLocation: SourceLocation? = nil,
        fromLocation: SourceLocation? = nil,
        toLocation: SourceLocation? = nil
    ) {
        box = Box(Fields(
            number: number, title: title, from: from, to: to, alternates: alternates, exchange: exchange, prose: prose,
            location: location, numberLocation: numberLocation ?? location, actorsLocation: actorsLocation,
            fromLocation: fromLocation, toLocation: toLocation))
    }

    public init(from decoder: Decoder) throws { box = Box(try Fields(from: decoder)) }

    public func encode(to encoder: Encoder) throws { try box.fields.encode(to: encoder) }

    public static func == (lhs: Step, rhs: Step) -> Bool { lhs.box === rhs.box || lhs.box.fields == rhs.box.fields }

    public func hash(into hasher: inout Hasher) { box.fields.hash(into: &hasher) }

    /// Stable anchor used by the site (`#step-6`) and by reports.
    public var anchor: String { "step-" + String(number) }

    /// Whether the step has an HTTP exchange (read in place, without copying it out).
    public var hasExchange: Bool { box.fields.exchange != nil }

    /// `from == to`: the actor does something by itself (drawn as a self-message).
    public var isInternal: Bool { !from.isEmpty && from == to }
}

/// A branch out of a step: "condition label → target".
public struct Alternate: Hashable, Sendable, Codable {
    /// The condition, in the spec's language ("Authentication failed", "Nếu từ chối").
    public var label: String
    public var target: Target
    public var location: SourceLocation
    /// Where the target (`5`, `end: cancelled`) was written.
    public var targetLocation: SourceLocation
    /// A branch-specific request (fenced `http` block nested in the list item): how the checker
    /// drives the backend down this branch. Nil means the step's own request is used.
    public var request: RequestTemplate?
    /// A branch-specific `expect` block: what the backend answers on this branch.
    public var expectation: Expectation?
    /// Prose nested in the list item, kept for the site.
    public var note: Markdown?

    public init(
        label: String,
        target: Target,
        location: SourceLocation,
        targetLocation: SourceLocation? = nil,
        request: RequestTemplate? = nil,
        expectation: Expectation? = nil,
        note: Markdown? = nil
    ) {
        self.label = label
        self.target = target
        self.location = location
        self.targetLocation = targetLocation ?? location
        self.request = request
        self.expectation = expectation
        self.note = note
    }
}

/// Where a transition leads: another step or the end of the flow with an outcome.
public enum Target: Hashable, Sendable, Codable, CustomStringConvertible {
    case step(Int)
    case end(Outcome)

    public var description: String {
        switch self {
        case .step(let number): "\(number)"
        case .end(let outcome): "end: \(outcome.rawValue)"
        }
    }
}

/// How a path through the flow ends. `success`, `failure` and `cancelled` are the common ones;
/// any word is allowed (`locked`, `registration-required`…).
public struct Outcome: RawRepresentable, Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let success = Outcome("success")
    public static let failure = Outcome("failure")
    public static let cancelled = Outcome("cancelled")

    public var description: String { rawValue }
    public static func < (lhs: Outcome, rhs: Outcome) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// How `check` treats a step, derived from the roles of its two actors.
public enum StepKind: String, Hashable, Sendable, Codable {
    /// Client → backend with an `http` block: sent, and its `expect` checked.
    case request
    /// Client → backend without an `http` block: nothing to send. Reported as not executable.
    case undescribedRequest
    /// Backend → client: the answer to an earlier request, checked by that request's `expect`.
    case response
    /// Backend → provider (code exchange, revoke): observed at the mock provider.
    case providerCall
    /// Provider → backend (token response, server-to-server notification).
    case providerMessage
    /// Person or client ↔ provider: simulated by the mock provider (accept, deny, fail).
    case providerInteraction
    /// Between a person and a client, or a person and anything but the provider: UI only,
    /// reported as not executable, never as passed.
    case ui
    /// An actor alone (`backend → backend`): internal work, verified only through its effects.
    case `internal`
    /// An actor is missing or undeclared; lint reports it.
    case unknown

    public init(from: ActorRole?, to: ActorRole?, hasExchange: Bool) {
        guard let from, let to else { self = .unknown; return }
        switch (from, to) {
        case (.client, .backend), (.person, .backend):
            self = hasExchange ? .request : .undescribedRequest
        case (.backend, .client), (.backend, .person):
            self = .response
        case (.backend, .provider):
            self = .providerCall
        case (.provider, .backend):
            self = .providerMessage
        case (.person, .provider), (.provider, .person), (.client, .provider), (.provider, .client),
             (.provider, .provider):
            self = .providerInteraction
        case (.backend, .backend):
            self = .internal
        case (.client, .client), (.person, .person), (.person, .client), (.client, .person):
            self = .ui
        }
    }

    /// Whether `check` can produce a pass/fail verdict for the step itself.
    public var isExecutable: Bool {
        switch self {
        case .request, .providerCall, .providerMessage, .providerInteraction: true
        case .undescribedRequest, .response, .ui, .internal, .unknown: false
        }
    }
}
