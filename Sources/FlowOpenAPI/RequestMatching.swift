import FlowModel

/// What a description says about one request line of an `http` block.
public enum APIMatch: Sendable {
    /// The path and method are declared.
    case operation(APIPath, APIOperation)
    /// The path is declared, the method is not.
    case methodNotDeclared(APIPath)
    /// No path template matches; `closest` is a declared template that looks like a typo of
    /// the request's path, if one does.
    case pathNotDeclared(closest: String?)
}

extension APIDescription {
    /// Matches a request target (path and query, `{{placeholders}}` allowed) against the path
    /// templates, after any of the servers' base paths. Templates without parameters win over
    /// templated ones (OpenAPI 3.1, "Paths Object"), then the one with more literal segments.
    public func match(method: String, target: String) -> APIMatch {
        let path = Self.pathPart(of: target)
        var candidates: [(path: APIPath, literals: Int)] = []
        for base in basePaths.isEmpty ? [""] : basePaths {
            guard let rest = Self.strip(base: base, from: path) else { continue }
            let segments = Self.segments(of: rest)
            for candidate in paths {
                if let literals = Self.literalMatches(candidate.segments, segments) { candidates.append((candidate, literals)) }
            }
        }
        guard !candidates.isEmpty else {
            let written = basePaths.compactMap { Self.strip(base: $0, from: path) }.first ?? path
            return .pathNotDeclared(closest: Suggestion.closest(to: written, among: paths.map(\.template)))
        }
        let ranked = candidates.sorted { $0.literals > $1.literals }
        if let best = ranked.first(where: { $0.path.operation(method) != nil }), let operation = best.path.operation(method) {
            return .operation(best.path, operation)
        }
        return .methodNotDeclared(ranked[0].path)
    }

    /// The target before its `?`, split by Characters as a String does.
    static func pathPart(of target: String) -> String {
        if target.isASCII {
            // ASCII: every byte is a Character, so the byte split is the Character split.
            guard let question = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return target }
            return String(target[..<question])
        }
        return target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? target
    }

    /// The segments after the first `/` (`/a//b` → `a`, ``, `b`), split by Characters as a String
    /// does; an ASCII path (nearly all) by its bytes.
    static func segments(of path: String) -> [String] {
        if path.isASCII {
            return path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
                .map { String(Substring($0)) }
        }
        return path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
    }

    /// `target` without `base` (`/api/v1` off `/api/v1/login`), nil when it does not start there.
    static func strip(base: String, from target: String) -> String? {
        let base = base.hasSuffix("/") ? String(base.dropLast()) : base
        if base.isEmpty { return target }
        guard target == base || target.hasPrefix(base + "/") else { return nil }
        let rest = String(target.dropFirst(base.count))
        return rest.isEmpty ? "/" : rest
    }

    /// How many literal segments of the template the request's segments equal, or nil when
    /// they do not match. A `{parameter}` takes any one segment; a request segment holding a
    /// `{{placeholder}}` fits only a parameter (its value is known at run time).
    static func literalMatches(_ template: [String?], _ segments: [String]) -> Int? {
        guard template.count == segments.count else { return nil }
        var literals = 0
        for (expected, written) in zip(template, segments) {
            guard let expected else {
                if written.isEmpty { return nil }
                continue
            }
            guard expected == written else { return nil }
            literals += 1
        }
        return literals
    }
}
