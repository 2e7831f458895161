import FlowModel

extension TokenSuiteCase {
    /// The verdict of one token-case variant, with its message (English and keyed) and evidence.
    struct Outcome {
        var verdict: Verdict
        /// The English sentence of the reports.
        private(set) var message: String
        /// `message` as a keyed sentence; nil when it is only the expectation's problems.
        private(set) var keyed: VerdictMessage?
        var evidence: EvidenceDraft?

        init(verdict: Verdict, keyed: VerdictMessage, evidence: EvidenceDraft? = nil) {
            self.verdict = verdict
            self.message = keyed.english
            self.keyed = keyed
            self.evidence = evidence
        }

        /// What a step's result says, with its evidence.
        init(verdict: Verdict, saying result: StepResult) {
            self.verdict = verdict
            self.message = result.message ?? ""
            self.keyed = result.keyedMessage
            self.evidence = result.evidence.map(EvidenceDraft.init)
        }

        private init(verdict: Verdict, message: String, keyed: VerdictMessage?) {
            self.verdict = verdict
            self.message = message
            self.keyed = keyed
        }

        /// The submitting step could not be sent: what `submit` recorded says why.
        static func unsent(_ walker: Walker) -> Outcome {
            let last = walker.results.last
            return Outcome(verdict: .error, message: last?.message ?? "cannot build the request", keyed: last?.keyedMessage)
        }

        /// Replaces the message (both forms).
        mutating func say(_ sentence: VerdictMessage) {
            message = sentence.english
            keyed = sentence
        }
    }
}
