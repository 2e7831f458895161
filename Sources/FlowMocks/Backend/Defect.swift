/// A classic bug the embedded mock backend can be told to have (`--defect NAME`), so we can
/// prove the checker catches it: each one makes at least one token case or scenario fail.
/// The correct backend (no defects) passes every case.
public enum Defect: String, CaseIterable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// Never verifies the signature (S1, S2 accepted).
    case skipSignature = "skip-signature"
    /// Verifies with the algorithm the header names: HS256 keyed with the public key's PEM works (S4).
    case trustHeaderAlg = "trust-header-alg"
    /// Accepts `alg: none` in any spelling without a signature (S3).
    case algNoneAccepted = "alg-none-accepted"
    /// Verifies RS256 whatever the header says, like jwt-kit (S5).
    case ignoreHeaderAlg = "ignore-header-alg"
    /// Does not check `aud` (C2, C3).
    case skipAud = "skip-aud"
    /// Does not check `iss` (C1).
    case skipIss = "skip-iss"
    /// Does not check `exp` (C5, C6).
    case skipExp = "skip-exp"
    /// Does not check `iat` (C7, C9).
    case skipIat = "skip-iat"
    /// Does not check `nbf` (C10).
    case skipNbf = "skip-nbf"
    /// Does not check the nonce (C12, C13, C14).
    case skipNonce = "skip-nonce"
    /// Compares the nonce claim with the posted nonce itself instead of its SHA-256 (P1 fails, C14 accepted).
    case nonceUnhashed = "nonce-unhashed"
    /// Remembers tokens it accepted and signs the same token in again without any check (C15).
    case acceptReplay = "accept-replay"
    /// Never exchanges the authorization code at `/auth/token` (X1–X3, and the exchange step).
    case noCodeExchange = "no-code-exchange"
    /// Uses the first JWKS key whatever the `kid` says (P4 fails).
    case firstKey = "first-key"
    /// Falls back to the first JWKS key when the `kid` is unknown (S9, S10).
    case kidFallback = "kid-fallback"
    /// Fetches the JWKS once and never again (P5 fails).
    case noJWKSRefetch = "no-jwks-refetch"
    /// Fails the whole JWKS when one entry is unusable, like jwt-kit (P6 fails).
    case rejectUnusableJWKS = "reject-unusable-jwks"
    /// Ignores `crit` (S11).
    case acceptCrit = "accept-crit"
    /// Trusts a `jwk` header (S7).
    case trustEmbeddedJWK = "trust-embedded-jwk"
    /// Fetches and trusts `jku` (S8; the fetch is recorded at the provider).
    case trustJKU = "trust-jku"
    /// Answers 500 to a malformed token (S12).
    case serverErrorOnMalformed = "server-error-on-malformed"
    /// Deletes the account or applies consent-revoked but keeps its sessions working.
    case keepSessionAfterRevoke = "keep-session-after-revoke"
    /// Never calls `/auth/revoke` on account deletion (R1).
    case skipRevoke = "skip-revoke"
    /// Applies notifications without verifying their signature (N2).
    case ignoreNotificationSignature = "ignore-notification-signature"
    /// Does not compare the exchanged token's `sub` with the client's token (X1).
    case skipExchangeSubject = "skip-exchange-subject"
    /// Signs `client_secret` with a DER-encoded ECDSA signature (the provider says `signature-der`).
    case clientSecretDER = "client-secret-der"
    /// Checks the nonce only "if one was sent": a request without it, or with it empty or
    /// `null`, signs in (C19).
    case nonceOptional = "nonce-optional"
    /// Decodes base64url segments that end in canonical `=` padding, signing input as sent,
    /// like PyJWT 2.x (S13).
    case lenientBase64 = "lenient-base64"
    /// Reads an `iat` written as a string of digits as a number (C20).
    case iatString = "iat-string"
    /// Reads an `nbf` written as a string of digits as a number (C21).
    case nbfString = "nbf-string"
    /// Parses the claims with a JSON parser that keeps the first of duplicate names (C16).
    case duplicateClaimsFirstWins = "duplicate-claims-first-wins"
    /// Parses the claims with a JSON parser that keeps the last of duplicate names, as Python's
    /// `json` does; RFC 7519 §4 allows it, flowspec holds the stricter line (C16).
    case duplicateClaimsLastWins = "duplicate-claims-last-wins"

    public var description: String { rawValue }

    /// Parses `--defect` values; nil for an unknown name.
    public init?(name: String) { self.init(rawValue: name.lowercased()) }
}
