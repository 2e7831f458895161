/// One diagnostic flowspec can report: its stable id (`FS202`, what JSON, SARIF and the docs
/// use), a one-line title, the severity it usually has, and where docs/flow-format.md explains
/// it. Every emitter names one of the constants below, so a typo is a compile error and the
/// list is the catalogue (SARIF rule metadata, the docs test).
public struct DiagnosticCode: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let id: String
    public let title: String
    public let severity: Severity

    init(_ id: String, _ severity: Severity, _ title: String) {
        self.id = id
        self.severity = severity
        self.title = title
    }

    public var description: String { id }

    /// The anchor of the code's row in docs/flow-format.md.
    public var documentation: String { "docs/flow-format.md#" + id.lowercased() }

    /// Input that cannot be read as a spec at all (binary, not UTF-8, unreadable) uses codes
    /// `FS0xx`; such findings make the command exit 2 rather than 1.
    public var isUnusableInput: Bool { id.hasPrefix("FS0") }

    public static func < (a: DiagnosticCode, b: DiagnosticCode) -> Bool { a.id < b.id }

    public static func == (a: DiagnosticCode, b: DiagnosticCode) -> Bool { a.id == b.id }

    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// The code with this id, if flowspec has one.
    public static func named(_ id: String) -> DiagnosticCode? { byID[id] }

    private static let byID = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })
}

extension DiagnosticCode {

    public static let binaryFile = DiagnosticCode("FS001", .error, "file is binary")
    public static let notUTF8 = DiagnosticCode("FS002", .error, "file is not valid UTF-8")
    public static let unreadable = DiagnosticCode("FS003", .error, "file cannot be read")
    public static let tooLarge = DiagnosticCode("FS004", .error, "file is too large")
    public static let noSpecs = DiagnosticCode("FS005", .error, "directory holds no specs")
    public static let workBound = DiagnosticCode("FS006", .error, "spec exceeds a work bound (table size, nesting)")

    public static let frontMatterMissing = DiagnosticCode("FS101", .error, "front matter missing, empty or unterminated")
    public static let frontMatterYAML = DiagnosticCode("FS102", .error, "front matter is not valid YAML")
    public static let unknownKey = DiagnosticCode("FS103", .warning, "unknown front matter key")
    public static let missingKey = DiagnosticCode("FS104", .error, "required front matter key missing")
    public static let wrongType = DiagnosticCode("FS105", .error, "front matter value has the wrong type")
    public static let invalidFlowID = DiagnosticCode("FS106", .error, "invalid flow id")
    public static let invalidActor = DiagnosticCode("FS107", .error, "invalid actor id or role")
    public static let invisibleText = DiagnosticCode("FS108", .warning, "bidirectional control or invisible character in a title, tag, id, actor or variable")

    public static let noSteps = DiagnosticCode("FS201", .error, "flow has no steps")
    public static let duplicateStep = DiagnosticCode("FS202", .error, "duplicate step number")
    public static let stepGap = DiagnosticCode("FS203", .error, "step numbers not contiguous from 1")
    public static let noActorsLine = DiagnosticCode("FS204", .error, "step has no actors line")
    public static let undeclaredActor = DiagnosticCode("FS205", .error, "undeclared actor")
    public static let malformedStepHeading = DiagnosticCode("FS206", .error, "malformed step heading")
    public static let idleActor = DiagnosticCode("FS208", .warning, "actor takes part in no step")

    public static let missingTarget = DiagnosticCode("FS301", .error, "alternate points at a missing step")
    public static let unreachableStep = DiagnosticCode("FS302", .error, "unreachable step")
    public static let noPathToEnd = DiagnosticCode("FS303", .error, "no path to an end")
    public static let malformedAlternate = DiagnosticCode("FS304", .error, "malformed alternate")
    public static let duplicateAlternateLabel = DiagnosticCode("FS305", .warning, "duplicate alternate label")

    public static let malformedHTTP = DiagnosticCode("FS401", .error, "malformed http block")
    public static let malformedExpect = DiagnosticCode("FS402", .error, "malformed expect block")
    public static let expectWithoutHTTP = DiagnosticCode("FS403", .error, "expect block without an http block")
    public static let placeholderTooEarly = DiagnosticCode("FS404", .error, "placeholder used before it is captured or declared")
    public static let unknownProviderValue = DiagnosticCode("FS405", .error, "unknown provider value")
    public static let checkStepSends = DiagnosticCode("FS406", .warning, "http block on a step check does not send")
    public static let missingHTTP = DiagnosticCode("FS407", .warning, "backend-facing step without an http block")
    public static let missingExpect = DiagnosticCode("FS408", .warning, "request without an expect block")
    public static let ambiguousRequest = DiagnosticCode("FS409", .warning, "two steps that can come next could take the same request")

    public static let unknownTokenRule = DiagnosticCode("FS501", .error, "unknown token rule")
    public static let malformedTokenRules = DiagnosticCode("FS502", .error, "malformed token-rules table")
    public static let tokenRuleStep = DiagnosticCode("FS503", .error, "token rule names a missing step or one that sends nothing")
    public static let tokenRuleWithoutStep = DiagnosticCode("FS504", .error, "token rule names no step")

    public static let unknownOriginal = DiagnosticCode("FS601", .error, "translation of an unknown flow")
    public static let translationStructure = DiagnosticCode("FS602", .error, "translation differs in structure")
    public static let duplicateFlowID = DiagnosticCode("FS603", .error, "duplicate flow id")

    public static let legacyUnmapped = DiagnosticCode("FS701", .warning, "legacy import: content that could not be mapped")
    public static let arazzoUnmapped = DiagnosticCode("FS702", .warning, "Arazzo import: content that could not be mapped")

    public static let invalidProviderProfile = DiagnosticCode("FS801", .error, "provider profile file is not valid")
    public static let unknownProvider = DiagnosticCode("FS802", .error, "unknown provider")
    public static let providerNotNamed = DiagnosticCode("FS803", .error, "flow uses the identity provider but names none")
    public static let providerCannotExpress = DiagnosticCode("FS804", .error, "token rule the provider's profile cannot express")
    public static let providerVariableMissing = DiagnosticCode("FS805", .error, "provider profile needs a variable the flow does not declare")
    public static let duplicateProviderProfile = DiagnosticCode("FS806", .error, "duplicate provider profile id")

    public static let descriptionUnusable = DiagnosticCode("FS901", .error, "OpenAPI description missing, unreadable or invalid")
    public static let pathNotDeclared = DiagnosticCode("FS902", .error, "request path not declared in the OpenAPI description")
    public static let methodNotDeclared = DiagnosticCode("FS903", .error, "request method not declared for the path")
    public static let requiredFieldMissing = DiagnosticCode("FS904", .error, "request body lacks a field (or the body) the operation requires")
    public static let bodyDoesNotFit = DiagnosticCode("FS905", .error, "request body does not fit the operation's schema (type, field not allowed, no body declared)")
    public static let statusNotDeclared = DiagnosticCode("FS906", .error, "expected status not declared for the operation")
    public static let jsonPathNotInSchema = DiagnosticCode("FS907", .error, "matched or captured JSON path not in the response schema")

    /// Every code, in id order.
    public static let all: [DiagnosticCode] = [
        .binaryFile, .notUTF8, .unreadable, .tooLarge, .noSpecs, .workBound, .frontMatterMissing,
        .frontMatterYAML, .unknownKey, .missingKey, .wrongType, .invalidFlowID, .invalidActor, .invisibleText,
        .noSteps, .duplicateStep, .stepGap, .noActorsLine, .undeclaredActor, .malformedStepHeading,
        .idleActor, .missingTarget, .unreachableStep, .noPathToEnd, .malformedAlternate,
        .duplicateAlternateLabel, .malformedHTTP, .malformedExpect, .expectWithoutHTTP, .placeholderTooEarly,
        .unknownProviderValue, .checkStepSends, .missingHTTP, .missingExpect, .ambiguousRequest,
        .unknownTokenRule, .malformedTokenRules, .tokenRuleStep, .tokenRuleWithoutStep, .unknownOriginal,
        .translationStructure, .duplicateFlowID, .legacyUnmapped, .arazzoUnmapped, .invalidProviderProfile, .unknownProvider,
        .providerNotNamed, .providerCannotExpress, .providerVariableMissing, .duplicateProviderProfile,
        .descriptionUnusable, .pathNotDeclared, .methodNotDeclared, .requiredFieldMissing, .bodyDoesNotFit, .statusNotDeclared, .jsonPathNotInSchema,
    ]
}
