import Testing
@testable import FlowServe

@Suite("Site preview server")
struct SiteServerTests {
    @Test func requestPathsStayInsideTheSite() {
        #expect(SiteServer.safeRelativePath("/") == "")
        #expect(SiteServer.safeRelativePath("/flows/a.html") == "flows/a.html")
        #expect(SiteServer.safeRelativePath("/../../etc/passwd") == nil)
        #expect(SiteServer.safeRelativePath("/%2e%2e/etc/passwd") == nil)
        #expect(SiteServer.safeRelativePath("/.flowspec/cache") == nil)
        #expect(SiteServer.safeRelativePath("/flows/%00x") == nil)
    }

    @Test func reloadScriptIsInjectedIntoHTMLOnly() {
        let page = Array("<html><head><title>x</title></head><body></body></html>".utf8)
        let injected = String(decoding: SiteServer.injectReload(page), as: UTF8.self)
        #expect(injected.contains("<script src=\"/__flowspec/reload.js\" defer></script>\n</head>"))
        #expect(SiteServer.injectReload(Array("body{}".utf8)) == Array("body{}".utf8))
        #expect(SiteServer.contentType("a/b.css") == "text/css; charset=utf-8")
        #expect(!SiteServer.reloadScript.contains("http"))
    }
}
