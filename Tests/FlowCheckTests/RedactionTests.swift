@testable import FlowCheck
@testable import FlowMocks
import FlowModel
import Testing

@Suite struct RedactionTests {
    let jwt = "eyJhbGciOiJSUzI1NiIsImtpZCI6Ilc2V2NPS0IifQ.eyJpc3MiOiJodHRwczovL2FwcGxlaWQuYXBwbGUuY29tIiwic3ViIjoiMDAxIn0.c2lnbmF0dXJlLWJ5dGVzLWhlcmUtYW5kLW1vcmU"

    @Test func authorizationAndCookieHeadersKeepOnlyAPrefix() {
        let out = Redaction.headers([
            HeaderField(name: "Authorization", value: "Bearer abcdefghijklmnopqrstuvwxyz"),
            HeaderField(name: "Cookie", value: "session=0123456789abcdef0123"),
            HeaderField(name: "Content-Type", value: "application/json"),
        ])
        #expect(out[0].value == "Bearer abcdefgh…")
        #expect(!out[1].value.contains("0123456789abcdef0123"))
        #expect(out[2].value == "application/json")
    }

    @Test func tokensInBodiesAreElided() {
        let body = #"{"id_token": "\#(jwt)", "session_token": "s3cr3t-session-value-123", "name": "An"}"#
        let out = Redaction.text(body)
        #expect(!out.contains(jwt))
        #expect(!out.contains("s3cr3t-session-value-123"))
        #expect(out.contains("\"name\": \"An\""))
        let form = "client_id=com.tvl&client_secret=\(jwt)&code=c0de0123456789&grant_type=authorization_code"
        let redactedForm = Redaction.text(form)
        #expect(!redactedForm.contains("c0de0123456789"))
        #expect(!redactedForm.contains(jwt))
        #expect(redactedForm.contains("grant_type=authorization_code"))
        #expect(redactedForm.contains("client_id=com.tvl"))
    }

    @Test func privateKeysAreElided() {
        let pem = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----"
        let out = Redaction.text("key: \(pem)")
        #expect(!out.contains("MIGHAgEAMBMG"))
        #expect(out.contains("-----BEG…"))
    }

    @Test func excerptsAreCappedAt500Bytes() {
        let long = String(repeating: "é", count: 2000)
        let excerpt = Redaction.excerpt(Array(long.utf8))!
        #expect(excerpt.utf8.count <= 500)
        #expect(excerpt.hasSuffix("…"))
        #expect(Redaction.excerpt([0xFF, 0xFE, 0x00]) == "<3 bytes, not UTF-8>")
    }

    @Test func decodedTokenNeverShowsTheSignature() throws {
        let token = try #require(Redaction.decodeToken(jwt))
        #expect(token.header.contains("RS256"))
        #expect(token.claims.contains("appleid.apple.com"))
        #expect(token.signature == "<elided>")
        #expect(token.segments == 3)
    }
}
