import Foundation
import Hummingbird
import Logging
import Synchronization

// What `serve` answers: the built site through Hummingbird's FileMiddleware (index.html for
// folders, content types, ETag and Last-Modified, ranges), behind two small middlewares that
// keep the preview's rules (no hidden paths, no caching, the reload script in HTML pages), and
// its two endpoints (the reload script and the build version it polls).
extension SiteServer {
    static func router(root: String, state: ServerState, logger: Logger) -> Router<BasicRequestContext> {
        let router = Router()
        router.middlewares.add(NoStore())
        router.middlewares.add(ReloadInjection())
        router.middlewares.add(NotFoundPage(root: root))
        router.middlewares.add(HiddenPathGuard())
        router.middlewares.add(FileMiddleware(root, searchForIndexHtml: true, logger: logger))
        router.get(RouterPath(stringLiteral: versionPath)) { _, _ -> String in
            String(await state.version)
        }
        router.get(RouterPath(stringLiteral: reloadPath)) { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = "text/javascript; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: reloadScript)))
        }
        return router
    }

    /// The request path as a path inside the site, or nil when it tries to leave it or names a
    /// hidden file (the build cache lives in `.flowspec/`).
    static func safeRelativePath(_ path: String) -> String? {
        let decoded = path.removingPercentEncoding ?? path
        var parts: [Substring] = []
        for part in decoded.split(separator: "/") {
            if part == "." || part.isEmpty { continue }
            if part == ".." || part.hasPrefix(".") || part.contains("\0") { return nil }
            parts.append(part)
        }
        return parts.joined(separator: "/")
    }

    /// Adds the reload script before `</head>` of an HTML page. (FileMiddleware reads a file in
    /// chunks of 128 KiB or more; `</head>` is in a page's first kilobytes.)
    static func injectReload(_ html: [UInt8]) -> [UInt8] {
        let tag = Array("<script src=\"\(reloadPath)\" defer></script>\n".utf8)
        let marker = Array("</head>".utf8)
        guard let index = firstIndex(of: marker, in: html) else { return html }
        return Array(html[..<index]) + tag + Array(html[index...])
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return start }
        }
        return nil
    }
}

/// Refuses paths that leave the site or name hidden files (400), before FileMiddleware sees them.
struct HiddenPathGuard: RouterMiddleware {
    func handle(_ request: Request, context: BasicRequestContext, next: (Request, BasicRequestContext) async throws -> Response) async throws -> Response {
        guard SiteServer.safeRelativePath(request.uri.path) != nil else {
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; charset=utf-8"
            return Response(status: .badRequest, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "bad path\n")))
        }
        return try await next(request, context)
    }
}

/// A preview is never cached: every response says `no-store`.
struct NoStore: RouterMiddleware {
    func handle(_ request: Request, context: BasicRequestContext, next: (Request, BasicRequestContext) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.cacheControl] = "no-store"
        return response
    }
}

/// Puts the reload script into HTML responses only; the files on disk stay what `build` wrote.
struct ReloadInjection: RouterMiddleware {
    func handle(_ request: Request, context: BasicRequestContext, next: (Request, BasicRequestContext) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        guard response.status == .ok || response.status == .notFound, response.headers[.contentType]?.hasPrefix("text/html") == true else { return response }
        // The body grows: its length, validators and ranges no longer describe it.
        response.headers[.contentLength] = nil
        response.headers[.eTag] = nil
        response.headers[.lastModified] = nil
        response.headers[.acceptRanges] = nil
        let injected = Mutex(false)
        response.body = response.body.map { buffer in
            guard !injected.withLock({ $0 }) else { return buffer }
            let bytes = Array(buffer.readableBytesView)
            let out = SiteServer.injectReload(bytes)
            if out.count != bytes.count { injected.withLock { $0 = true } }
            return ByteBuffer(bytes: out)
        }
        return response
    }
}

/// A missing page is answered with the site's own 404.html (status 404), as a static host would.
struct NotFoundPage: RouterMiddleware {
    let root: String

    func handle(_ request: Request, context: BasicRequestContext, next: (Request, BasicRequestContext) async throws -> Response) async throws -> Response {
        do {
            let response = try await next(request, context)
            guard response.status == .notFound else { return response }
            return page() ?? response
        } catch let error as any HTTPResponseError where error.status == .notFound {
            guard let page = page() else { throw error }
            return page
        }
    }

    private func page() -> Response? {
        guard let data = FileManager.default.contents(atPath: root + "/404.html") else { return nil }
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: .notFound, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: [UInt8](data))))
    }
}
