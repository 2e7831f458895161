import Foundation
@testable import FlowSite

/// A scratch folder with specs, a site.yml and an output folder, removed when the test ends.
final class Scratch {
    let root: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.path
        root = base + "/flowsite-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root + "/flows", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/site", withIntermediateDirectories: true)
        try write("site/site.yml", "title: Test flows\n")
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    var out: String { root + "/site/_build" }

    func write(_ relative: String, _ text: String) throws {
        let path = root + "/" + relative
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    func read(_ relative: String) throws -> String {
        try String(contentsOfFile: out + "/" + relative, encoding: .utf8)
    }

    func options(out: String? = nil, results: SiteResults? = nil, incremental: Bool = true) -> SiteBuildOptions {
        SiteBuildOptions(
            inputs: [root + "/flows"], outputDirectory: out ?? self.out, configPath: root + "/site/site.yml",
            results: results, incremental: incremental
        )
    }

    func build(out: String? = nil, results: SiteResults? = nil, incremental: Bool = true) throws -> SiteBuildReport {
        try SiteBuilder(options: options(out: out, results: results, incremental: incremental)).build()
    }

    /// Every file under a folder: relative path → bytes.
    static func snapshot(_ directory: String) throws -> [String: Data] {
        var result: [String: Data] = [:]
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return result }
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: directory + "/" + relative, isDirectory: &isDirectory)
            if !isDirectory.boolValue { result[relative] = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + relative)) }
        }
        return result
    }

    static func inode(_ path: String) -> UInt64? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)?.uint64Value
    }
}

/// The repository root (for the real flows/ and test-artifacts/).
let packageRoot: String = {
    var url = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

/// A small but complete spec: branches, a self-loop, an exchange, token rules, prose.
func sampleSpec(id: String = "sample", title: String = "Sample sign-in", lang: String = "en", translationOf: String? = nil, extraProse: String = "") -> String {
    """
    ---
    id: \(id)
    title: \(title)
    summary: A sample flow used by the site tests.
    lang: \(lang)
    \(translationOf.map { "translation-of: \($0)" } ?? "")
    tags: [auth, sample]
    provider: apple
    actors:
      user: { name: User, role: person }
      app: { name: App, role: client }
      apple: { name: Apple, role: provider }
      backend: { name: Backend, role: backend }
    ---

    # \(title)

    Intro prose. \(extraProse)

    ## Purpose

    Explain the purpose.

    ## Steps

    ### 1. User taps the button
    user → app

    The user starts.

    ### 2. App opens Apple
    app → apple

    - Signed in already → 4
    - Needs to sign in → 3

    ### 3. User signs in
    user → apple

    - Success → 4
    - Wrong password, try again → 3
    - User gives up → end: cancelled

    ### 4. App posts the code to the backend
    app → backend

    ```http
    POST /api/login
    Content-Type: application/json

    {"code": "{{provider.code}}", "id_token": "{{provider.id_token}}"}
    ```

    ```expect
    status: 200
    json:
      $.session: { type: string }
    capture:
      session: $.session
    ```

    ### 5. Backend verifies the token
    backend → backend

    Checks the signature.

    ### 6. Backend answers the app
    backend → app

    - Session created → end: success
    - Token rejected → end: failure

    ## Token rules

    | Rule | Token | Requirement |
    |------|-------|-------------|
    | signature | id_token @ 4 | RS256 with a key from the JWKS |
    | audience | id_token | `aud` is the client id |

    ## Notes

    Closing notes.
    """
}
