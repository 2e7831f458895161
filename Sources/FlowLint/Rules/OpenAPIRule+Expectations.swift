import FlowModel
import FlowOpenAPI

extension ExchangeChecker {
    /// Every expected status is declared (its code, its range, or `default`); every JSON path
    /// the block matches or captures is in the schema of a response it can come from.
    func expectation(_ expectation: Expectation, of operation: APIOperation, into diagnostics: inout [Diagnostic]) {
        var responses: [APIResponse] = []
        let declared = operation.responses.map(\.status).joined(separator: ", ")
        let location = operation.location.appending("responses")
        if let status = expectation.status {
            let expected = status.codes.map { (String($0), operation.responses(for: $0)) }
                + status.classes.map { ("\($0)xx", operation.responses(forClass: $0)) }
            for (written, found) in expected {
                if found.isEmpty {
                    diagnostics.append(.error(.statusNotDeclared, status.location,
                                              "status \(written) is not declared in \(location) (declared: \(declared.isEmpty ? "none" : declared))",
                                              hint: "declare the response in the description, or expect a declared status",
                                              related: related(location)))
                }
                responses += found
            }
        } else {
            responses = operation.responses.filter { $0.status.hasPrefix("2") }
        }
        guard !responses.isEmpty else { return }
        var paths: [(JSONPath, SourceLocation)] = expectation.json.compactMap { assertion in
            if case .exists(false) = assertion.matcher { return nil }
            return (assertion.path, assertion.location)
        }
        paths += expectation.captures.compactMap { capture in
            if case .json(let path) = capture.source { return (path, capture.location) }
            return nil
        }
        for (path, at) in paths {
            if let problem = jsonPathProblem(path, in: responses) {
                diagnostics.append(.error(.jsonPathNotInSchema, at, problem.message,
                                          hint: "correct the path, or add the property to the response schema",
                                          related: related(problem.location)))
            }
        }
    }

    /// Nil when `path` can be in the body of one of `responses` (or a response leaves its
    /// body undescribed: nothing to check against).
    private func jsonPathProblem(_ path: JSONPath, in responses: [APIResponse]) -> (message: String, location: APILocation)? {
        var first: (message: String, location: APILocation)?
        for response in responses {
            guard let json = response.json else {
                first = first ?? ("\(path): \(response.location) declares no JSON body", response.location)
                continue
            }
            guard let schema = json.schema else { return nil }
            guard let missing = SchemaChecks.missingPrefix(of: path, in: schema, components: description.components) else { return nil }
            let what = missing == path ? "\(path) is not in" : "\(path) is not in (\(missing) is not a property of)"
            first = first ?? ("\(what) the response schema \(json.location)", json.location)
        }
        return first
    }

    func related(_ location: APILocation) -> [RelatedLocation] {
        guard let line = description.line(of: location) else { return [] }
        return [RelatedLocation(location: line, message: "\(location) in the OpenAPI description")]
    }
}
