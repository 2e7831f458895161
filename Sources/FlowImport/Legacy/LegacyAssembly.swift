import FlowModel
import FlowParser
import Foundation

/// The actors of an imported flow, how diagram participants map to them, and the provider.
struct LegacyCast {
    var actors: [Actor] = []
    var actorForParticipant: [String: String] = [:]
    var provider: String?
}

extension ImportSession {
    /// Actors from the diagram's participants, roles inferred from their names.
    func castActors(_ diagram: MermaidDiagram?) -> LegacyCast {
        var cast = LegacyCast()
        for participant in diagram?.participants ?? [] {
            let id = actorID(participant.id)
            cast.actorForParticipant[participant.id] = id
            let role = inferRole(id: participant.id, name: participant.name)
            if !cast.actors.contains(where: { $0.id == id }) {
                cast.actors.append(Actor(id: id, name: participant.name, role: role, location: location(participant.line)))
            }
        }
        cast.provider = cast.actors.contains { $0.role == .provider && $0.name.lowercased().contains("apple") } ? "apple" : nil
        return cast
    }

    /// The flow's steps: titles from the first sentence (or the diagram's message), actors
    /// from the matched message.
    mutating func buildSteps(_ steps: [LegacyStep], messages: [Int: MermaidMessage], alternates: [Int: [Alternate]],
                             cast: LegacyCast, hasDiagram: Bool) -> [Step] {
        var flowSteps: [Step] = []
        for (index, step) in steps.enumerated() {
            var (title, prose) = splitTitle(step.text)
            let message = messages[index]
            if title.isEmpty, let message {
                title = message.text
                note(step.line, "step \(step.number) has no description; its title is the diagram's message '\(message.text)'")
            }
            var from = "", to = ""
            if let message {
                from = cast.actorForParticipant[message.from] ?? actorID(message.from)
                to = cast.actorForParticipant[message.to] ?? actorID(message.to)
            } else if hasDiagram {
                unmapped(step.line, "step \(step.number) has no message in the diagram: its actors are unknown",
                         hint: "write `from → to` under the step heading")
            }
            flowSteps.append(Step(number: step.number, title: title, from: from, to: to, alternates: alternates[index] ?? [],
                                  prose: Markdown(source: prose, location: location(step.line)), location: location(step.line)))
        }
        return flowSteps
    }

    /// Backend routes from an API table, matched to client → backend steps by wording; then the
    /// client → backend steps still without a request are reported.
    mutating func attachRoutes(_ routes: [LegacyRoute], to flowSteps: inout [Step], actors: [Actor]) {
        func role(_ id: String) -> ActorRole? { actors.first { $0.id == id }?.role }
        func sendsToBackend(_ step: Step) -> Bool {
            role(step.to) == .backend && (role(step.from) == .client || role(step.from) == .person)
        }
        for route in routes {
            var best: (index: Int, score: Int)?
            for (index, step) in flowSteps.enumerated() where sendsToBackend(step) && !step.hasExchange {
                let score = words(route.description).intersection(words(step.title + " " + step.prose.source)).count
                if score >= 2, score > (best?.score ?? 0) { best = (index, score) }
            }
            if let best {
                flowSteps[best.index].exchange = Exchange(request: RequestTemplate(method: route.method, target: route.path, location: location(route.line)))
                note(route.line, "\(route.method) \(route.path) from the API table is the request of step \(flowSteps[best.index].number)",
                     hint: "its body and the expected answer are not in the source: add them to the http and expect blocks")
            } else {
                unmapped(route.line, "\(route.method) \(route.path) from the API table matches no client → backend step")
            }
        }
        for step in flowSteps where !step.hasExchange && sendsToBackend(step) {
            unmapped(step.location.line, "step \(step.number) sends to the backend, but the source names no endpoint for it",
                     hint: "add an http block once the endpoint is known")
        }
    }

    func markdown(_ blocks: [CmarkNode]) -> Markdown {
        guard let first = blocks.first else { return Markdown(source: "", location: .start(of: source.file)) }
        let text = blocks.map { block in
            dedent(source.text(lines: block.startLine, max(block.startLine, block.endLine)), by: block.startColumn - 1)
                .trimmingTrailingWhitespace()
        }.joined(separator: "\n\n")
        return Markdown(source: text, location: location(first.startLine))
    }

    /// Removes up to `count` leading spaces from every line (blocks lifted out of list items).
    private func dedent(_ text: String, by count: Int) -> String {
        guard count > 0 else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            var slice = Substring(line)
            var removed = 0
            while removed < count, slice.first == " " { slice.removeFirst(); removed += 1 }
            return String(slice)
        }.joined(separator: "\n")
    }

    func detectLanguage() -> String {
        let text = String(decoding: source.bytes.prefix(200_000), as: UTF8.self).lowercased()
        if text.contains("bước") || text.contains("người dùng") || text.contains("ệ") || text.contains("ạ") { return "vi" }
        if text.contains("adım") || text.contains("ı") || text.contains("ş") || text.contains("ğ") { return "tr" }
        return "en"
    }

    private func actorID(_ participant: String) -> String {
        let lowered = participant.lowercased().map { $0 == "_" || $0 == " " ? "-" : $0 }
        let cleaned = String(lowered.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") })
        return cleaned.isEmpty ? "actor" : cleaned
    }

    private func inferRole(id: String, name: String) -> ActorRole {
        let text = (id + " " + name).lowercased()
        if ["user", "người dùng", "kullanıcı", "customer", "khách"].contains(where: { text.contains($0) }) { return .person }
        if ["apple", "google", "idp", "provider", "identity"].contains(where: { text.contains($0) }) { return .provider }
        if ["backend", "server", "_be", "-be", "api"].contains(where: { text.contains($0) }) { return .backend }
        return .client
    }

    private func words(_ text: String) -> Set<String> {
        let folded = text.lowercased().folding(options: .diacriticInsensitive, locale: nil).replacingOccurrences(of: "đ", with: "d")
        return Set(folded.split { !($0.isLetter || $0.isNumber) }.map(String.init).filter { $0.count >= 3 })
    }

    func slug(_ text: String) -> String {
        let folded = text.lowercased().replacingOccurrences(of: "đ", with: "d").folding(options: .diacriticInsensitive, locale: nil)
        var out = ""
        for character in folded {
            if character.isASCII, character.isLetter || character.isNumber { out.append(character) } else if out.last != "-" { out.append("-") }
        }
        let trimmed = out.trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        return trimmed.isEmpty ? "imported-flow" : String(trimmed.prefix(60)).trimmingCharacters(in: CharacterSet(charactersIn: "-"))
    }
}
